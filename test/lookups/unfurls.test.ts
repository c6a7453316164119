/**
 * The pieces under unfurls and shortcuts, without Slack: what a message holds, the plan of the
 * chosen lookups, the per-channel daily cap and the 30-minute window in the store, handled event
 * ids surviving a restart, and single-use shortcut batches.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findInTexts, messageTexts } from '../../src/lookups/message-refs.js';
import { planSelection, sumQuotes } from '../../src/lookups/shortcut-lookups.js';
import type { LookupRequest, Quote } from '../../src/lookups/types.js';
import { openStore } from '../../src/store/engine.js';

const dir = mkdtempSync(join(tmpdir(), 'platdesk-unfurls-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Quote stub: item lookups take the quota, everything else 5 points a call. */
const quoteOf = (r: LookupRequest): Quote =>
  r.kind === 'item'
    ? {
        lines: [
          {
            operation: 'platiteminfo',
            edition: null,
            calls: 1,
            unit: 'quota',
            configuredPoints: null,
            lastSeenPoints: null,
          },
        ],
        totalPoints: 0,
        quotaCalls: 1,
      }
    : {
        lines: [
          {
            operation: 'platdybw',
            edition: 1,
            calls: 1,
            unit: 'points',
            configuredPoints: 5,
            lastSeenPoints: null,
          },
        ],
        totalPoints: 5,
        quotaCalls: 0,
      };
const lookups = { quote: async (r: LookupRequest) => quoteOf(r) };

describe('finding what a message holds', () => {
  const message = {
    text: 'see <https://item.taobao.com/item.htm?id=680001234501&amp;skuId=5012345678901|this>, id 680001234505 shop:57301234',
    blocks: [
      {
        type: 'rich_text',
        elements: [
          {
            type: 'rich_text_section',
            elements: [
              { type: 'link', url: 'https://mobile.yangkeduo.com/goods.html?goods_id=680001234506' },
            ],
          },
        ],
      },
    ],
    attachments: [
      {
        title_link: 'https://detail.tmall.com/item.htm?id=680001234503',
        fallback: '旺旺：山间绿茶官方旗舰店',
      },
      { fields: [{ title: 'waybills', value: 'SF1234567890123 / 9812345678901' }] },
    ],
  };
  const texts = messageTexts(message);

  it('items: links in text, blocks and attachments, and bare ids, never numbers inside links', async () => {
    const found = findInTexts('items', texts);
    expect(found.candidates.map((c) => (c.kind === 'item' ? c.itemId : c.kind))).toEqual([
      '680001234501',
      '680001234506',
      '680001234503',
      '680001234505',
    ]);
    expect(found.target).toBe('shop:57301234');
  });

  it('waybills, seller accounts and shops of linked items', async () => {
    expect(findInTexts('waybills', texts).candidates).toEqual([
      { kind: 'waybill', waybillCode: 'SF1234567890123', carrier: 'SF' },
      { kind: 'waybill', waybillCode: '9812345678901', carrier: 'EMS' },
    ]);
    const shops = findInTexts('shops', texts).candidates;
    expect(shops.filter((c) => c.kind === 'shop-id')).toEqual([
      { kind: 'shop-id', wwid: '山间绿茶官方旗舰店' },
    ]);
    expect(shops.filter((c) => c.kind === 'shop-info')).toHaveLength(3);
  });

  it('short links are reported, not looked up; nothing found is empty', async () => {
    const found = findInTexts('items', ['try https://m.tb.cn/h.abc and e.tb.cn/x']);
    expect(found.candidates).toEqual([]);
    expect(found.shortLinks).toHaveLength(2);
    expect(findInTexts('any', ['hello']).candidates).toEqual([]);
  });

  it('at most 30 are listed, the rest counted', async () => {
    const many = Array.from(
      { length: 35 },
      (_, i) => `https://item.taobao.com/item.htm?id=6800012345${String(i).padStart(2, '0')}`,
    );
    const found = findInTexts('items', [many.join(' ')]);
    expect(found.candidates).toHaveLength(30);
    expect(found.more).toBe(5);
  });
});

describe('the plan of the chosen lookups', () => {
  const found = findInTexts('any', ['680001234501 680001234502 SF1234567890123 773012345678901']);

  it('one lookup per item, one for the waybills; the total adds them up', async () => {
    const plan = await planSelection(lookups, found, {
      chosen: [0, 1, 2],
      target: 'shop:57301234',
      carrier: null,
    });
    expect(plan.problems).toEqual([]);
    expect(plan.lookups.map((l) => l.request.kind)).toEqual(['item', 'item', 'waybill-print']);
    expect(plan.total.quotaCalls).toBe(2);
    expect(plan.total.totalPoints).toBe(5);
  });

  it('waybills need a target; owner: needs a carrier where the shape does not tell', async () => {
    expect(
      (await planSelection(lookups, found, { chosen: [2], target: null, carrier: null })).needsTarget,
    ).toBe(true);
    const owner = await planSelection(lookups, found, {
      chosen: [2, 3],
      target: 'owner:2200001001',
      carrier: null,
    });
    expect(owner.problems.map((p) => p.field)).toEqual(['carrier']);
    const given = await planSelection(lookups, found, {
      chosen: [2, 3],
      target: 'owner:2200001001',
      carrier: 'STO',
    });
    expect(given.problems).toEqual([]);
    expect(given.lookups[0]?.request).toMatchObject({ kind: 'waybill-info', ownerId: '2200001001' });
    expect(
      (await planSelection(lookups, found, { chosen: [], target: null, carrier: null })).problems[0]?.field,
    ).toBe('pick');
  });

  it('an unknown price makes the total unknown', async () => {
    const unknown: Quote = { ...quoteOf({ kind: 'shop-id', wwid: 'x' }), totalPoints: null };
    expect(sumQuotes([quoteOf({ kind: 'shop-id', wwid: 'x' }), unknown]).totalPoints).toBeNull();
  });
});

describe('unfurl records and caps in the store', () => {
  it('auto-lookups: one per (channel, item) in the window, at most `cap` a day, given back when not called', async () => {
    let t = Date.parse('2026-11-20T02:00:00Z');
    const store = await openStore({ path: ':memory:', clock: { now: () => new Date(t).getTime() } });
    const since = () => new Date(t - 30 * 60_000);
    const begin = (itemId: string) =>
      store.unfurls.beginAuto({
        channelId: 'C1',
        itemId,
        userId: 'U1',
        since: since(),
        day: '2026-11-20',
        cap: 2,
      });
    const a = await begin('1');
    expect(a).toMatchObject({ started: true, used: 1 });
    expect(await begin('1')).toMatchObject({ started: false, reason: 'busy' });
    const b = await begin('2');
    expect(b).toMatchObject({ started: true, used: 2 });
    expect(await begin('3')).toEqual({ started: false, reason: 'capped', used: 2 });
    if (b.started) await store.unfurls.abandonAuto(b.record.id, '2026-11-20');
    expect(await store.unfurls.autoUsed('C1', '2026-11-20')).toBe(1);
    expect(await begin('3')).toMatchObject({ started: true, used: 2 });
    // After the window the item may be looked up again (if the cap allows).
    if (a.started) await store.unfurls.finishAuto(a.record.id, 'done', '{}', 'p1');
    t += 31 * 60_000;
    expect(await begin('1')).toEqual({ started: false, reason: 'capped', used: 2 });
    await store.close();
  });

  it('handled event ids survive a restart; old ones are forgotten', async () => {
    const path = join(dir, 'events.db');
    let t = Date.parse('2026-11-20T02:00:00Z');
    let store = await openStore({ path, clock: { now: () => new Date(t).getTime() } });
    expect(await store.unfurls.firstSeen('Ev1', 3_600_000)).toBe(true);
    expect(await store.unfurls.firstSeen('Ev1', 3_600_000)).toBe(false);
    await store.close();
    store = await openStore({ path, clock: { now: () => new Date(t).getTime() } });
    expect(await store.unfurls.firstSeen('Ev1', 3_600_000)).toBe(false);
    t += 2 * 3_600_000;
    expect(await store.unfurls.firstSeen('Ev2', 3_600_000)).toBe(true);
    expect(await store.unfurls.firstSeen('Ev1', 3_600_000)).toBe(true);
    await store.close();
  });

  it('a shortcut batch is claimed once, by its user, before expiry', async () => {
    let t = Date.parse('2026-11-20T02:00:00Z');
    const store = await openStore({ path: ':memory:', clock: { now: () => new Date(t).getTime() } });
    const input = {
      userId: 'U1',
      kind: 'items',
      channelId: 'C1',
      threadTs: '1.2',
      payloadJson: '{}',
      ttlMs: 600_000,
    };
    const batch = await store.shortcutBatches.create(input);
    expect(await store.shortcutBatches.claim(batch.id, 'U2')).toMatchObject({
      ok: false,
      reason: 'not_yours',
    });
    expect((await store.shortcutBatches.claim(batch.id, 'U1')).ok).toBe(true);
    expect(await store.shortcutBatches.claim(batch.id, 'U1')).toMatchObject({
      ok: false,
      reason: 'already_used',
    });
    const late = await store.shortcutBatches.create(input);
    t += 11 * 60_000;
    expect(await store.shortcutBatches.claim(late.id, 'U1')).toMatchObject({ ok: false, reason: 'expired' });
    expect(await store.shortcutBatches.claim('nope', 'U1')).toMatchObject({ ok: false, reason: 'not_found' });
    await store.close();
  });
});
