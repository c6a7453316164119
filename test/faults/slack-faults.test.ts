/**
 * Slack failing the calls the app makes (issue 7, "Fault suite"): a response_url that is
 * rate-limited (429), expired (404) or failing (500), chat.postEphemeral refused
 * (channel_not_found) or rate-limited, and the admins' direct message refused. The answer still
 * reaches the user privately (ephemeral in the channel, else by direct message), the ledger
 * matches the sandbox's charges, and nothing is left unhandled.
 *
 * The fake records a call before it fails it, so "delivered" is read from the fallback's calls.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ORDERS_FORM } from '../../src/blocks/orders-form.js';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import { confirmationOf, textOf, useHarness } from '../helpers/platdesk-harness.js';
import type { SlackCall } from '../helpers/slack-api-server.js';
import { SLACK } from '../helpers/slack-payloads.js';
import {
  expectClearMessage,
  expectLedgerMatchesSandbox,
  expectNoListenerErrors,
  logLines,
  watchUnhandledRejections,
} from './fault-checks.js';

const { owners } = SANDBOX_FIXTURES;
const unhandled = watchUnhandledRejections();

describe('Slack failing the calls platdesk makes', () => {
  let page = 0;
  const ordersRequest = () => `${owners.busy} page:${++page}`;

  // The plat's default deadline: no test here is about a slow plat, and 300 ms failed under load.
  const h = useHarness();
  afterEach(async () => {
    h().sandbox.setFaults([]);
  });

  /** The next call to `method` after those already received that matches. */
  function nextCall(method: string, predicate: (c: SlackCall) => boolean, timeoutMs = 5000) {
    const seen = h().fake.callsTo(method).length;
    return h().fake.waitFor(
      method,
      (c) => h().fake.callsTo(method).indexOf(c) >= seen && predicate(c),
      timeoutMs,
    );
  }
  const toUser = (c: SlackCall) => c.body.user === SLACK.userId && c.body.channel === SLACK.channelId;
  const dmToUser = (c: SlackCall) => c.body.channel === SLACK.userId;

  it('response_url rate-limited (429) on the answer: the answer comes as an ephemeral message', async () => {
    // A slow call, so the failure can be armed between "Looking up…" and the answer.
    h().sandbox.setFaults([{ kind: 'latency', ms: 150, count: 1 }]);
    const { confirmation } = await h().ask('/orders', ordersRequest());
    const click = await h().click('platdesk.confirm', confirmation.confirm.value);
    expect(click.status).toBe(200);
    expect(textOf(await h().nextResponse(click.responseUrlId))).toContain('Looking up');
    const fallback = nextCall('chat.postEphemeral', toUser);
    h().fake.failNext('response_url', { error: 'ratelimited' });
    const posted = await fallback;
    expect(textOf(posted.body)).toContain('Charged 2 points');
    expect(textOf(posted.body)).toContain('Orders of');
    expect(logLines(h(), 'response_url refused the answer; sending it another way')).toHaveLength(1);
    expect((await expectLedgerMatchesSandbox(h())).count).toBe(1);
  });

  it('response_url expired (404) on "Looking up…": the lookup still runs and answers once', async () => {
    const { confirmation } = await h().ask('/orders', ordersRequest());
    const progress = nextCall('chat.postEphemeral', toUser);
    h().fake.failNext('response_url', { error: 'expired_url', status: 404 });
    const click = await h().click('platdesk.confirm', confirmation.confirm.value);
    expect(textOf((await progress).body)).toContain('Looking up');
    // The first post to this response_url was the refused one; the answer is the second.
    await h().nextResponse(click.responseUrlId);
    const answer = await h().nextResponse(click.responseUrlId);
    expect(textOf(answer)).toContain('Charged 2 points');
    expect((await expectLedgerMatchesSandbox(h())).count).toBe(2);
  });

  it('response_url failing (500) on the confirmation: it comes ephemeral, and Confirm works from it', async () => {
    const before = h().calls();
    const posted = nextCall('chat.postEphemeral', toUser);
    h().fake.failNext('response_url', { error: 'internal_error', status: 500 });
    const sent = await h().command('/orders', ordersRequest());
    expect(sent.status).toBe(200);
    const confirmation = confirmationOf((await posted).body);
    expect(confirmation.text).toContain('Orders (enhanced)');
    expect(h().calls()).toBe(before);
    const { answer } = await h().confirm(confirmation);
    expect(textOf(answer)).toContain('Charged 2 points');
    expect(h().calls()).toBe(before + 1);
    await expectLedgerMatchesSandbox(h());
  });

  it('response_url and chat.postEphemeral (channel_not_found) both refuse an error answer: it comes by DM', async () => {
    h().sandbox.setFaults([{ kind: 'http500', count: 1 }]);
    const { confirmation } = await h().ask('/orders', ordersRequest());
    const click = await h().click('platdesk.confirm', confirmation.confirm.value);
    await h().nextResponse(click.responseUrlId); // Looking up…
    const dm = nextCall('chat.postMessage', dmToUser);
    h().fake.failNext('response_url', { error: 'expired_url', status: 404 });
    h().fake.failNext('chat.postEphemeral', { error: 'channel_not_found' });
    const delivered = await dm;
    expectClearMessage(delivered.body, 'The data service sent an unreadable answer', 'try again later');
    expect(logLines(h(), 'ephemeral answer refused; sending it by direct message')).toHaveLength(1);
    await expectLedgerMatchesSandbox(h());
  });

  it('chat.postEphemeral rate-limited (429) on the orders form: the confirmation arrives after a retry', async () => {
    const before = h().calls();
    const attempts = h().fake.callsTo('chat.postEphemeral').length;
    // Retry-After 0: the WebClient then retries after its own 1 s back-off (main.ts retryConfig).
    h().fake.failNext('chat.postEphemeral', { error: 'ratelimited', retryAfter: 0 });
    const res = await h().submitView({
      callbackId: ORDERS_FORM.callbackId,
      privateMetadata: JSON.stringify({ channelId: SLACK.channelId }),
      values: {
        [ORDERS_FORM.owner.block]: {
          [ORDERS_FORM.owner.action]: { type: 'plain_text_input', value: owners.small },
        },
      },
    });
    expect(res.status).toBe(200);
    const posted = await h().fake.waitFor(
      'chat.postEphemeral',
      () => h().fake.callsTo('chat.postEphemeral').length >= attempts + 2,
    );
    const confirmation = confirmationOf(posted.body);
    expect(confirmation.text).toContain(`for owner ${owners.small}`);
    const { answer } = await h().confirm(confirmation);
    expect(textOf(answer)).toContain('Charged 2 points');
    expect(h().calls()).toBe(before + 1);
    await expectLedgerMatchesSandbox(h());
  });

  it('the orders form in a channel Slack does not know (channel_not_found): the confirmation comes by DM', async () => {
    const dm = nextCall('chat.postMessage', dmToUser);
    h().fake.failNext('chat.postEphemeral', { error: 'channel_not_found' });
    const res = await h().submitView({
      callbackId: ORDERS_FORM.callbackId,
      privateMetadata: JSON.stringify({ channelId: 'C0GONE' }),
      values: {
        [ORDERS_FORM.owner.block]: {
          [ORDERS_FORM.owner.action]: { type: 'plain_text_input', value: owners.busy },
        },
      },
    });
    expect(res.status).toBe(200);
    expect(confirmationOf((await dm).body).text).toContain(`for owner ${owners.busy}`);
    await expectLedgerMatchesSandbox(h());
  });

  it("the admins' DM refused (channel_not_found) on a 401: the user still gets the token remedy", async () => {
    h().sandbox.setFaults([{ kind: 'code', code: 401, count: 1 }]);
    h().fake.failNext('chat.postMessage', { error: 'channel_not_found' });
    const { confirmation } = await h().ask('/orders', ordersRequest());
    const { answer } = await h().confirm(confirmation);
    expectClearMessage(answer, 'The plat access token is not valid', 'an admin must refresh PLAT_TOKEN');
    const refused = h()
      .fake.callsTo('chat.postMessage')
      .filter((c) => c.body.channel === SLACK.adminId);
    expect(refused.at(-1)?.body.text).toContain('code 401');
    expect(logLines(h(), 'admin alert not delivered')).toHaveLength(1);
    await expectLedgerMatchesSandbox(h());
  });

  it('the ledger export refused by Slack (files upload): the admin is told it was not sent', async () => {
    h().fake.failNext('files.getUploadURLExternal', { error: 'not_allowed_token_type' });
    const sent = await h().command('/platdesk', 'export month', { userId: SLACK.adminId });
    expect(sent.status).toBe(200);
    const said = textOf(await h().nextResponse(sent.responseUrlId));
    expect(said).toContain('The ledger export could not be sent to your direct messages');
    expect(said).toContain('try again in a moment');
    expect(logLines(h(), 'ledger export not delivered')).toHaveLength(1);
    await expectLedgerMatchesSandbox(h());
  });

  it('every way refused: the answer is logged as not delivered, the charge is still recorded', async () => {
    const { confirmation } = await h().ask('/orders', ordersRequest());
    const click = await h().click('platdesk.confirm', confirmation.confirm.value);
    await h().nextResponse(click.responseUrlId); // Looking up…
    const dm = nextCall('chat.postMessage', dmToUser);
    h().fake.failNext('response_url', { error: 'expired_url', status: 404 });
    h().fake.failNext('chat.postEphemeral', { error: 'channel_not_found' });
    h().fake.failNext('chat.postMessage', { error: 'user_not_found' });
    expect(textOf((await dm).body)).toContain('Charged 2 points');
    await h().settle(50);
    await expect.poll(() => logLines(h(), 'answer not delivered')).toHaveLength(1);
    await expectLedgerMatchesSandbox(h());
  });

  it('left nothing unhandled, nothing to Bolt, and every message fits Slack', async () => {
    expectNoListenerErrors(h());
    expect(unhandled.stop()).toEqual([]);
    h().assertAllWithinLimits();
    await expectLedgerMatchesSandbox(h());
  });
});
