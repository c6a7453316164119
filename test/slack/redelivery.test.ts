/**
 * Clicks Slack delivers twice (issue 20 point 6): same user, action, value and action_ts. The
 * record of a click lives in the store, so a redelivery landing on another replica is recognised
 * too; through the real Bolt app over HTTP, a redelivery with `x-slack-retry-num` (Slack's retry
 * header) is dropped without a word, and a genuine later click still hears "already used". The
 * Socket Mode redelivery is in socket-mode.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import { clickKey, firstDelivery } from '../../src/slack/clicks/redelivery.js';
import type { Store } from '../../src/store/store.js';
import { SIGNING_SECRET, textOf, useHarness } from '../helpers/platdesk-harness.js';
import { signedRequest } from '../helpers/slack-http.js';
import { blockAction, SLACK } from '../helpers/slack-payloads.js';
import { ENGINES, type TestDatabase, testDatabase } from '../helpers/store-engines.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const click = (o: { value?: string; userId?: string; actionTs?: string } = {}) =>
  blockAction({
    actionId: 'platdesk.confirm',
    value: o.value ?? 'pending-1',
    ...(o.userId ? { userId: o.userId } : {}),
    responseUrl: 'https://hooks.slack.test/x',
    actionTs: o.actionTs ?? '1700000005.000100',
  });

describe.each(ENGINES)('a click delivered twice (%s store)', (engine) => {
  let db: TestDatabase;
  let replicas: Store[];
  beforeAll(async () => {
    db = await testDatabase(engine);
    replicas = await db.openMany(3);
  });
  afterAll(async () => {
    await db?.dispose();
  });

  it('is recognised on any replica: of 9 deliveries at once on 3 stores, exactly one is first', async () => {
    const body = click({ actionTs: '1700000005.000200' });
    const results = await Promise.all(
      Array.from({ length: 9 }, (_, i) => firstDelivery(replicas[i % 3] as Store, body)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    // Later redeliveries, anywhere, are not first either.
    expect(await firstDelivery(replicas[2] as Store, body)).toBe(false);
  });

  it('a genuine click differs by its action_ts, and another user, action or value is another click', async () => {
    const store = replicas[0] as Store;
    expect(await firstDelivery(store, click({ actionTs: '1700000005.000300' }))).toBe(true);
    expect(await firstDelivery(store, click({ actionTs: '1700000005.000301' }))).toBe(true);
    expect(await firstDelivery(store, click({ actionTs: '1700000005.000300', value: 'pending-2' }))).toBe(
      true,
    );
    expect(
      await firstDelivery(store, click({ actionTs: '1700000005.000300', userId: SLACK.secondUserId })),
    ).toBe(true);
    expect(await firstDelivery(store, click({ actionTs: '1700000005.000300' }))).toBe(false);
  });

  it('a payload without action_ts cannot be told apart: always handled', async () => {
    const body = click();
    const noTs = { ...body, actions: body.actions.map(({ action_ts: _ts, ...a }) => a) } as typeof body;
    expect(clickKey(noTs)).toBeNull();
    expect(await firstDelivery(replicas[0] as Store, noTs)).toBe(true);
    expect(await firstDelivery(replicas[0] as Store, noTs)).toBe(true);
  });
});

describe('a Confirm Slack retries over HTTP (x-slack-retry-num)', () => {
  const h = useHarness();

  const send = (payload: object, retryNum?: number) =>
    signedRequest(h().eventsUrl, SIGNING_SECRET, {
      kind: 'form',
      body: { payload: JSON.stringify(payload) },
      ...(retryNum !== undefined ? { retryNum, retryReason: 'http_timeout' } : {}),
    });

  it('is dropped silently, during the run and after it: one call, one answer; a later genuine click hears "already used"', async () => {
    const { confirmation } = await h().ask('/shop', `ww ${SANDBOX_FIXTURES.wwids.known}`);
    const before = h().calls();
    const payload = blockAction({
      actionId: 'platdesk.confirm',
      ...(confirmation.confirm.value !== undefined ? { value: confirmation.confirm.value } : {}),
      text: confirmation.confirm.label,
      responseUrl: h().fake.responseUrl('retried'),
      actionTs: '1700000006.000100',
    });
    h().sandbox.setFaults([{ kind: 'latency', ms: 600, operations: ['get-shop-id'] }]);
    try {
      const [first, retry] = await Promise.all([send(payload), send(payload, 1)]);
      expect(first.status).toBe(200);
      expect(retry.status).toBe(200);
      expect(textOf(await h().nextResponse('retried'))).toContain('Looking up');
      expect(textOf(await h().nextResponse('retried'))).toContain(SANDBOX_FIXTURES.shops.clothing);
    } finally {
      h().sandbox.setFaults([]);
    }
    // And once more after the answer.
    expect((await send(payload, 2)).status).toBe(200);
    await h().settle(300);
    await sleep(100);
    const said = h()
      .responses('retried')
      .map((m) => textOf(m));
    expect(said).toHaveLength(2);
    expect(said.join('\n')).not.toContain('already used');
    expect(h().calls()).toBe(before + 1);

    const later = await h().click('platdesk.confirm', confirmation.confirm.value);
    expect(textOf(await h().nextResponse(later.responseUrlId))).toContain('already used');
    expect(h().calls()).toBe(before + 1);
  });
});
