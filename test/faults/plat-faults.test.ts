/**
 * The plat API failing under a confirmed lookup, through the sandbox's faults (issue 7, "Fault
 * suite"): timeouts, HTTP 500s, malformed JSON, 101/202 storms, a 401 and an empty balance in the
 * middle of a batched lookup. Every case ends with the failure's title and remedy shown to the
 * user, a ledger with one row per call that arrived at the sandbox (charged or not, answered or
 * not: code -1 when the answer could not be read) and the points it withheld, and nothing unhandled.
 *
 * Fault `rate`s draw from the sandbox's PRNG (seed 1), restarted by every setFaults: its first
 * draws are 0.627, 0.003, 0.527, 0.981, 0.968, 0.281, 0.613, 0.721, 0.426, 0.995, 0.455, 0.489,
 * 0.139, so with rate 0.5 the 2nd, 6th, 9th, 11th, 12th and 13th calls are hit, whichever batch
 * they belong to.
 */
import { describe, expect, it } from 'vitest';
import { NO_ANSWER_CODE } from '../../src/plat/codes.js';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import { textOf, useHarness } from '../helpers/platdesk-harness.js';
import { SLACK } from '../helpers/slack-payloads.js';
import {
  expectClearMessage,
  expectLedgerMatchesSandbox,
  expectNoListenerErrors,
  ledgerRowsAfter,
  watchUnhandledRejections,
  waybillNumbers,
} from './fault-checks.js';

const { owners, shops, links, items } = SANDBOX_FIXTURES;
const unhandled = watchUnhandledRejections();

describe('plat API faults under a confirmed lookup', () => {
  /** Rows in a comparable order when batches ran concurrently. */
  const byCodeThenPoints = <R extends { code: number; points: number }>(rows: R[]) =>
    [...rows].sort((a, b) => a.code - b.code || a.points - b.points);

  /** Each case asks something new: a successful answer is cached, and a cached one calls nothing. */
  let page = 0;
  let waybillSeq = 0;
  const ordersRequest = () => `${owners.busy} page:${++page}`;
  /** 45 waybill numbers: three batches of 20, 20 and 5 (MAX_WAYBILLS_PER_CALL). */
  const threeBatches = () => {
    waybillSeq += 100;
    return waybillNumbers(45, waybillSeq);
  };

  const h = useHarness({
    resetSandboxAfterEach: true,
    // A short deadline so a hung call fails in milliseconds; fast retries for the storms.
    platTimeouts: { deadlineMs: 300 },
    platRetry: { baseDelayMs: 1, maxDelayMs: 2 },
  });

  const failedBatchLines = (said: string) =>
    said.split('\n').filter((l) => /waybills? \(.*\) failed:/.test(l));

  it('a call that hangs ends at the deadline: timeout title and remedy, one unanswered row (code -1, 0 points)', async () => {
    h().sandbox.setFaults([{ kind: 'hang', count: 1 }]);
    const { answer, calls } = await h().lookup('/orders', ordersRequest());
    const said = expectClearMessage(
      answer,
      'The data service did not answer in time',
      'try again in a moment',
    );
    expect(said).toContain('the service may still have counted the call');
    expect(calls).toBe(1);
    expect(await expectLedgerMatchesSandbox(h())).toEqual({ count: 1, points: 0 });
    expect(await ledgerRowsAfter(h(), 0)).toEqual([
      { operation: 'paging-orders', code: NO_ANSWER_CODE, points: 0, quotaCalls: 0 },
    ]);
    expect(h().sandbox.stats().charges.count).toBe(0);
  });

  it('one batch of three hangs: the other two are answered and charged, the third is named and an unanswered row', async () => {
    h().sandbox.setFaults([{ kind: 'hang', rate: 0.5, count: 1 }]);
    const ledgerBefore = await expectLedgerMatchesSandbox(h());
    const { answer, calls } = await h().lookup(
      '/waybill',
      `${threeBatches().join(' ')} shop:${shops.clothing}`,
    );
    const said = expectClearMessage(
      answer,
      'failed: *The data service did not answer in time.*',
      'try again in a moment',
    );
    expect(failedBatchLines(said)).toHaveLength(1);
    expect(said).toContain('Charged 10 points');
    expect(calls).toBe(3);
    expect(await expectLedgerMatchesSandbox(h())).toEqual({
      count: ledgerBefore.count + 3,
      points: ledgerBefore.points + 10,
    });
    expect(byCodeThenPoints(await ledgerRowsAfter(h(), ledgerBefore.count))).toEqual([
      { operation: 'platdybw', code: NO_ANSWER_CODE, points: 0, quotaCalls: 0 },
      { operation: 'platdybw', code: 0, points: 5, quotaCalls: 0 },
      { operation: 'platdybw', code: 0, points: 5, quotaCalls: 0 },
    ]);
  });

  it('an HTML error page (HTTP 500) on an item lookup: unreadable answer, the quota untouched', async () => {
    h().sandbox.setFaults([{ kind: 'http500', count: 1 }]);
    const quotaBefore = h().sandbox.stats().itemQuota;
    const ledgerBefore = await expectLedgerMatchesSandbox(h());
    const { answer, calls } = await h().lookup('/item', items.withVideo);
    const said = expectClearMessage(answer, 'The data service sent an unreadable answer', 'try again later');
    // Told as what it is: a possible quota call, counted, not a known cost.
    expect(said).toContain('the item quota may count this call. It is counted as 1 call of the item quota.');
    expect(said).not.toContain('It cost');
    expect(calls).toBe(1);
    expect(h().sandbox.stats().itemQuota).toBe(quotaBefore);
    await expectLedgerMatchesSandbox(h());
    // The ledger cannot know whether the call took one of the quota, so it counts one (it
    // overstates the quota rather than lose a call).
    expect(await ledgerRowsAfter(h(), ledgerBefore.count)).toEqual([
      { operation: 'platiteminfo', code: NO_ANSWER_CODE, points: 0, quotaCalls: 1 },
    ]);
  });

  it('a truncated JSON body: unreadable answer, not a crash', async () => {
    h().sandbox.setFaults([{ kind: 'malformed', count: 1 }]);
    const ledgerBefore = await expectLedgerMatchesSandbox(h());
    const { answer, calls } = await h().lookup('/orders', ordersRequest());
    expectClearMessage(answer, 'The data service sent an unreadable answer', 'try again later');
    expect(calls).toBe(1);
    await expectLedgerMatchesSandbox(h());
    expect(await ledgerRowsAfter(h(), ledgerBefore.count)).toEqual([
      { operation: 'paging-orders', code: NO_ANSWER_CODE, points: 0, quotaCalls: 0 },
    ]);
  });

  it('a 101 storm (rate 1): two retries, then the timeout title and remedy', async () => {
    h().sandbox.setFaults([{ kind: 'code', code: 101, rate: 1 }]);
    const ledgerBefore = await expectLedgerMatchesSandbox(h());
    const { answer, calls } = await h().lookup('/orders', ordersRequest());
    const said = expectClearMessage(answer, 'The data service timed out', 'try again in a moment');
    expect(said).toContain('code 101');
    expect(calls).toBe(3);
    await expectLedgerMatchesSandbox(h());
    const attempt = { operation: 'paging-orders', code: 101, points: 0, quotaCalls: 0 };
    expect(await ledgerRowsAfter(h(), ledgerBefore.count)).toEqual([attempt, attempt, attempt]);
  });

  it('a 202 storm (rate 1): two retries, then the busy title and remedy', async () => {
    h().sandbox.setFaults([{ kind: 'code', code: 202, rate: 1 }]);
    const ledgerBefore = await expectLedgerMatchesSandbox(h());
    const { answer, calls } = await h().lookup('/shop', links.mobile);
    const said = expectClearMessage(answer, 'The data service is busy', 'try again later');
    expect(said).toContain('code 202');
    expect(calls).toBe(3);
    await expectLedgerMatchesSandbox(h());
    const attempt = { operation: 'get-shop-info', code: 202, points: 0, quotaCalls: 0 };
    expect(await ledgerRowsAfter(h(), ledgerBefore.count)).toEqual([attempt, attempt, attempt]);
  });

  it('a 101 storm at rate 0.5 over eight lookups: retries recover seven, the eighth gives up', async () => {
    h().sandbox.setFaults([{ kind: 'code', code: 101, rate: 0.5 }]);
    const callsPerLookup: number[] = [];
    const answers: string[] = [];
    const ledgerBefore = await expectLedgerMatchesSandbox(h());
    for (let i = 0; i < 8; i++) {
      const { answer, calls } = await h().lookup('/orders', ordersRequest());
      callsPerLookup.push(calls);
      answers.push(textOf(answer));
    }
    // Draws < 0.5 at calls 2, 6, 9, 11, 12, 13 (see the file comment).
    expect(callsPerLookup).toEqual([1, 2, 1, 1, 2, 1, 2, 3]);
    for (const said of answers.slice(0, 7)) expect(said).toContain('Charged 2 points');
    expectClearMessage({ text: answers[7] ?? '' }, 'The data service timed out', 'try again in a moment');
    // 13 calls arrived: 7 answered (2 points each) and 6 refused with 101 (0 points), each a row.
    expect(await expectLedgerMatchesSandbox(h())).toEqual({
      count: ledgerBefore.count + 13,
      points: ledgerBefore.points + 14,
    });
    const ok = { operation: 'paging-orders', code: 0, points: 2, quotaCalls: 0 };
    const refused = { operation: 'paging-orders', code: 101, points: 0, quotaCalls: 0 };
    expect(await ledgerRowsAfter(h(), ledgerBefore.count)).toEqual([
      ok,
      refused,
      ok,
      ok,
      ok,
      refused,
      ok,
      ok,
      refused,
      ok,
      refused,
      refused,
      refused,
    ]);
  });

  it('a 202 storm at rate 0.5 on three batches: the hit batch is retried, all three answered', async () => {
    h().sandbox.setFaults([{ kind: 'code', code: 202, rate: 0.5 }]);
    const ledgerBefore = await expectLedgerMatchesSandbox(h());
    const { answer, calls } = await h().lookup(
      '/waybill',
      `${threeBatches().join(' ')} owner:${owners.busy}`,
    );
    const said = textOf(answer);
    expect(said).toContain('Waybill information');
    expect(failedBatchLines(said)).toEqual([]);
    // platdzmd basic: 4 points a call; calls 1–3 are the batches, the 2nd is hit, call 4 its retry.
    expect(said).toContain('Charged 12 points');
    expect(calls).toBe(4);
    expect(await expectLedgerMatchesSandbox(h())).toEqual({
      count: ledgerBefore.count + 4,
      points: ledgerBefore.points + 12,
    });
    const ok = { operation: 'platdzmd', code: 0, points: 4, quotaCalls: 0 };
    expect(byCodeThenPoints(await ledgerRowsAfter(h(), ledgerBefore.count))).toEqual([
      ok,
      ok,
      ok,
      { operation: 'platdzmd', code: 202, points: 0, quotaCalls: 0 },
    ]);
  });

  it('a 401 on the 2nd of three batches: two answered, the third names the token remedy, admins told', async () => {
    h().sandbox.setFaults([{ kind: 'code', code: 401, rate: 0.5, count: 1 }]);
    const ledgerBefore = await expectLedgerMatchesSandbox(h());
    const { answer, calls } = await h().lookup(
      '/waybill',
      `${threeBatches().join(' ')} shop:${shops.clothing}`,
    );
    const said = expectClearMessage(
      answer,
      'failed: *The plat access token is not valid.*',
      'an admin must refresh PLAT_TOKEN',
    );
    expect(failedBatchLines(said)).toHaveLength(1);
    expect(said).toContain('Charged 10 points');
    expect(calls).toBe(3);
    expect(h().sandbox.stats().unauthorized).toBe(0); // an injected 401, not a refused token
    expect(await expectLedgerMatchesSandbox(h())).toEqual({
      count: ledgerBefore.count + 3,
      points: ledgerBefore.points + 10,
    });
    const ok = { operation: 'platdybw', code: 0, points: 5, quotaCalls: 0 };
    expect(byCodeThenPoints(await ledgerRowsAfter(h(), ledgerBefore.count))).toEqual([
      ok,
      ok,
      { operation: 'platdybw', code: 401, points: 0, quotaCalls: 0 },
    ]);
    const dm = await h().fake.waitFor('chat.postMessage', (c) => String(c.body.text).includes('code 401'));
    expect(dm.body.channel).toBe(SLACK.adminId);
  });

  it('the balance runs out after the 1st of three batches: the other two say so, admins told', async () => {
    // platdybw basic costs 5 points: enough for exactly one batch.
    h().sandbox.setBalance(5);
    const ledgerBefore = await expectLedgerMatchesSandbox(h());
    const { answer, calls } = await h().lookup(
      '/waybill',
      `${threeBatches().join(' ')} shop:${shops.clothing}`,
    );
    const said = expectClearMessage(
      answer,
      'failed: *The plat account is out of balance.*',
      'an admin must recharge it on the official site',
    );
    expect(failedBatchLines(said)).toHaveLength(2);
    expect(said).toContain('Charged 5 points');
    expect(calls).toBe(3);
    expect(h().sandbox.stats().balancePoints).toBe(0);
    expect(await expectLedgerMatchesSandbox(h())).toEqual({
      count: ledgerBefore.count + 3,
      points: ledgerBefore.points + 5,
    });
    const refused = { operation: 'platdybw', code: 204, points: 0, quotaCalls: 0 };
    expect(byCodeThenPoints(await ledgerRowsAfter(h(), ledgerBefore.count))).toEqual([
      { operation: 'platdybw', code: 0, points: 5, quotaCalls: 0 },
      refused,
      refused,
    ]);
    const dm = await h().fake.waitFor('chat.postMessage', (c) => String(c.body.text).includes('code 204'));
    expect(dm.body.channel).toBe(SLACK.adminId);
  });

  it('an empty balance on a single call: the quota title and remedy, one row of 0 points (code 204)', async () => {
    h().sandbox.setBalance(0);
    const ledgerBefore = await expectLedgerMatchesSandbox(h());
    const chargedBefore = h().sandbox.stats().charges.count;
    const { answer, calls } = await h().lookup('/orders', ordersRequest());
    expectClearMessage(answer, 'The plat account is out of balance', 'an admin must recharge it');
    expect(calls).toBe(1);
    expect(await expectLedgerMatchesSandbox(h())).toEqual({
      count: ledgerBefore.count + 1,
      points: ledgerBefore.points,
    });
    expect(await ledgerRowsAfter(h(), ledgerBefore.count)).toEqual([
      { operation: 'paging-orders', code: 204, points: 0, quotaCalls: 0 },
    ]);
    expect(h().sandbox.stats().charges.count).toBe(chargedBefore);
  });

  it('101 charged on each of three attempts: the answer states all 9 points and the 3 attempts', async () => {
    h().sandbox.setFaults([{ kind: 'code', code: 101, count: 3, data: { withholding_money: 3 } }]);
    const ledgerBefore = await expectLedgerMatchesSandbox(h());
    const { answer, calls } = await h().lookup('/orders', ordersRequest());
    const said = expectClearMessage(answer, 'The data service timed out', 'try again in a moment');
    expect(said).toContain('Charged 9 points (¥0.09) over 3 attempts.');
    expect(answer.text).toContain('Charged 9 points (¥0.09) over 3 attempts.');
    expect(calls).toBe(3);
    expect(await expectLedgerMatchesSandbox(h())).toEqual({
      count: ledgerBefore.count + 3,
      points: ledgerBefore.points + 9,
    });
  });

  it('202 charged, then success: the answer states both charges and the 2 attempts', async () => {
    h().sandbox.setFaults([{ kind: 'code', code: 202, count: 1, data: { withholding_money: 3 } }]);
    const ledgerBefore = await expectLedgerMatchesSandbox(h());
    const { answer, calls } = await h().lookup('/shop', links.firstMarketplace);
    // 3 points for the 202, 10 for the answer (the sandbox's get-shop-info basic price).
    expect(textOf(answer)).toContain('Charged 13 points (¥0.13) over 2 attempts');
    expect(calls).toBe(2);
    expect(await expectLedgerMatchesSandbox(h())).toEqual({
      count: ledgerBefore.count + 2,
      points: ledgerBefore.points + 13,
    });
  });

  it('an item lookup retried after 101: both attempts took a call of the quota, and the answer says so', async () => {
    h().sandbox.setFaults([{ kind: 'code', code: 101, count: 1, operations: ['platiteminfo'] }]);
    const ledgerBefore = await expectLedgerMatchesSandbox(h());
    const { answer, calls } = await h().lookup('/item', items.longTitle);
    expect(textOf(answer)).toContain('Used 2 calls of the item quota over 2 attempts');
    expect(calls).toBe(2);
    expect(await expectLedgerMatchesSandbox(h())).toEqual({
      count: ledgerBefore.count + 2,
      points: ledgerBefore.points + 0,
    });
  });

  it('left nothing unhandled, nothing to Bolt, and every message fits Slack', async () => {
    await h().settle(50);
    expectNoListenerErrors(h());
    expect(unhandled.stop()).toEqual([]);
    h().assertAllWithinLimits();
    await expectLedgerMatchesSandbox(h());
  });
});
