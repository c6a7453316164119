/**
 * A workspace's parts are built on demand and evicted when idle (issue 39), through the real Bolt
 * app in distributed mode on both engines: start builds none; a workspace evicted between its
 * Confirm and the answer is answered once and charged once; parts whose lookup or digest run is in
 * flight are not evicted, whatever the bound; a digest whose workspace's parts were let go runs on
 * its schedule (the one wake loop builds them), posted once and charged once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import { createFakeClock, type FakeClock } from '../helpers/fake-clock.js';
import {
  type HarnessOptions,
  type PlatdeskHarness,
  startWithWorkspaces,
  textOf,
} from '../helpers/platdesk-harness.js';
import { ENGINES } from '../helpers/store-engines.js';

const A = 'T0PARTSA';
const B = 'T0PARTSB';
const BOTS = {
  [A]: { botToken: 'xoxb-parts-a', botUserId: 'UBOTA', botId: 'BBOTA' },
  [B]: { botToken: 'xoxb-parts-b', botUserId: 'UBOTB', botId: 'BBOTB' },
} as const;
const CHANNEL = 'C0PARTSDIGEST';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const itemId = SANDBOX_FIXTURES.items.basic;
const range = { from: new Date(0), to: new Date(8.64e15) };

let h: PlatdeskHarness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

function start(engine: (typeof ENGINES)[number], extra: HarnessOptions = {}) {
  return startWithWorkspaces(BOTS, { engine, ...extra });
}

const tenantsBuilt = (harness: PlatdeskHarness) => harness.platdesk.tenants.built().map((p) => p.tenant);

describe.each(ENGINES)('workspace parts on demand (%s store)', (engine) => {
  it('start builds no workspace’s parts, a scheduled one’s included; a request builds its own', async () => {
    h = await start(engine);
    // The wake loop's first look (at start) is over: its next is a minute on, after this test.
    await h.platdesk.schedulersIdle();
    // A digest of A's in the store before the request: its due time is a row, not parts.
    await h.platdesk.store.forTenant(A).digests.add({
      ownerId: SANDBOX_FIXTURES.owners.small,
      shopLabel: 'tea',
      channelId: CHANNEL,
      localTime: '03:00',
      timeZone: 'UTC',
      createdBy: 'UADMIN',
    });
    expect(tenantsBuilt(h)).toEqual([]);
    const { confirmation } = await h.ask('/item', itemId, { teamId: B });
    expect(confirmation.text).toContain(itemId);
    expect(tenantsBuilt(h)).toEqual([B]);
  });

  it('a workspace evicted between its Confirm and the answer: answered once, charged once', async () => {
    h = await start(engine);
    const { confirmation } = await h.ask('/item', itemId, { teamId: A });
    expect(await h.platdesk.tenants.evict(A)).toBe(true);
    expect(tenantsBuilt(h)).toEqual([]);
    const { answer } = await h.confirm(confirmation, { teamId: A });
    expect(textOf(answer)).toContain(itemId);
    await h.settle(300);
    expect(h.calls()).toBe(1);
    const rows = await h.platdesk.store.forTenant(A).ledger.list(range);
    expect(rows).toHaveLength(1);
    // A second click on the same Confirm (a redelivery after another eviction) buys nothing.
    expect(await h.platdesk.tenants.evict(A)).toBe(true);
    await h.click('platdesk.confirm', confirmation.confirm.value, { teamId: A });
    await h.settle(300);
    expect(h.calls()).toBe(1);
    expect(await h.platdesk.store.forTenant(A).ledger.list(range)).toHaveLength(1);
  });

  it('parts whose lookup is in flight are not evicted, past the bound either; they go once it is answered', async () => {
    h = await start(engine, { tenantParts: { maxParts: 1 } });
    h.sandbox.setFaults([{ kind: 'latency', ms: 1500, operations: ['platiteminfo'] }]);
    const { confirmation } = await h.ask('/item', itemId, { teamId: A });
    const confirmed = h.confirm(confirmation, { teamId: A });
    const partsOf = (t: string) => h?.platdesk.tenants.built().find((p) => p.tenant === t);
    await expect.poll(() => partsOf(A)?.lookups.running() ?? 0, { timeout: 5_000 }).toBeGreaterThan(0);
    expect(await h.platdesk.tenants.evict(A)).toBe(false);
    // B's request past the bound of one: A's parts are busy and stay.
    await h.ask('/item', itemId, { teamId: B });
    await h.platdesk.tenants.trim();
    expect(tenantsBuilt(h).sort()).toEqual([A, B]);
    const { answer } = await confirmed;
    expect(textOf(answer)).toContain(itemId);
    await expect.poll(() => partsOf(A)?.lookups.running() ?? 0).toBe(0);
    expect(await h.platdesk.tenants.evict(A)).toBe(true);
    expect(tenantsBuilt(h)).toEqual([B]);
    expect(h.sandbox.stats().callsByOperation.platiteminfo).toBe(1);
    expect(await h.platdesk.store.forTenant(A).ledger.list(range)).toHaveLength(1);
  });

  it('idle parts go after the idle bound, and the least recently used past the count bound', async () => {
    // Long enough for the second ask on a loaded machine, before A's parts count as idle.
    h = await start(engine, { tenantParts: { idleMs: 1500 } });
    await h.ask('/item', itemId, { teamId: A });
    await h.ask('/item', itemId, { teamId: B });
    expect(tenantsBuilt(h).sort()).toEqual([A, B]);
    await new Promise((r) => setTimeout(r, 1600));
    await h.platdesk.tenants.trim();
    expect(tenantsBuilt(h)).toEqual([]);
    await h.close();

    h = await start(engine, { tenantParts: { maxParts: 1 } });
    await h.ask('/item', itemId, { teamId: A });
    // Past the moment a request may still hold them (RECENT_MS), A's idle parts give way to B's.
    await new Promise((r) => setTimeout(r, 2_100));
    await h.ask('/item', itemId, { teamId: B });
    await h.platdesk.tenants.trim();
    expect(tenantsBuilt(h)).toEqual([B]);
  });

  it('a digest runs on its schedule after its workspace’s parts were let go, and its parts stay while it runs: posted once, charged once', async () => {
    const clock: FakeClock = createFakeClock(Date.now() - 2 * HOUR);
    h = await start(engine, { clock });
    const harness = h;
    const due = Math.ceil(clock.now() / HOUR) * HOUR + HOUR;
    const local = `${String(new Date(due).getUTCHours()).padStart(2, '0')}:00`;
    await harness.platdesk.store.forTenant(A).digests.add({
      ownerId: SANDBOX_FIXTURES.owners.busy,
      shopLabel: 'clothing',
      channelId: CHANNEL,
      localTime: local,
      timeZone: 'UTC',
      createdBy: 'UADMIN',
    });
    // The next look (the added row is due now) builds A's parts and plans: nothing is due yet.
    await clock.advanceAsync(15 * 60_000);
    await harness.platdesk.schedulersIdle();
    expect(tenantsBuilt(harness)).toEqual([A]);
    expect(harness.sandbox.stats().callsByOperation['paging-orders'] ?? 0).toBe(0);
    expect(await harness.platdesk.tenants.evict(A)).toBe(true);
    expect(tenantsBuilt(harness)).toEqual([]);

    // Slow pages: the run is in flight for a while once its time comes.
    harness.sandbox.setFaults([{ kind: 'latency', ms: 400, operations: ['paging-orders'] }]);
    const partsOf = () => harness.platdesk.tenants.built().find((p) => p.tenant === A);
    const advancing = clock.advanceAsync(due - clock.now());
    await expect
      .poll(() => partsOf()?.deps.digests?.scheduler.busy() ?? false, { timeout: 10_000 })
      .toBe(true);
    await expect
      .poll(() => harness.sandbox.stats().callsByOperation['paging-orders'] ?? 0)
      .toBeGreaterThan(0);
    expect(await harness.platdesk.tenants.evict(A)).toBe(false);
    await advancing;
    await harness.platdesk.schedulersIdle();

    const posts = harness.fake
      .callsTo('chat.postMessage')
      .filter((c) => c.body.channel === CHANNEL && !c.body.thread_ts);
    expect(posts).toHaveLength(1);
    expect(textOf(posts[0]?.body)).toContain('Orders digest of clothing');
    const pages = harness.sandbox.stats().callsByOperation['paging-orders'] ?? 0;
    expect(pages).toBeGreaterThan(0);
    const charged = (await harness.platdesk.store.forTenant(A).ledger.list(range)).filter(
      (r) => r.operation === 'paging-orders',
    );
    expect(charged).toHaveLength(pages);
    expect(await harness.platdesk.tenants.evict(A)).toBe(true);

    // The next day's digest: built again by the wake loop, posted once more, nothing bought twice.
    await clock.advanceAsync(DAY);
    await harness.platdesk.schedulersIdle();
    const after = harness.fake
      .callsTo('chat.postMessage')
      .filter((c) => c.body.channel === CHANNEL && !c.body.thread_ts);
    expect(after).toHaveLength(2);
    const pagesAfter = harness.sandbox.stats().callsByOperation['paging-orders'] ?? 0;
    const chargedAfter = (await harness.platdesk.store.forTenant(A).ledger.list(range)).filter(
      (r) => r.operation === 'paging-orders',
    );
    expect(chargedAfter).toHaveLength(pagesAfter);
  });
});
