/**
 * A cap is never passed by a price platdesk did not know (issue 33 findings 7 and 8), through the
 * REAL Bolt app, the fake Slack Web API and a sandbox on loopback, on both engines:
 *
 * - a call whose price is not known holds PLAT_PRICE_CEILING against the caps, never 0 points,
 *   so ten confirmed at once stop at the cap;
 * - a call holds the largest charge seen for its operation and edition (or its configured price,
 *   if higher) and gives back what its charge did not use;
 * - a charge above what its call held is booked in full, and nothing after it passes the cap;
 * - a charge is booked in the period its call was reserved in (the app's clock), however late
 *   its answer comes.
 *
 * Calls are counted at the sandbox and compared with the ledger and the running totals.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import { periodsOf } from '../../src/store/periods.js';
import { type PlatdeskHarness, startPlatdeskHarness, textOf } from '../helpers/platdesk-harness.js';
import { SLACK } from '../helpers/slack-payloads.js';
import { ENGINES } from '../helpers/store-engines.js';

const ADMIN = SLACK.adminId;
const ZONE = 'Asia/Shanghai';
const REFUSED = /would exceed the workspace daily cap/;

let h: PlatdeskHarness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

function harness(): PlatdeskHarness {
  if (!h) throw new Error('no harness');
  return h;
}

async function admin(text: string): Promise<string> {
  const sent = await harness().command('/platdesk', text, { userId: ADMIN });
  expect(sent.status).toBe(200);
  return textOf(await harness().nextResponse(sent.responseUrlId));
}

/** The command's first answer, as text (a confirmation or a refusal). */
async function firstAnswer(name: string, text: string, userId: string = SLACK.userId): Promise<string> {
  const sent = await harness().command(name, text, { userId });
  expect(sent.status).toBe(200);
  return textOf(await harness().nextResponse(sent.responseUrlId));
}

/** Every ledger row, and their points. */
async function ledger() {
  const rows = await harness().platdesk.store.ledger.list({ from: new Date(0), to: new Date(8.64e15) });
  return { rows, points: rows.reduce((sum, r) => sum + r.points, 0) };
}

/** The workspace's daily counter of the day containing `at` (spent + reserved). */
async function workspaceDay(at: Date | number): Promise<number> {
  const { daily } = periodsOf(at, ZONE);
  const [use] = await harness().platdesk.store.budgets.uses([
    { scope: 'workspace', subject: '*', period: 'daily', key: daily.key, cap: 0 },
  ]);
  return use?.spent ?? 0;
}

async function reconciled(at: Date | number) {
  const { daily, monthly } = periodsOf(at, ZONE);
  return harness().platdesk.store.budgets.reconcile([daily, monthly]);
}

describe.each(ENGINES)('a cap is never passed by an unknown or changed price (%s store)', (engine) => {
  it('ten lookups of an unknown price confirmed at once by an admin hold the ceiling each: the 10-point cap holds', async () => {
    // No PLAT_PRICES: get-shop-id's price (2 at the sandbox) is not known until a charge is seen.
    h = await startPlatdeskHarness({ engine, env: { PLAT_PRICE_CEILING: '5' } });
    expect(await admin('budget workspace daily 10')).toContain('10');
    // Slow answers: the reservations are made before any charge is known.
    h.sandbox.setFaults([{ kind: 'latency', ms: 1500, operations: ['get-shop-id'] }]);
    const asked = await Promise.all(
      Array.from({ length: 10 }, (_, i) => harness().ask('/shop', `ww ceiling-${i}`, { userId: ADMIN })),
    );
    for (const { confirmation } of asked) expect(confirmation.text).toContain('not known yet');
    expect(h.calls()).toBe(0);

    const answers = await Promise.all(
      asked.map(({ confirmation }) => harness().confirm(confirmation, { userId: ADMIN })),
    );
    await h.settle();
    const said = answers.map((a) => textOf(a.answer));
    const charged = said.filter((t) => t.includes('Charged 2 points'));
    const refused = said.filter((t) => REFUSED.test(t));
    expect(charged.length + refused.length, said.join('\n---\n')).toBe(10);
    // While every call holds the ceiling, two fit in 10 points; a Confirm that comes after a
    // charge is known holds 2. Either way the cap holds: at most 5 calls of 2 points.
    expect(charged.length).toBeGreaterThanOrEqual(2);
    expect(charged.length).toBeLessThanOrEqual(5);
    expect(h.calls()).toBe(charged.length);

    const stats = h.sandbox.stats();
    const { rows, points } = await ledger();
    expect(rows).toHaveLength(stats.calls);
    expect(points).toBe(stats.charges.points);
    expect(points).toBeLessThanOrEqual(10);
    expect(await workspaceDay(h.now())).toBe(points);
    expect(await reconciled(h.now())).toEqual([]);
  });

  it('a price that rose past its configured one: the next call holds the charge seen, and the cap is not passed', async () => {
    // PLAT_PRICES says 1 point; the sandbox charges 2.
    h = await startPlatdeskHarness({ engine, env: { PLAT_PRICES: 'get-shop-id=1' } });
    await admin('budget workspace daily 5');
    const first = await harness().lookup('/shop', 'ww rose-1');
    expect(textOf(first.answer)).toContain('Charged 2 points');
    const second = await harness().lookup('/shop', 'ww rose-2');
    expect(textOf(second.answer)).toContain('Charged 2 points');
    expect(await workspaceDay(h.now())).toBe(4);

    // 4 spent; the quote says 1 point, but 2 were taken last time: 2 more would pass 5.
    const before = h.calls();
    const third = await firstAnswer('/shop', 'ww rose-3');
    expect(third).toContain(
      'This lookup (about 1 point, up to 2 held until it is charged) would exceed the workspace daily cap: 4 of 5 points used, by 1 point (¥0.01).',
    );
    expect(third).toMatch(/nothing was (sent or )?charged/i);
    await h.settle(100);
    expect(h.calls()).toBe(before);
    const { rows, points } = await ledger();
    expect(rows).toHaveLength(2);
    expect(points).toBe(4);
    expect(await reconciled(h.now())).toEqual([]);
  });

  it('a charge above what its call held is booked in full; the cap then holds for everything after it', async () => {
    h = await startPlatdeskHarness({ engine, env: { PLAT_PRICE_CEILING: '5' } });
    await admin('budget workspace daily 6');
    // The service takes 8 points for a call that held the ceiling of 5.
    h.sandbox.setFaults([
      { kind: 'code', code: 0, msg: 'shop does not exist', data: { withholding_money: 8 }, count: 1 },
    ]);
    const { confirmation } = await harness().ask('/shop', 'ww above-hold', { userId: ADMIN });
    const { answer } = await harness().confirm(confirmation, { userId: ADMIN });
    expect(textOf(answer)).toContain('Charged 8 points');
    const { points } = await ledger();
    expect(points).toBe(8);
    expect(await workspaceDay(h.now())).toBe(8);
    expect(await reconciled(h.now())).toEqual([]);
    expect(h.logs().some((l) => l.includes('a charge exceeded what its call held'))).toBe(true);

    // The cap is passed by that charge (the service took it); nothing more is sent today.
    const before = h.calls();
    expect(await firstAnswer('/shop', 'ww after-1', ADMIN)).toMatch(REFUSED);
    expect(await firstAnswer('/item', SANDBOX_FIXTURES.items.basic)).toMatch(/the cap is already passed/);
    await h.settle(100);
    expect(h.calls()).toBe(before);
  });

  it('a call holds the largest charge seen and gives back what its charge did not use', async () => {
    h = await startPlatdeskHarness({ engine, env: { PLAT_PRICE_CEILING: '10' } });
    await admin('budget workspace daily 20');
    h.sandbox.setFaults([
      { kind: 'code', code: 0, msg: 'shop does not exist', data: { withholding_money: 8 }, count: 1 },
    ]);
    const { confirmation } = await harness().ask('/shop', 'ww largest-1', { userId: ADMIN });
    expect(textOf((await harness().confirm(confirmation, { userId: ADMIN })).answer)).toContain(
      'Charged 8 points',
    );
    // Last charge 8, so the quote says 8; the sandbox now takes its usual 2.
    const second = await harness().lookup('/shop', 'ww largest-2');
    expect(textOf(second.answer)).toContain('Charged 2 points');
    // 8 held, 2 paid, 6 given back: nothing is left reserved.
    expect(await workspaceDay(h.now())).toBe(10);
    expect(await reconciled(h.now())).toEqual([]);
    // The largest charge seen (8) is still what a call holds: 10 + 8 > 17, though 2 would fit.
    await admin('budget workspace daily 17');
    expect(await firstAnswer('/shop', 'ww largest-3')).toMatch(REFUSED);
  });

  it('a call reserved at 23:59:59.8 is booked in that day, whenever its answer comes: the daily cap holds', async () => {
    // The app's clock stands at 23:59:59.800 in Shanghai on 2025-01-15; the answer comes later.
    const lastMoment = new Date('2025-01-15T15:59:59.800Z');
    h = await startPlatdeskHarness({ engine, now: () => lastMoment, env: { PLAT_PRICES: 'get-shop-id=2' } });
    await admin('budget workspace daily 2');
    h.sandbox.setFaults([{ kind: 'latency', ms: 300, operations: ['get-shop-id'] }]);
    const first = await harness().lookup('/shop', 'ww midnight-1');
    expect(textOf(first.answer)).toContain('Charged 2 points');
    const { rows } = await ledger();
    expect(rows).toHaveLength(1);
    expect(periodsOf(rows[0]?.at ?? 0, ZONE).daily.key).toBe('2025-01-15');
    expect(await workspaceDay(lastMoment)).toBe(2);

    // The day's cap is spent: the next lookup that day is refused before any call.
    const before = h.calls();
    expect(await firstAnswer('/shop', 'ww midnight-2')).toMatch(REFUSED);
    await h.settle(100);
    expect(h.calls()).toBe(before);
    expect(await reconciled(lastMoment)).toEqual([]);
    expect(await reconciled(Date.now())).toEqual([]);
  });
});
