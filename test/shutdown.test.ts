/**
 * Graceful shutdown (issue 7): stop() stops taking new work, lets a confirmed call finish, be
 * recorded and answered, then closes within its bound; past the bound a call still in flight is
 * cut off, told to the user as a timeout, and logged. The SQLite file is reopened afterwards to
 * read the ledger as it was left.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { NO_ANSWER_CODE } from '../src/plat/codes.js';
import { SANDBOX_FIXTURES } from '../src/sandbox/index.js';
import { type PlatdeskHarness, startPlatdeskHarness, textOf } from './helpers/platdesk-harness.js';
import { openTestStore } from './helpers/store-engines.js';

const { owners } = SANDBOX_FIXTURES;
const allTime = () => ({ from: new Date(0), to: new Date(Date.now() + 365 * 24 * 3_600_000) });
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const dir = mkdtempSync(join(tmpdir(), 'platdesk-shutdown-'));
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => void unhandled.push(reason);
process.on('unhandledRejection', onUnhandled);

/** Resolves true when the app refuses an HTTP request (connection refused or a non-200). */
async function refuses(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
    await res.arrayBuffer();
    return res.status !== 200;
  } catch {
    return true;
  }
}

/** The ledger and a lookup's state as the stopped app left them in its SQLite file. */
async function reopened(path: string, pendingId: string) {
  const store = await openTestStore(path);
  try {
    const rows = await store.ledger.list(allTime());
    return {
      ledger: { count: rows.length, points: rows.reduce((sum, r) => sum + r.points, 0) },
      rows: rows.map(({ operation, code, points, quotaCalls }) => ({ operation, code, points, quotaCalls })),
      state: (await store.pending.get(pendingId))?.state ?? null,
    };
  } finally {
    await store.close();
  }
}

const msgs = (h: PlatdeskHarness, msg: string) =>
  h.logs().filter((line) => (JSON.parse(line) as { msg?: string }).msg === msg);

describe('graceful shutdown', () => {
  let h: PlatdeskHarness | undefined;

  afterEach(async () => {
    await h?.close();
    h = undefined;
  });
  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    rmSync(dir, { recursive: true, force: true });
  });

  async function confirmSlowLookup(harness: PlatdeskHarness) {
    const { confirmation } = await harness.ask('/orders', `${owners.busy} page:3`);
    const before = harness.calls();
    const click = await harness.click('platdesk.confirm', confirmation.confirm.value);
    expect(click.status).toBe(200);
    expect(textOf(await harness.nextResponse(click.responseUrlId))).toContain('Looking up');
    // The call is in flight once the sandbox has counted it.
    while (harness.calls() === before) await sleep(5);
    return { pendingId: confirmation.confirm.value ?? '', responseUrlId: click.responseUrlId };
  }

  it('a slow confirmed call finishes, is recorded and answered before stop() resolves; new work is refused', async () => {
    const db = join(dir, 'drain.sqlite');
    h = await startPlatdeskHarness({ env: { DATABASE_PATH: db }, drainTimeoutMs: 3000 });
    const harness = h;
    harness.sandbox.setFaults([{ kind: 'latency', ms: 800, count: 1 }]);
    const { pendingId, responseUrlId } = await confirmSlowLookup(harness);

    const started = performance.now();
    let stopped = false;
    const stopping = harness.platdesk.stop().then(() => {
      stopped = true;
    });
    // New work is refused while the confirmed call still runs.
    while (!(await refuses(`${harness.platdesk.url}/healthz`))) await sleep(10);
    expect(stopped).toBe(false);
    expect(harness.responses(responseUrlId)).toHaveLength(1);
    const refusedCommand = await harness.command('/orders', owners.small).catch(() => null);
    expect(refusedCommand === null || refusedCommand.status !== 200).toBe(true);

    await stopping;
    const ms = performance.now() - started;
    // It waited for the call (≈800 ms from the click), not for the 3 s bound.
    expect(ms).toBeGreaterThan(400);
    expect(ms).toBeLessThan(3000);
    // The answer was delivered before stop() resolved: no waiting here.
    const answer = harness.responses(responseUrlId)[1];
    expect(textOf(answer)).toContain('Charged 2 points');
    expect(textOf(answer)).toContain('Orders of');

    const { calls, charges } = harness.sandbox.stats();
    expect(charges.count).toBe(1);
    expect(calls).toBe(1);
    const left = await reopened(db, pendingId);
    // One row per call that reached the service, with the points it withheld.
    expect(left.ledger).toEqual({ count: calls, points: charges.points });
    expect(left.rows).toEqual([{ operation: 'paging-orders', code: 0, points: 2, quotaCalls: 0 }]);
    expect(left.state).toBe('done');
    expect(msgs(harness, 'lookups still running at shutdown')).toEqual([]);
    expect(await refuses(`${harness.eventsUrl}`)).toBe(true);
    const after = await harness.command('/item', 'help').catch(() => null);
    expect(after === null || after.status !== 200).toBe(true);
  });

  it('past a 100 ms bound a hung call is cut off: stop() resolves soon after, logs it, and the user is told', async () => {
    const db = join(dir, 'cutoff.sqlite');
    // The default 15 s plat deadline: only the shutdown can end this call.
    h = await startPlatdeskHarness({ env: { DATABASE_PATH: db }, drainTimeoutMs: 100 });
    const harness = h;
    harness.sandbox.setFaults([{ kind: 'hang', count: 1 }]);
    const { pendingId, responseUrlId } = await confirmSlowLookup(harness);

    const started = performance.now();
    await harness.platdesk.stop();
    const ms = performance.now() - started;
    expect(ms).toBeGreaterThanOrEqual(95);
    expect(ms).toBeLessThan(1000);

    const warned = msgs(harness, 'lookups still running at shutdown');
    expect(warned).toHaveLength(1);
    expect(JSON.parse(warned[0] ?? '{}').running).toBeGreaterThan(0);
    // The user hears what happened: a timeout that the service may still have counted.
    const answer = textOf(harness.responses(responseUrlId)[1]);
    expect(answer).toContain('The data service did not answer in time');
    expect(answer).toContain('the service may still have counted the call');

    const { calls, charges } = harness.sandbox.stats();
    expect(calls).toBe(1);
    expect(charges.count).toBe(0);
    const left = await reopened(db, pendingId);
    // The cut-off call reached the service: recorded before the store closed, as an unread answer.
    expect(left.ledger).toEqual({ count: calls, points: charges.points });
    expect(left.rows).toEqual([
      { operation: 'paging-orders', code: NO_ANSWER_CODE, points: 0, quotaCalls: 0 },
    ]);
    expect(left.state).toBe('failed');
    expect(await refuses(`${harness.platdesk.url}/healthz`)).toBe(true);
  });

  it('left nothing unhandled', async () => {
    expect(unhandled).toEqual([]);
  });
});
