/**
 * Control endpoints under /__sandbox/ for tests and people driving the sandbox from outside the
 * process (e.g. `curl -X POST .../__sandbox/faults`). No auth, not counted as calls: they are not
 * part of the plat API. Plain JSON with real HTTP statuses, unlike the plat envelope.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseFaults } from './faults.js';
import { sendJson } from './http-io.js';
import { isRecord, parseJson, readBody } from './request-body.js';
import type { Sandbox } from './types.js';

export const DEBUG_PREFIX = '/__sandbox/';

export type SandboxControls = Pick<
  Sandbox,
  'stats' | 'reset' | 'setFaults' | 'setBalance' | 'setItemQuota' | 'setOrderStatus'
>;

export async function handleDebug(
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
  controls: SandboxControls,
): Promise<void> {
  const reply = (status: number, value: unknown) => sendJson(response, status, JSON.stringify(value));
  const route = `${request.method} ${path.slice(DEBUG_PREFIX.length)}`;
  const raw = await readBody(request);
  const parsed = raw === null || raw.length === 0 ? { ok: true as const, value: {} } : parseJson(raw);
  if (!parsed.ok || !isRecord(parsed.value)) return reply(400, { error: 'the body must be a JSON object' });
  const body = parsed.value;

  switch (route) {
    case 'GET stats':
      return reply(200, controls.stats());
    case 'POST reset':
      controls.reset();
      return reply(200, { ok: true });
    case 'POST faults': {
      try {
        const faults = parseFaults(body.faults ?? []);
        controls.setFaults(faults);
        return reply(200, { ok: true, faults: faults.length });
      } catch (error) {
        return reply(400, { error: error instanceof Error ? error.message : String(error) });
      }
    }
    case 'POST balance': {
      const { points, itemQuota } = body;
      if (points === undefined && itemQuota === undefined)
        return reply(400, { error: 'send points and/or itemQuota' });
      if (points !== undefined && !isCount(points))
        return reply(400, { error: 'points must be an integer ≥ 0' });
      if (itemQuota !== undefined && !isCount(itemQuota))
        return reply(400, { error: 'itemQuota must be an integer ≥ 0' });
      if (points !== undefined) controls.setBalance(points);
      if (itemQuota !== undefined) controls.setItemQuota(itemQuota);
      const { balancePoints, itemQuota: quota } = controls.stats();
      return reply(200, { ok: true, balancePoints, itemQuota: quota });
    }
    default:
      return reply(404, { error: `no sandbox endpoint ${route}` });
  }
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}
