/**
 * A confirmed lookup charged but whose holder died (issue 20 pt 3), through the real Bolt app on
 * both store engines: another process (a host that went silent) claimed it, passed its fence
 * (sent its call), had the charge written to the ledger and the answer kept, and died before it
 * marked the lookup done. Once its lease and the longest call have passed, this process marks it
 * interrupted and tells the user what was charged, with the kept answer; a click on its Confirm
 * says the same and never offers to pay again; nothing is called.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { longestCallMs } from '../../src/plat/client.js';
import { DEFAULT_TIMEOUTS } from '../../src/plat/http.js';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import { ledgerEntry } from '../helpers/ledger-entry.js';
import {
  confirmationOf,
  type PlatdeskHarness,
  startPlatdeskHarness,
  textOf,
} from '../helpers/platdesk-harness.js';
import { SLACK } from '../helpers/slack-payloads.js';
import { ENGINES } from '../helpers/store-engines.js';

const link = SANDBOX_FIXTURES.links.firstMarketplace;
const GONE = { instanceId: 'a-silent-host/4242/gone', leaseMs: 30_000 };

describe.each(ENGINES)('a charged lookup whose holder died (%s)', (engine) => {
  let h: PlatdeskHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('is told with its charge and its answer, and never offered again', async () => {
    h = await startPlatdeskHarness({ engine, claims: { leaseMs: 30_000, renewEveryMs: 50 } });
    const harness = h;
    const store = h.platdesk.store;
    // The user asks; the confirmation's lookup is then claimed elsewhere.
    const { confirmation } = await harness.ask('/shop', link);
    const pendingId = confirmation.confirm.value ?? '';
    // The same question answered for a colleague meanwhile: the answer is kept (one call).
    const colleague = await harness.lookup('/shop', link, { userId: 'UCOLLEAGUE', settle: true });
    expect(colleague.calls).toBe(1);

    const claim = await store.pending.claim(pendingId, SLACK.userId, GONE);
    if (!claim.ok) throw new Error(claim.reason);
    expect(await store.pending.fence(pendingId, GONE, claim.pending.claimEpoch)).toBe(true);
    await store.ledger.record(
      ledgerEntry({
        chargeId: `${pendingId}:0:0`,
        at: harness.now(),
        userId: SLACK.userId,
        channelId: SLACK.channelId,
        pendingId,
      }),
    );

    // Its lease has run out, but a cut-off holder may still be in its last call: left alone.
    harness.advance(GONE.leaseMs + 1000);
    await new Promise((r) => setTimeout(r, 300));
    expect((await store.pending.get(pendingId))?.state).toBe('running');
    // Past the longest call as well: interrupted by this process, and its user told the truth.
    harness.advance(longestCallMs(DEFAULT_TIMEOUTS.deadlineMs));
    const told = await harness.fake.waitFor(
      'chat.postMessage',
      (c) => c.body.channel === SLACK.userId && textOf(c.body).includes('interrupted'),
      5000,
    );
    const said = textOf(told.body);
    expect(said).toContain('after its call, and it was not run again (nor will it be)');
    expect(said).toContain('Charged 10 points');
    expect(said).toContain('Its answer, as kept at the time, follows');
    const answer = await harness.fake.waitFor(
      'chat.postMessage',
      (c) => c.body.channel === SLACK.userId && c !== told,
      5000,
    );
    // The kept answer, stating this lookup's charge from the ledger.
    expect(textOf(answer.body)).toContain('Shop id:');
    expect(textOf(answer.body)).toContain('Charged 10 points');
    expect((await store.pending.get(pendingId))?.state).toBe('interrupted');

    // Confirm clicked (and Slack's retry of it): the same truth and the answer; no offer to pay.
    for (const attempt of ['click', 'retry']) {
      const sent = await harness.click('platdesk.confirm', pendingId);
      expect(sent.status, attempt).toBe(200);
      const notice = await harness.nextResponse(sent.responseUrlId);
      expect(notice.replace_original, attempt).toBe(true);
      expect(textOf(notice), attempt).toContain('Charged 10 points');
      const kept = await harness.nextResponse(sent.responseUrlId);
      expect(kept.replace_original, attempt).toBe(false);
      await harness.settle(100);
      const replies = harness.responses(sent.responseUrlId);
      expect(replies, attempt).toHaveLength(2);
      for (const reply of replies) expect(() => confirmationOf(reply), attempt).toThrow();
    }
    expect(harness.calls()).toBe(1);
    // Told once by direct message.
    const notices = harness.fake
      .callsTo('chat.postMessage')
      .filter((c) => c.body.channel === SLACK.userId && textOf(c.body).includes('interrupted'));
    expect(notices).toHaveLength(1);
  }, 60_000);
});
