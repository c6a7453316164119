/**
 * One MCP tool call (issue 37), through the same use cases as a slash command: the catalog's
 * parser (lookups/tools.ts toolAsk: bad input costs nothing), then LookupService.prepare (access
 * policy, registry, cache, caps, the person's own "confirm under N points"), a DM to the token's
 * owner with the charge and Confirm / Deny, and the single-use claim their click makes
 * (slack/actions/mcp-consent.ts runs it, source 'mcp', and keeps the outcome with the row).
 *
 * The call waits by reading the pending row (state in the store, not in this process): the
 * click may land on any replica, and a retried call finds its first one's row. The row's id is
 * fixed by the call: the token, the client's call id (`_meta["platdesk/call-id"]`, else the
 * JSON-RPC request id), the tool and its arguments. A retry while the first waits or runs joins
 * it (no second DM, no second charge); a retry after it ended is answered from the row.
 */
import { createHash } from 'node:crypto';
import type { WebClient } from '@slack/web-api';
import { chargeNoteText, quoteShort } from '../blocks/charge-note.js';
import { renderConfirmation } from '../blocks/confirmation.js';
import type { Words } from '../blocks/i18n/words.js';
import {
  lookupToolOutputs,
  lookupToolText,
  type McpError,
  mcpErrorText,
  mcpWaitingText,
  spendToolOutputs,
  type ToolOutputs,
} from '../blocks/mcp.js';
import { interruptedTruth } from '../lookups/interrupted.js';
import { summarize } from '../lookups/lookup-service.js';
import { mcpFailureJson, mcpResultJson, mcpSummary } from '../lookups/mcp-calls.js';
import { decodeFailure, decodeOutcome, encodeOutcome } from '../lookups/outcome-codec.js';
import { usageReport } from '../lookups/reports.js';
import { type ToolInputs, type ToolName, toolAsk } from '../lookups/tools.js';
import type { LookupOutcome, Pending } from '../lookups/types.js';
import type { SlackDeps } from '../slack/deps.js';
import type { McpToken } from '../store/store.js';

/** What an MCP tool call returns: structured output and a short text, or a tool error. */
export type ToolCallResult =
  | { ok: true; outputs: ToolOutputs; text: string }
  | { ok: false; text: string; error: McpError['kind'] };

/** A finished call's row answers its retries for this long; after that the same call is a new one. */
export const MCP_REPLAY_MS = 15 * 60 * 1000;
const POLL_MS = 150;
/** How often a waiting call's client is told it still waits (when it asked for progress). */
export const PROGRESS_EVERY_MS = 5000;

export interface McpCallDeps {
  deps: Pick<SlackDeps, 'lookups' | 'store' | 'language' | 'isAdmin' | 'now' | 'logger' | 'client'>;
  /** The tenant's bot, which DMs the token's owner. */
  slack: WebClient;
  confirmTtlMs: number;
  /** Tests: a shorter PROGRESS_EVERY_MS. */
  progressEveryMs?: number;
}

export interface McpCall {
  token: McpToken;
  /** The client's name (MCP initialize's clientInfo, kept with the token). */
  client: string;
  tool: ToolName;
  args: ToolInputs;
  /** The client's id for this call (see the file's comment). */
  callId: string;
  /** Sends a progress notification while the owner has not clicked (when the client asked for them). */
  progress?: (message: string, elapsedMs: number) => Promise<void>;
  signal?: AbortSignal;
}

const stable = (value: unknown): string =>
  JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)),
        )
      : v,
  );

export function mcpPendingId(call: Pick<McpCall, 'token' | 'callId' | 'tool' | 'args'>): string {
  const h = createHash('sha256')
    .update([call.token.id, call.callId, call.tool, stable(call.args)].join('\n'))
    .digest('base64url');
  return `mcp:${h.slice(0, 32)}`;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

export async function callTool(d: McpCallDeps, call: McpCall): Promise<ToolCallResult> {
  const { deps } = d;
  const w = await deps.language.user(call.token.userId);
  const fail = (e: McpError): ToolCallResult => ({ ok: false, text: mcpErrorText(w, e), error: e.kind });
  const ask = toolAsk(call.tool, call.args, {
    ordersEdition: deps.client.editionFor('paging-orders') ?? 1,
  });
  if (!ask.ok) return fail({ kind: 'invalid', problems: ask.problems });

  if (ask.kind === 'spend') {
    // Everyone's spend is an admin's to see, as with `/platdesk usage all`.
    if (ask.everyone && !(await deps.isAdmin(call.token.userId))) return fail({ kind: 'spend_denied' });
    const report = await usageReport(deps.store, {
      period: ask.period,
      userId: ask.everyone ? null : call.token.userId,
      now: deps.now(),
      timeZone: (await deps.lookups.settings.budgets()).timezone,
    });
    const outputs = spendToolOutputs(w, report);
    return { ok: true, outputs, text: String(outputs.summary) };
  }

  const answer = (outcome: LookupOutcome & { shared?: boolean }, ageMs: number | null): ToolCallResult => {
    const outputs = lookupToolOutputs(w, ask, outcome, ageMs, deps.now());
    return { ok: true, outputs, text: lookupToolText(w, outputs, outcome, ageMs) };
  };
  const fromRow = async (row: Pending): Promise<ToolCallResult | null> => {
    switch (row.state) {
      case 'done': {
        if (row.resultJson === null) return fail({ kind: 'busy' });
        const stored = JSON.parse(row.resultJson) as { outcome: string; ageMs: number | null };
        return answer(decodeOutcome(stored.outcome), stored.ageMs);
      }
      case 'failed':
        return fail({
          kind: 'failed',
          error: row.resultJson === null ? new Error('the lookup failed') : decodeFailure(row.resultJson),
        });
      case 'cancelled':
        return fail({ kind: 'denied' });
      case 'interrupted': {
        // Never run again; what the ledger holds for it is said (DESIGN rule 2: the truth of the charge).
        const truth = await interruptedTruth(deps.store, row);
        if (truth.sent && truth.answer) return answer(truth.answer, null);
        return fail({
          kind: 'interrupted',
          charge: chargeNoteText(w, {
            chargedPoints: truth.sent ? truth.charged.points : 0,
            quotaCalls: truth.sent ? truth.charged.quotaCalls : 0,
          }),
        });
      }
      default:
        return null;
    }
  };

  let id = mcpPendingId(call);
  const earlier = await deps.store.pending.get<never, never>(id);
  if (earlier) {
    const live = earlier.state === 'pending' || earlier.state === 'running';
    if (live) return wait(d, call, w, earlier.id, earlier.expiresAt, fromRow);
    if (deps.now().getTime() - earlier.stateChangedAt.getTime() < MCP_REPLAY_MS) {
      const replay = await fromRow(earlier as unknown as Pending);
      if (replay) return replay;
      if (earlier.expiresAt.getTime() <= deps.now().getTime())
        return fail({ kind: 'expired', minutes: Math.round(d.confirmTtlMs / 60_000) });
    }
    // Long over: the same call again is a new one.
    id = `${id}:${deps.now().getTime()}`;
  }

  const actor = { userId: call.token.userId, channelId: null, teamId: null, responseUrl: null };
  const prepared = await deps.lookups.prepare(ask.request, actor, mcpSummary(call, summarize(ask.request)), {
    id,
    ttlMs: d.confirmTtlMs,
  });
  switch (prepared.kind) {
    case 'refused':
      return fail({ kind: 'refused', refusal: prepared.refusal });
    case 'cached': {
      // No call: the row keeps the answer, so a retry of this call gets the same one.
      const row = prepared.refresh;
      const claimed = await deps.lookups.claim(row.id, row.userId);
      if (claimed.ok)
        await deps.store.pending.finish(
          row.id,
          'done',
          JSON.stringify({ outcome: encodeOutcome(prepared.outcome), ageMs: prepared.ageMs }),
        );
      return answer(prepared.outcome, prepared.ageMs);
    }
    case 'auto':
      // Under the person's own "confirm under N points": no click, the same run as a Confirm's.
      try {
        return answer(
          await deps.lookups.run(prepared.pending, {
            source: 'mcp',
            resultJson: mcpResultJson,
            failureJson: mcpFailureJson,
          }),
          null,
        );
      } catch (error) {
        return fail({ kind: 'failed', error });
      }
    case 'confirm': {
      const { pending, quote } = prepared;
      // Retried before its row existed (a race of two identical calls): only the first one DMs.
      if (pending.state === 'pending' && pending.createdAt.getTime() >= deps.now().getTime() - 1000) {
        const minutes = Math.max(1, Math.round(d.confirmTtlMs / 60_000));
        await d.slack.chat.postMessage({
          channel: call.token.userId,
          ...renderConfirmation(w, {
            pendingId: pending.id,
            request: pending.request,
            quote,
            expiresInMinutes: minutes,
            warnings: prepared.warnings,
            mcp: { client: call.client, token: call.token.name },
          }),
        });
      }
      return wait(d, call, w, pending.id, pending.expiresAt, fromRow, quoteShort(w, quote));
    }
  }
}

/** Reads the row until it is decided; at its expiry cancels it (a later click then runs nothing). */
async function wait(
  d: McpCallDeps,
  call: McpCall,
  w: Words,
  id: string,
  expiresAt: Date,
  fromRow: (row: Pending) => Promise<ToolCallResult | null>,
  short = '',
): Promise<ToolCallResult> {
  const { deps } = d;
  const started = Date.now();
  let told = 0;
  for (;;) {
    const row = await deps.store.pending.get<never, never>(id);
    if (!row) return { ok: false, text: mcpErrorText(w, { kind: 'denied' }), error: 'denied' };
    const decided = await fromRow(row as unknown as Pending);
    if (decided) return decided;
    if (row.state === 'pending' && deps.now().getTime() >= expiresAt.getTime()) {
      const cancelled = await deps.store.pending.cancel(id, row.userId);
      // Cancelled, or already expired: either way no click can run it now.
      if (cancelled.ok || cancelled.reason === 'expired')
        return {
          ok: false,
          text: mcpErrorText(w, {
            kind: 'expired',
            minutes: Math.max(1, Math.round(d.confirmTtlMs / 60_000)),
          }),
          error: 'expired',
        };
      continue;
    }
    if (call.signal?.aborted)
      // The client went away: the row stays, so its retry joins it; nothing more is said here.
      return { ok: false, text: mcpErrorText(w, { kind: 'busy' }), error: 'busy' };
    const elapsed = Date.now() - started;
    if (
      call.progress &&
      row.state === 'pending' &&
      elapsed - told >= (d.progressEveryMs ?? PROGRESS_EVERY_MS)
    ) {
      told = elapsed;
      await call.progress(mcpWaitingText(w, short), elapsed).catch(() => undefined);
    }
    await sleep(POLL_MS, call.signal);
  }
}
