/**
 * The Confirm button is single-use (DESIGN rule 2): double clicks, another user's click, Cancel
 * and expiry never call twice or at all; every charge is in the ledger and stated in the answer;
 * a user's own threshold skips the confirmation only for a known price under it.
 */

import { beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import {
  confirmationOf,
  looksLikeStackTrace,
  type SlackMessage,
  textOf,
  useHarness,
} from '../helpers/platdesk-harness.js';
import { SLACK } from '../helpers/slack-payloads.js';
import { ENGINES } from '../helpers/store-engines.js';

const { owners, links, wwids } = SANDBOX_FIXTURES;
const MINUTE = 60_000;
const allTime = () => ({ from: new Date(0), to: new Date(Date.now() + 365 * 24 * 3_600_000) });

describe.each(ENGINES)('confirmation (%s store)', (engine) => {
  /** A different orders page each time, so no answer can come from a cache or a shared call. */
  let page = 0;
  const ordersRequest = () => `${owners.busy} page:${++page}`;

  const h = useHarness({ engine });

  it('two concurrent clicks on Confirm make exactly one call; the second says nothing while the first runs', async () => {
    const before = h().calls();
    const { confirmation } = await h().ask('/orders', ordersRequest());
    // The call takes 800 ms, so the second click is handled while the first one's lookup runs.
    h().sandbox.setFaults([{ kind: 'latency', ms: 800, operations: ['paging-orders'] }]);
    try {
      const [a, b] = await Promise.all([
        h().click('platdesk.confirm', confirmation.confirm.value),
        h().click('platdesk.confirm', confirmation.confirm.value),
      ]);
      expect(a.status).toBe(200);
      expect(b.status).toBe(200);
      const ids = [a.responseUrlId, b.responseUrlId];
      const first = await h().fake.waitFor('response_url', (c) => ids.includes(c.id ?? ''), 5000);
      expect(textOf(first.body)).toContain('Looking up');
      const winner = first.id === a.responseUrlId ? a : b;
      const loser = winner === a ? b : a;
      expect(textOf(await h().nextResponse(winner.responseUrlId))).toContain('Looking up');
      const answer = await h().nextResponse(winner.responseUrlId);
      expect(textOf(answer)).toContain('page');
      await h().settle();
      // Neither "already used" nor anything else for the click that came while the lookup ran.
      expect(h().responses(loser.responseUrlId)).toEqual([]);
      expect(h().calls()).toBe(before + 1);
    } finally {
      h().sandbox.setFaults([]);
    }
    // A click after it finished is a genuine one on a used confirmation: it is told so.
    const later = await h().click('platdesk.confirm', confirmation.confirm.value);
    expect(textOf(await h().nextResponse(later.responseUrlId))).toContain('already used');
    expect(h().calls()).toBe(before + 1);
  });

  it("another user's Confirm makes no call and leaves the owner's confirmation in place", async () => {
    const before = h().calls();
    const { confirmation } = await h().ask('/orders', ordersRequest());
    const click = await h().click('platdesk.confirm', confirmation.confirm.value, {
      userId: SLACK.secondUserId,
    });
    const refused = await h().nextResponse(click.responseUrlId);
    expect(textOf(refused)).toContain('belongs to someone else');
    expect(refused.replace_original).toBe(false);
    await h().settle(100);
    expect(h().calls()).toBe(before);

    const { answer } = await h().confirm(confirmation);
    expect(textOf(answer)).toContain('Charged 2 points');
    await h().settle();
    expect(h().calls()).toBe(before + 1);
  });

  it('Cancel, then Confirm, makes no call', async () => {
    const before = h().calls();
    const { confirmation } = await h().ask('/orders', ordersRequest());
    const cancel = await h().click('platdesk.cancel', confirmation.cancel.value);
    const cancelled = await h().nextResponse(cancel.responseUrlId);
    expect(textOf(cancelled)).toContain('Cancelled. Nothing was charged.');
    expect(cancelled.replace_original).toBe(true);
    const confirm = await h().click('platdesk.confirm', confirmation.confirm.value);
    expect(textOf(await h().nextResponse(confirm.responseUrlId))).toContain('Nothing was charged');
    await h().settle(100);
    expect(h().calls()).toBe(before);
  });

  it('Confirm after 11 minutes says the confirmation expired and makes no call', async () => {
    const before = h().calls();
    const { confirmation } = await h().ask('/orders', ordersRequest());
    expect(confirmation.text).toContain('Expires in 10 minutes');
    h().advance(11 * MINUTE);
    const click = await h().click('platdesk.confirm', confirmation.confirm.value);
    const expired = await h().nextResponse(click.responseUrlId);
    expect(textOf(expired)).toContain('expired');
    expect(textOf(expired)).toContain('nothing was charged');
    await h().settle(100);
    expect(h().calls()).toBe(before);
  });

  it('Confirm after 9 minutes still runs', async () => {
    const before = h().calls();
    const { confirmation } = await h().ask('/orders', ordersRequest());
    h().advance(9 * MINUTE);
    const { answer } = await h().confirm(confirmation);
    expect(textOf(answer)).toContain('Orders of');
    expect(h().calls()).toBe(before + 1);
  });

  it('a Confirm that was already used, or a forged one, makes no call', async () => {
    const { confirmation } = await h().ask('/orders', ordersRequest());
    await h().confirm(confirmation);
    await h().settle();
    const before = h().calls();
    const again = await h().click('platdesk.confirm', confirmation.confirm.value);
    expect(textOf(await h().nextResponse(again.responseUrlId))).toContain('already used');
    const forged = await h().click('platdesk.confirm', '00000000-0000-4000-8000-000000000000');
    expect(textOf(await h().nextResponse(forged.responseUrlId))).toContain('expired');
    const empty = await h().click('platdesk.confirm', undefined);
    expect(textOf(await h().nextResponse(empty.responseUrlId))).toContain('expired');
    await h().settle(100);
    expect(h().calls()).toBe(before);
  });

  it('a second click on a used Confirm never replaces the delivered answer', async () => {
    const { confirmation } = await h().ask('/orders', ordersRequest());
    const { sent, answer } = await h().confirm(confirmation);
    expect(answer.replace_original).toBe(true);
    await h().settle();
    // The same button clicked again on the message that now holds the answer (same response_url).
    await h().click('platdesk.confirm', confirmation.confirm.value, { responseUrlId: sent.responseUrlId });
    const refusal = await h().nextResponse(sent.responseUrlId);
    expect(textOf(refusal)).toContain('already used');
    expect(refusal.response_type).toBe('ephemeral');
    expect(refusal.replace_original).toBe(false);
    // The last message that replaced the original is still the answer.
    const replacing = h()
      .responses(sent.responseUrlId)
      .filter((m) => m.replace_original === true);
    expect(replacing.at(-1)).toEqual(answer);
  });

  it('writes a ledger row per charge and states the actual charge in the answer', async () => {
    const sandboxBefore = h().sandbox.stats().charges.byOperation['get-shop-info'];
    const { confirmation } = await h().ask('/shop', links.firstMarketplace);
    const { answer } = await h().confirm(confirmation);
    // get-shop-info basic costs 10 points in the sandbox: 1 point = ¥0.01.
    expect(textOf(answer)).toContain('Charged 10 points (¥0.10)');
    const sandboxAfter = h().sandbox.stats().charges.byOperation['get-shop-info'];
    expect(sandboxAfter.count - sandboxBefore.count).toBe(1);

    const rows = (await h().platdesk.store.ledger.list(allTime())).filter(
      (r) => r.operation === 'get-shop-info',
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      userId: SLACK.userId,
      channelId: SLACK.channelId,
      operation: 'get-shop-info',
      edition: 1,
      points: sandboxAfter.points - sandboxBefore.points,
      quotaCalls: 0,
      code: 0,
      outcome: 'ok',
      pendingId: confirmation.confirm.value,
      source: 'interactive',
    });

    // Every call that reached the sandbox is a ledger row, with the points it withheld.
    const all = await h().platdesk.store.ledger.list(allTime());
    const stats = h().sandbox.stats();
    expect(all.length).toBe(stats.calls);
    expect(all.reduce((sum, r) => sum + r.points, 0)).toBe(stats.charges.points);
    expect(all.every((r) => r.userId === SLACK.userId && r.channelId === SLACK.channelId)).toBe(true);
  });

  it('every message the fake received fits Slack limits', async () => {
    h().assertAllWithinLimits();
    for (const m of h().messages()) expect(looksLikeStackTrace(textOf(m))).toBe(false);
  });
});

describe("the user's own confirmation threshold", () => {
  // A configured price for get-shop-id (2 points); get-shop-info has none and none seen yet.
  const h = useHarness({ env: { PLAT_PRICES: 'get-shop-id=2' } });
  beforeAll(async () => {
    await h().platdesk.store.prefs.setConfirmThreshold(SLACK.userId, 50);
  });

  it('a known price under the threshold runs at once: no confirmation, one call', async () => {
    const sent = await h().command('/shop', `ww ${wwids.known}`);
    expect(sent.ms).toBeLessThan(1000);
    const progress = await h().nextResponse(sent.responseUrlId);
    expect(textOf(progress)).toContain('Looking up');
    const answer = await h().nextResponse(sent.responseUrlId);
    expect(() => confirmationOf(answer)).toThrow();
    expect(textOf(answer)).toContain('Charged 2 points (¥0.02)');
    await h().settle();
    expect(h().calls()).toBe(1);
  });

  it('an unknown price still asks', async () => {
    const { confirmation } = await h().ask('/shop', links.brandedStore);
    expect(confirmation.text).toContain('price not known yet');
    expect(h().calls()).toBe(1);
  });

  it('a price not under the threshold still asks', async () => {
    await h().platdesk.store.prefs.setConfirmThreshold(SLACK.userId, 2);
    const { confirmation } = await h().ask('/shop', `ww ${wwids.unknown}`);
    expect(confirmation.confirm.label).toBe('Confirm (2 points)');
    expect(h().calls()).toBe(1);
  });

  it("another user's threshold is their own", async () => {
    await h().platdesk.store.prefs.setConfirmThreshold(SLACK.userId, 50);
    const { message } = await h().ask('/shop', `ww ${wwids.knownChinese}`, { userId: SLACK.secondUserId });
    expect(confirmationOf(message as SlackMessage).text).toContain('Shop id');
    expect(h().calls()).toBe(1);
  });
});
