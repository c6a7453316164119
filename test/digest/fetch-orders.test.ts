/**
 * Fetching every order of a range against the in-process sandbox: ≤ 24 h windows, pageSize 100,
 * every page and no more (counted at the sandbox), at 'bulk' priority so that an interactive
 * lookup arriving meanwhile starts first.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type FetchPlan, fetchOrders, splitWindows } from '../../src/digest/fetch-orders.js';
import type { Priority } from '../../src/plat/limiter.js';
import { buildOrderBook, SANDBOX_FIXTURES } from '../../src/sandbox/fixtures.js';
import { type PlatHarness, startPlatHarness } from '../helpers/plat-harness.js';

const HOUR = 3_600_000;
const ANCHOR = Date.parse('2026-11-20T01:00:00Z');
const BUSY = SANDBOX_FIXTURES.owners.busy;

/** Orders of an owner per window, straight from the fixture ([start, end) on confirm_time). */
function expectedPerWindow(ownerId: string, from: number, to: number): number[] {
  const orders = buildOrderBook(ANCHOR).get(ownerId) ?? [];
  return splitWindows(new Date(from), new Date(to)).map(
    (w) =>
      orders.filter((o) => o.confirm_time >= w.start.getTime() && o.confirm_time < w.end.getTime()).length,
  );
}

describe('splitWindows', () => {
  it('cuts any range into consecutive windows of at most 24 h', async () => {
    const t = ANCHOR;
    const spans = (from: number, to: number) =>
      splitWindows(new Date(from), new Date(to)).map((w) => [
        (w.start.getTime() - t) / HOUR,
        (w.end.getTime() - t) / HOUR,
      ]);
    expect(spans(t - 72 * HOUR, t)).toEqual([
      [-72, -48],
      [-48, -24],
      [-24, 0],
    ]);
    expect(spans(t - 24 * HOUR, t)).toEqual([[-24, 0]]);
    expect(spans(t - 25 * HOUR, t)).toEqual([
      [-25, -1],
      [-1, 0],
    ]);
    expect(spans(t - 23 * HOUR, t)).toEqual([[-23, 0]]);
    expect(spans(t, t)).toEqual([]);
    expect(spans(t, t - HOUR)).toEqual([]);
  });
});

describe('fetchOrders against the sandbox', () => {
  let h: PlatHarness | null = null;
  afterEach(async () => {
    await h?.close();
    h = null;
  });

  it('reads all 350 orders of 72 h: 3 windows, pageSize 100, exactly one call per page', async () => {
    h = await startPlatHarness({ sandbox: { now: () => ANCHOR }, limiter: { maxCalls: 100 } });
    const perWindow = expectedPerWindow(BUSY, ANCHOR - 72 * HOUR, ANCHOR);
    expect(perWindow.reduce((a, b) => a + b, 0)).toBe(350);
    const expectedCalls = perWindow.reduce((n, count) => n + Math.max(1, Math.ceil(count / 100)), 0);

    const plans: FetchPlan[] = [];
    const result = await fetchOrders(h.client, {
      ownerId: BUSY,
      from: new Date(ANCHOR - 72 * HOUR),
      to: new Date(ANCHOR),
      onProgress: (p) => {
        plans.push(p);
      },
    });
    expect(result.orders).toHaveLength(350);
    expect(new Set(result.orders.map((o) => o.orderSn)).size).toBe(350);
    expect(result.windows).toBe(3);
    expect(result.calls).toBe(expectedCalls);
    // Counted at the sandbox: nothing more was sent.
    expect(h.sandbox.stats().callsByOperation['paging-orders']).toBe(expectedCalls);
    // The sandbox charges 2 points a page in the enhanced edition.
    expect(result.chargedPoints).toBe(2 * expectedCalls);
    expect(plans.map((p) => p.pagesDone)).toEqual(Array.from({ length: expectedCalls }, (_, i) => i + 1));
    const last = plans.at(-1);
    expect(last).toMatchObject({ pagesPlanned: expectedCalls, exact: true });
    // No receiver field made it past the client.
    for (const order of result.orders) {
      expect(Object.keys(order).filter((k) => /receiver|address|phone|town|province|city/i.test(k))).toEqual(
        [],
      );
      expect(JSON.stringify(order)).not.toMatch(/[张王李赵刘陈杨黄周吴]\*\*|\d{3}\*{4}\d{4}|号\*\*室/);
    }
  });

  it('one 24 h window of the busy owner takes ceil(n / 100) pages', async () => {
    h = await startPlatHarness({ sandbox: { now: () => ANCHOR }, limiter: { maxCalls: 100 } });
    const [count = 0] = expectedPerWindow(BUSY, ANCHOR - 24 * HOUR, ANCHOR);
    expect(count).toBeGreaterThan(100);
    const result = await fetchOrders(h.client, {
      ownerId: BUSY,
      from: new Date(ANCHOR - 24 * HOUR),
      to: new Date(ANCHOR),
    });
    expect(result.orders).toHaveLength(count);
    expect(h.sandbox.stats().callsByOperation['paging-orders']).toBe(Math.ceil(count / 100));
  });

  it('checkPlan can stop after the first page, before the rest is fetched', async () => {
    h = await startPlatHarness({ sandbox: { now: () => ANCHOR }, limiter: { maxCalls: 100 } });
    const stop = new Error('over the cap');
    await expect(
      fetchOrders(h.client, {
        ownerId: BUSY,
        from: new Date(ANCHOR - 24 * HOUR),
        to: new Date(ANCHOR),
        checkPlan: (plan) => {
          if (plan.pagesPlanned > 1) throw stop;
        },
      }),
    ).rejects.toBe(stop);
    expect(h.sandbox.stats().callsByOperation['paging-orders']).toBe(1);
  });

  it('runs at bulk priority: an interactive lookup that arrives meanwhile starts before the queued pages', async () => {
    const started: Priority[] = [];
    h = await startPlatHarness({
      sandbox: { now: () => ANCHOR },
      // One call per 100 ms (+25 ms margin), so the digest's pages queue up behind the window.
      limiter: { maxCalls: 1, windowMs: 100, onStarted: ({ priority }) => started.push(priority) },
    });
    const harness = h;
    const fetching = fetchOrders(harness.client, {
      ownerId: BUSY,
      from: new Date(ANCHOR - 72 * HOUR),
      to: new Date(ANCHOR),
    });
    // Wait until a digest page is waiting in the limiter, then ask interactively.
    while (harness.limiter.stats().queued.bulk === 0) await new Promise((r) => setTimeout(r, 2));
    const interactive = harness.client.orders(
      { ownerId: SANDBOX_FIXTURES.owners.small, pageSize: 10 },
      { priority: 'interactive' },
    );
    const [fetched, page] = await Promise.all([fetching, interactive]);
    expect(page.data.orders.length).toBeGreaterThan(0);
    expect(fetched.orders).toHaveLength(350);
    // The first digest page had started; the interactive call went ahead of the queued one.
    expect(started[0]).toBe('bulk');
    expect(started[1]).toBe('interactive');
    expect(started.filter((p) => p === 'bulk')).toHaveLength(fetched.calls);
  });
});
