/**
 * The plat API pipeline, per call: count the arrival (calls, rate window) → auth (401) →
 * route (404) → faults → operation handler → envelope. Every plat answer is HTTP 200 JSON
 * (spec §7: HTTP status codes are not documented; clients read `code`, notes.md), except
 * the http500 and malformed faults, which exist to break exactly that.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { fail, messageFor, paramError, type Reply, serializeReply } from './envelope.js';
import type { FaultDecision, FaultEngine } from './faults.js';
import { authUrlFor } from './fixtures.js';
import { HANDLERS, type HandlerContext } from './handlers/index.js';
import { send, sendJson } from './http-io.js';
import type { RateWindow } from './rate-window.js';
import { readBody, readFields } from './request-body.js';
import { OPERATION_NAMES, type Operation, SANDBOX_OPERATIONS } from './spec-table.js';

export interface CallCounters {
  calls: number;
  unauthorized: number;
  callsByOperation: Record<Operation, number>;
  /** Calls that passed auth, by token. */
  callsByToken: Record<string, number>;
  /** Arrival times in the rate clock, oldest first; trimmed past ARRIVALS_KEPT (see keptArrivals). */
  arrivals: number[];
}

/** How many arrival times `Sandbox.arrivals()` returns at most (a long-running sandbox stays bounded). */
export const ARRIVALS_KEPT = 100_000;

export function emptyCounters(): CallCounters {
  const byOperation = Object.fromEntries(OPERATION_NAMES.map((op) => [op, 0]));
  return {
    calls: 0,
    unauthorized: 0,
    callsByOperation: byOperation as Record<Operation, number>,
    callsByToken: {},
    arrivals: [],
  };
}

/** The newest ARRIVALS_KEPT arrival times, oldest first (a copy). */
export function keptArrivals(counters: CallCounters): number[] {
  return counters.arrivals.slice(-ARRIVALS_KEPT);
}

export interface DispatchDeps {
  /** The tokens accepted (spec §5: one per account). */
  tokens: readonly string[];
  /** Mutated in place (reset() zeroes it). */
  counters: CallCounters;
  rate: RateWindow;
  faults: FaultEngine;
  context: HandlerContext;
  /** Envelope `time` (13-digit ms). */
  wallClock: () => number;
  /** Rate-window clock (monotonic unless a clock was injected). */
  rateClock: () => number;
  /** Aborted when the sandbox closes: hung and delayed calls stop waiting. */
  closing: () => AbortSignal;
}

const ROUTES = new Map<string, Operation>(
  OPERATION_NAMES.map((operation) => [
    `${SANDBOX_OPERATIONS[operation].method} ${SANDBOX_OPERATIONS[operation].path}`,
    operation,
  ]),
);

const HTML_500 =
  '<html><head><title>500 Internal Server Error</title></head><body><h1>500 Internal Server Error</h1></body></html>';
/** A body cut off mid-way, as when a proxy drops the connection (JSON.parse must fail). */
const TRUNCATED_JSON = '{"code":0,"msg":"ok","data":{"trunc';

export function createDispatcher(deps: DispatchDeps) {
  return async function dispatch(
    request: IncomingMessage,
    response: ServerResponse,
    url: URL,
  ): Promise<void> {
    const started = performance.now();
    const { counters } = deps;
    // Counted at arrival, before auth and faults: this is what the real limit would see.
    counters.calls += 1;
    const at = deps.rateClock();
    deps.rate.record(at);
    counters.arrivals.push(at);
    // Trimmed in halves so a push stays O(1) amortized.
    if (counters.arrivals.length >= 2 * ARRIVALS_KEPT) counters.arrivals.splice(0, ARRIVALS_KEPT);
    const answer = (reply: Reply) =>
      sendJson(response, 200, serializeReply(reply, elapsedMs(started), deps.wallClock()));

    const body = await readBody(request);
    const token = tokenOf(request.headers.authorization);
    if (token === null || !deps.tokens.includes(token)) {
      counters.unauthorized += 1;
      return answer(fail(401, 'Credential invalid'));
    }
    counters.callsByToken[token] = (counters.callsByToken[token] ?? 0) + 1;
    const operation = ROUTES.get(`${request.method} ${url.pathname}`);
    if (operation === undefined) {
      return answer(fail(404, `${messageFor(404)}: ${request.method} ${url.pathname}`));
    }
    counters.callsByOperation[operation] += 1;

    const decision = deps.faults.decide(
      operation,
      deps.faults.needsPage && operation === 'paging-orders' && body !== null
        ? await pageOf(body, request.headers['content-type'])
        : null,
    );
    if (decision.delayMs > 0 && !(await wait(decision.delayMs, deps.closing()))) return;
    if (decision.fault !== null) return applyFault(operation, decision.fault, response, deps, answer);
    if (body === null) return answer(paramError('the body is too large'));

    let reply: Reply;
    try {
      reply = await HANDLERS[operation](
        { query: url.searchParams, body, contentType: request.headers['content-type'] },
        deps.context,
      );
    } catch (error) {
      // A sandbox bug: answer the way the real service reports its own failures (spec §7, code 200).
      reply = fail(
        200,
        `System error, contact support: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    answer(reply);
  };
}

async function applyFault(
  operation: Operation,
  fault: NonNullable<FaultDecision['fault']>,
  response: ServerResponse,
  deps: DispatchDeps,
  answer: (reply: Reply) => void,
): Promise<void> {
  switch (fault.kind) {
    case 'hang':
      // Never answers; close() destroys the socket, and this wait ends with it.
      await wait(Number.POSITIVE_INFINITY, deps.closing());
      return;
    case 'http500':
      return send(response, 500, 'text/html; charset=utf-8', HTML_500);
    case 'malformed':
      return send(response, 200, 'application/json; charset=utf-8', TRUNCATED_JSON);
    case 'code': {
      // Charged as the answer says (a withholding_money in its data) and, on the item operations,
      // as a query that ran (spec §8); otherwise it stands for a call the service refused.
      const msg = fault.msg ?? messageFor(fault.code);
      const data = fault.data ?? defaultFaultData(fault.code);
      deps.context.account.chargeFault(operation, fault.code, msg, data);
      return answer(fail(fault.code, msg, data));
    }
  }
}

/** The `page` field of a paging-orders body (0 when not sent, as the handler reads it), or null. */
async function pageOf(body: Buffer, contentType: string | undefined): Promise<number | null> {
  const fields = await readFields(body, contentType);
  const text = fields?.get('page')?.trim() || '0';
  return /^\d+$/.test(text) ? Number(text) : null;
}

/** A 302 without a link would be unlike the real one (spec §4.6). */
function defaultFaultData(code: number): unknown {
  return code === 302 ? { url: authUrlFor('sandbox-fault') } : {};
}

/** spec §5: `Authorization: Bearer <ACCESS_TOKEN>`; the scheme is case-insensitive (RFC 9110 §11.1). */
function tokenOf(header: string | undefined): string | null {
  const match = /^bearer\s+(.+)$/i.exec(header?.trim() ?? '');
  return match?.[1] ?? null;
}

/** Resolves true after ms, or false as soon as the sandbox closes. */
async function wait(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  if (ms === Number.POSITIVE_INFINITY) {
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    return false;
  }
  try {
    await delay(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

/** The envelope's msec: whole ms of execution, at least 1 like a real service's timer. */
function elapsedMs(started: number): number {
  return Math.max(1, Math.round(performance.now() - started));
}
