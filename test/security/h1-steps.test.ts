/**
 * Issue 34 H1 / point 4: a Workflow Builder step obeys the rules a person does. On 5ce7905 a
 * step run went approval → pending → call without the access check: who may spend, registered
 * shops only and a shop's channel limits did not apply, an alias was sent to the plat API as an
 * owner id (and charged), and the spend was booked to whoever the workflow's author typed into the
 * "triggered by" input.
 *
 * Now, through the real app on both engines: the spender is the person Slack vouches for
 * (`user_context`, which no builder can type), else the workflow, said so in the answer; the
 * access policy, the registry, aliases and a shop's channels apply; an approval may narrow a step
 * to shops and channels; every refusal completes the step with an error saying why, and 0 calls.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import {
  type PlatdeskHarness,
  SIGNING_SECRET,
  startPlatdeskHarness,
  textOf,
} from '../helpers/platdesk-harness.js';
import type { SlackCall } from '../helpers/slack-api-server.js';
import { postEvent } from '../helpers/slack-http.js';
import { eventCallback, functionExecuted, SLACK, userContext } from '../helpers/slack-payloads.js';
import { ENGINES } from '../helpers/store-engines.js';

const { owners } = SANDBOX_FIXTURES;
const ALLOWED = 'UALLOWED';
const SUPPORT = 'C0SUPPORT';

let executions = 0;

describe.each(ENGINES)('H1: workflow steps under the access rules on %s', (engine) => {
  let h: PlatdeskHarness;
  beforeAll(async () => {
    h = await startPlatdeskHarness({ engine, plat: 'sandbox' });
  });
  afterAll(async () => {
    await h?.close();
  });
  afterEach(async () => {
    for (const text of [
      'access everyone',
      'shops registered-only off',
      'steps revoke orders_due',
      'shop remove tea',
    ])
      await admin(text);
  });

  async function admin(text: string): Promise<string> {
    const sent = await h.command('/platdesk', text, { userId: SLACK.adminId });
    return textOf(await h.nextResponse(sent.responseUrlId));
  }

  /** One run of orders_due: its completion, the calls it made, its ledger rows. */
  async function run(inputs: Record<string, unknown>, redelivery?: string) {
    const executionId = redelivery ?? `FxH1${engine}${String(++executions).padStart(4, '0')}`;
    const before = h.calls();
    const sent = await postEvent(
      h.eventsUrl,
      SIGNING_SECRET,
      eventCallback(
        functionExecuted({ callbackId: 'orders_due', inputs: { hours_ahead: 24, ...inputs }, executionId }),
        {
          eventId: `Ev${executionId}`,
        },
      ),
    );
    expect(sent.status).toBe(200);
    const mine = (c: SlackCall) => c.body.function_execution_id === executionId;
    const call = await Promise.race([
      h.fake.waitFor('functions.completeSuccess', mine, 8000),
      h.fake.waitFor('functions.completeError', mine, 8000),
    ]);
    await h.settle(50);
    return {
      executionId,
      call,
      error: String(call.body.error ?? ''),
      calls: h.calls() - before,
      rows: await h.platdesk.store.ledger.byPending(`step:${executionId}`),
    };
  }

  it('who may spend: the person Slack vouches for, checked like a person; none: the workflow, only where everyone may spend; a typed "triggered by" counts for nothing', async () => {
    await admin('steps approve orders_due daily 10000');
    await admin(`access only <@${ALLOWED}>`);

    const stranger = await run({ shop: owners.small, ...userContext(SLACK.userId) });
    expect(stranger.call.method).toBe('functions.completeError');
    expect(stranger.error).toContain(
      `<@${SLACK.userId}> is not on the list of people who may run charged lookups`,
    );
    expect(stranger.error).toContain('Nothing was charged');
    expect(stranger.calls).toBe(0);

    // The author types the allowed person into the old input: not vouched for, so no person.
    const typed = await run({ shop: owners.small, user: ALLOWED });
    expect(typed.call.method).toBe('functions.completeError');
    expect(typed.error).toContain('no person Slack vouches for');
    expect(typed.calls).toBe(0);

    const allowed = await run({ shop: owners.small, ...userContext(ALLOWED) });
    expect(allowed.call.method).toBe('functions.completeSuccess');
    expect(allowed.calls).toBe(1);
    expect(allowed.rows[0]).toMatchObject({ userId: ALLOWED, source: 'workflow' });
    // Redelivered after the policy changed: answered from the first delivery (charged once), not refused.
    await admin('access only <@UOTHER>');
    const again = await run({ shop: owners.small, ...userContext(ALLOWED) }, allowed.executionId);
    expect(again.call.method).toBe('functions.completeSuccess');
    expect(again.call.body.outputs).toEqual(allowed.call.body.outputs);
    expect(again.calls).toBe(0);
    expect(again.rows).toHaveLength(1);

    // Everyone may spend: a run with no person is booked to the workflow, and says so.
    await admin('access everyone');
    const scheduled = await run({ shop: owners.small, user: 'UVICTIM' });
    expect(scheduled.call.method).toBe('functions.completeSuccess');
    expect(scheduled.rows[0]).toMatchObject({ userId: null, workflowExecutionId: 'Wx0700000WF01' });
    expect(String((scheduled.call.body.outputs as { summary: string }).summary)).toContain(
      'charged to the workflow: no person started it',
    );
  });

  it('registered shops only, aliases and a shop’s channels apply, as to a person', async () => {
    await admin('steps approve orders_due daily 10000');
    await admin('shops registered-only on');
    const unregistered = await run({ shop: owners.busy, ...userContext(SLACK.userId) });
    expect(unregistered.error).toContain('is not a registered shop');
    expect(unregistered.calls).toBe(0);

    // An alias is resolved to its owner id before the call (never sent as one).
    await admin(`shop add tea owner:${owners.small}`);
    const alias = await run({ shop: 'tea', ...userContext(SLACK.userId) });
    expect(alias.call.method).toBe('functions.completeSuccess');
    expect(alias.calls).toBe(1);
    expect(String((alias.call.body.outputs as { summary: string }).summary)).toContain(owners.small);

    // A shop limited to its channels: a step's answer goes wherever its workflow posts, so it
    // needs an approval that names the shop.
    await admin(`shop add tea owner:${owners.small} <#${SUPPORT}|support>`);
    const limited = await run({ shop: 'tea', channel: SUPPORT, ...userContext(SLACK.userId) });
    expect(limited.call.method).toBe('functions.completeError');
    expect(limited.error).toContain('may only be looked up in its own channels');
    expect(limited.calls).toBe(0);
    await admin('steps approve orders_due daily 10000 shops:tea');
    const named = await run({ shop: 'tea', channel: SUPPORT, ...userContext(SLACK.userId) });
    expect(named.call.method).toBe('functions.completeSuccess');
  });

  it('an approval may narrow a step to shops and channels; outside them it fails and spends nothing', async () => {
    expect(
      await admin(
        `steps approve orders_due daily 10000 shops:${owners.small} channels:<#${SUPPORT}|support>`,
      ),
    ).toContain(`shops: ${owners.small}`);
    const otherShop = await run({ shop: owners.busy, channel: SUPPORT, ...userContext(SLACK.userId) });
    expect(otherShop.error).toContain(`approved for ${owners.small} only`);
    expect(otherShop.calls).toBe(0);
    const noChannel = await run({ shop: owners.small, ...userContext(SLACK.userId) });
    expect(noChannel.error).toContain('approved for answers in');
    expect(noChannel.calls).toBe(0);
    // An item or a seller account names no shop: such a narrowing would be meaningless, so it is refused.
    expect(await admin('steps approve lookup_item daily 100 shops:tea')).toContain('shops: only for');
    const inside = await run({ shop: owners.small, channel: SUPPORT, ...userContext(SLACK.userId) });
    expect(inside.call.method).toBe('functions.completeSuccess');
    expect(inside.calls).toBe(1);
  });
});
