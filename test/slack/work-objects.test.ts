/**
 * Item links as Work Objects (issue 25), end to end through the real Bolt app over signed HTTP,
 * on both store engines (money): the unfurl carries an entity beside its fallback blocks; opening
 * the details panel answers from what platdesk holds without a call, with one action whose label
 * states the charge; its click (with its own trigger, tied to the entity) makes exactly one
 * charged call and the answer fills the panel through entity.presentDetails; a redelivered click
 * does nothing, a second click calls nothing; when the click's trigger cannot be used any more
 * the unfurl's entity is refreshed and the clicker told privately what was charged; a refusal
 * costs nothing. The local Slack server checks entity.presentDetails as Slack documents it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIRM_TTL_MS } from '../../src/lookups/lookup-service.js';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import {
  type PlatdeskHarness,
  SIGNING_SECRET,
  startPlatdeskHarness,
  textOf,
} from '../helpers/platdesk-harness.js';
import { postAction, postEvent } from '../helpers/slack-http.js';
import {
  entityAction,
  entityDetailsRequested,
  eventCallback,
  linkShared,
  SLACK,
} from '../helpers/slack-payloads.js';
import { ENGINES } from '../helpers/store-engines.js';

const { links, items } = SANDBOX_FIXTURES;

type Action = {
  text: string;
  action_id: string;
  value?: string;
  processing_state?: { enabled: boolean; interstitial_text?: string };
};
type Entity = {
  entity_type: string;
  url: string;
  app_unfurl_url?: string;
  external_ref: { id: string };
  entity_payload: {
    attributes: { title: { text: string }; display_id?: string };
    custom_fields?: { key: string; value?: string }[];
    actions?: { primary_actions?: Action[] };
  };
};

const field = (entity: Entity | undefined, key: string) =>
  entity?.entity_payload.custom_fields?.find((f) => f.key === key)?.value;

let seq = 0;

describe.each(ENGINES)('Work Objects for item links (%s store)', (engine) => {
  let h: PlatdeskHarness;
  beforeAll(async () => {
    h = await startPlatdeskHarness({ engine, plat: 'sandbox' });
  });
  afterAll(async () => {
    await h?.close();
  });

  /** Opens the panel (a fresh trigger, as Slack issues one per event); the panel Slack accepted. */
  async function openPanel(url: string, itemId: string): Promise<Entity> {
    const triggerId = h.fake.entityTrigger(itemId);
    const sent = await postEvent(
      h.eventsUrl,
      SIGNING_SECRET,
      eventCallback(
        entityDetailsRequested({ entityUrl: url, appUnfurlUrl: url, externalId: itemId, triggerId }),
        { eventId: `EvENTITY${engine}${++seq}` },
      ),
    );
    expect(sent.status).toBe(200);
    await h.fake.waitFor('entity.presentDetails', (c) => c.body.trigger_id === triggerId, 5000);
    await h.settle(20);
    const shown = h.fake.presentedDetails().filter((p) => p.triggerId === triggerId);
    expect(shown).toHaveLength(1);
    return shown[0]?.metadata as Entity;
  }

  async function click(action: Action | undefined, triggerId: string, actionTs: string) {
    const sent = await postAction(
      h.eventsUrl,
      SIGNING_SECRET,
      entityAction({
        actionId: action?.action_id ?? '',
        value: action?.value ?? '',
        actionTs,
        triggerId,
      }),
    );
    expect(sent.status).toBe(200);
  }

  const dms = () => h.fake.callsTo('chat.postMessage').filter((c) => c.body.channel === SLACK.userId);

  it('the unfurl carries the item as an entity, keeps its blocks as the fallback, and calls nothing', async () => {
    const before = h.calls();
    const url = links.firstMarketplace;
    await postEvent(
      h.eventsUrl,
      SIGNING_SECRET,
      eventCallback(linkShared({ links: [{ url, domain: 'item.taobao.com' }] }), {
        eventId: `EvWO${engine}${++seq}`,
      }),
    );
    const call = await h.fake.waitFor('chat.unfurl', undefined, 5000);
    const unfurls = call.body.unfurls as Record<string, { blocks: unknown[] }>;
    expect(unfurls[url]?.blocks.length).toBeGreaterThan(0);
    const entities = (call.body.metadata as { entities: Entity[] }).entities;
    expect(entities).toHaveLength(1);
    expect(entities[0]).toMatchObject({
      entity_type: 'slack#/entities/item',
      url,
      app_unfurl_url: url,
      external_ref: { id: items.basic },
      entity_payload: { attributes: { title: { text: `Item ${items.basic}` }, display_id: items.basic } },
    });
    await h.settle(50);
    expect(h.calls()).toBe(before);
  });

  it('the panel states the charge on its action; the click is the consent: one call, the answer fills the panel', async () => {
    h.fake.reset();
    h.sandbox.reset();
    const url = links.firstMarketplace;
    const before = h.calls();
    const panel = await openPanel(url, items.basic);
    expect(field(panel, 'known')).toBe('Not looked up yet; opening this panel charges nothing');
    const action = panel.entity_payload.actions?.primary_actions?.[0];
    expect(action?.text).toBe('Look up now — 1 quota call');
    expect(action?.processing_state).toEqual({
      enabled: true,
      interstitial_text: `Looking up item ${items.basic} (1 quota call)…`,
    });
    await h.settle(50);
    expect(h.calls()).toBe(before);

    // The click, with its own trigger tied to the entity: one call, the panel filled with the answer.
    const triggerId = h.fake.entityTrigger(items.basic);
    const actionTs = `1700000002.${++seq}`;
    await click(action, triggerId, actionTs);
    await h.fake.waitFor('entity.presentDetails', (c) => c.body.trigger_id === triggerId, 5000);
    await h.settle();
    expect(h.calls()).toBe(before + 1);
    const filled = h.fake.presentedDetails().find((p) => p.triggerId === triggerId)?.metadata as Entity;
    expect(filled.external_ref.id).toBe(items.basic);
    expect(filled.entity_payload.attributes.title.text).not.toBe(`Item ${items.basic}`);
    expect(filled.entity_payload.attributes.title.text.length).toBeGreaterThan(0);
    expect(field(filled, 'known')).toBe('Looked up just now · Used 1 call of the item quota');
    expect(filled.entity_payload.actions).toBeUndefined();
    // No confirmation, no message: the panel was the answer.
    expect(dms()).toHaveLength(0);
    expect(h.fake.callsTo('chat.postEphemeral')).toHaveLength(0);

    // Slack delivers the same click again (same action_ts): no call, no panel, no message.
    const panelsBefore = h.fake.callsTo('entity.presentDetails').length;
    await click(action, triggerId, actionTs);
    await h.settle(100);
    expect(h.calls()).toBe(before + 1);
    expect(h.fake.callsTo('entity.presentDetails')).toHaveLength(panelsBefore);
    expect(dms()).toHaveLength(0);

    // A second click (its own action_ts and trigger) on the used offer: the answer again, free,
    // and a fresh offer.
    const again = h.fake.entityTrigger(items.basic);
    await click(action, again, `1700000003.${++seq}`);
    await h.fake.waitFor('entity.presentDetails', (c) => c.body.trigger_id === again, 5000);
    await h.settle(50);
    expect(h.calls()).toBe(before + 1);
    const shownAgain = h.fake.presentedDetails().find((p) => p.triggerId === again)?.metadata as Entity;
    expect(field(shownAgain, 'known')).toMatch(/^Looked up .+ ago; opening this panel charges nothing$/);
    expect(field(shownAgain, 'notice')).toBeUndefined();
    expect(shownAgain.entity_payload.actions?.primary_actions?.[0]?.value).not.toBe(action?.value);

    // The ledger has the one charge.
    const pendingId = (JSON.parse(action?.value ?? '{}') as { p: string }).p;
    expect(await h.platdesk.store.ledger.byPending(pendingId)).toHaveLength(1);

    // Reopened, the panel shows the answer and its age, still without a call.
    const reopened = await openPanel(url, items.basic);
    expect(reopened.entity_payload.attributes.title.text).toBe(filled.entity_payload.attributes.title.text);
    expect(field(reopened, 'known')).toMatch(/^Looked up .+ ago; opening this panel charges nothing$/);
    await h.settle(50);
    expect(h.calls()).toBe(before + 1);
  });

  it('a trigger Slack no longer takes: the unfurl entity is refreshed and the clicker told privately what was charged', async () => {
    h.fake.reset();
    h.sandbox.reset();
    const url = links.brandedStore;
    const itemId = items.tea;
    const before = h.calls();
    const panel = await openPanel(url, itemId);
    const action = panel.entity_payload.actions?.primary_actions?.[0];
    expect(action?.text).toBe('Look up now — 1 quota call');

    // The click's trigger is already past Slack's 3 s (issued earlier): entity.presentDetails is refused.
    const stale = h.fake.entityTrigger(itemId, { issuedAt: Date.now() - 3100 });
    await click(action, stale, `1700000004.${++seq}`);
    const dm = await h.fake.waitFor('chat.postMessage', (c) => c.body.channel === SLACK.userId, 5000);
    await h.settle();
    expect(h.calls()).toBe(before + 1);
    // Tried with the click's trigger, refused as Slack does; nothing presented.
    expect(h.fake.callsTo('entity.presentDetails').some((c) => c.body.trigger_id === stale)).toBe(true);
    expect(h.fake.presentedDetails().some((p) => p.triggerId === stale)).toBe(false);
    // The unfurl of the message the panel belongs to now carries the answer.
    const refreshed = h.fake.callsTo('chat.unfurl').at(-1);
    expect(refreshed?.body).toMatchObject({ channel: SLACK.channelId, ts: SLACK.messageTs });
    const entity = (refreshed?.body.metadata as { entities: Entity[] } | undefined)?.entities[0];
    expect(entity?.external_ref.id).toBe(itemId);
    expect(entity?.entity_payload.attributes.title.text).not.toBe(`Item ${itemId}`);
    expect(Object.keys(refreshed?.body.unfurls as object)).toEqual([url]);
    // The clicker is told, privately, with the charge.
    const said = textOf(dm.body);
    expect(said).toContain(`The details panel of item ${itemId} had closed`);
    expect(said).toContain('1 call of the item quota');
    expect(dms()).toHaveLength(1);
  });

  it('a lookup the limiter or the service holds past the trigger: no doomed panel call, the same fallback', async () => {
    h.fake.reset();
    h.sandbox.reset();
    const url = links.firstMarketplace;
    const before = h.calls();
    const panel = await openPanel(url, items.basic);
    const action = panel.entity_payload.actions?.primary_actions?.[0];
    h.sandbox.setFaults([{ kind: 'latency', ms: 2700, operations: ['platiteminfo'] }]);
    try {
      const triggerId = h.fake.entityTrigger(items.basic);
      await click(action, triggerId, `1700000005.${++seq}`);
      const dm = await h.fake.waitFor('chat.postMessage', (c) => c.body.channel === SLACK.userId, 10_000);
      await h.settle();
      expect(h.calls()).toBe(before + 1);
      // The app knew the trigger was spent: it did not try it.
      expect(h.fake.callsTo('entity.presentDetails').some((c) => c.body.trigger_id === triggerId)).toBe(
        false,
      );
      expect(h.fake.callsTo('chat.unfurl').length).toBeGreaterThan(0);
      expect(textOf(dm.body)).toContain('1 call of the item quota');
    } finally {
      h.sandbox.setFaults([]);
    }
  });

  it('a lookup the service refuses fills the panel with the failure and what it cost, once', async () => {
    h.fake.reset();
    h.sandbox.reset();
    const before = h.calls();
    const panel = await openPanel(links.unknownItem, items.missing);
    const action = panel.entity_payload.actions?.primary_actions?.[0];
    const triggerId = h.fake.entityTrigger(items.missing);
    await click(action, triggerId, `1700000007.${++seq}`);
    await h.fake.waitFor('entity.presentDetails', (c) => c.body.trigger_id === triggerId, 5000);
    await h.settle(50);
    expect(h.calls()).toBe(before + 1);
    const shown = h.fake.presentedDetails().find((p) => p.triggerId === triggerId);
    expect(shown?.metadata).toBeUndefined();
    expect(shown?.error).toMatchObject({ status: 'custom' });
    expect(String(shown?.error?.custom_title).length).toBeGreaterThan(0);
    expect(String(shown?.error?.custom_message)).toMatch(
      /^No item has this id; check the link or id\..* It cost 1 call of the item quota\.$/,
    );
    expect(dms()).toHaveLength(0);
  });

  it('an offer clicked after it expired calls nothing: the panel says so and offers a fresh one', async () => {
    h.fake.reset();
    const before = h.calls();
    const panel = await openPanel(links.firstMarketplace, items.basic);
    const action = panel.entity_payload.actions?.primary_actions?.[0];
    h.advance(CONFIRM_TTL_MS + 1000);
    const triggerId = h.fake.entityTrigger(items.basic);
    await click(action, triggerId, `1700000006.${++seq}`);
    await h.fake.waitFor('entity.presentDetails', (c) => c.body.trigger_id === triggerId, 5000);
    await h.settle(50);
    expect(h.calls()).toBe(before);
    const shown = h.fake.presentedDetails().find((p) => p.triggerId === triggerId)?.metadata as Entity;
    expect(field(shown, 'notice')).toBe(
      'That offer had ended, so nothing was looked up or charged. The button below is a fresh one.',
    );
    const fresh = shown.entity_payload.actions?.primary_actions?.[0];
    expect(fresh?.text).toBe('Look up now — 1 quota call');
    expect(fresh?.value).not.toBe(action?.value);
    expect(dms()).toHaveLength(0);
  });

  it('a viewer who may not look it up sees why and no action; nothing is called or charged', async () => {
    h.fake.reset();
    const store = h.platdesk.store;
    await store.settings.set(
      'access',
      { mode: 'listed', users: [SLACK.adminId], groups: [], channels: [] },
      SLACK.adminId,
    );
    try {
      const before = h.calls();
      const panel = await openPanel(links.firstMarketplace, items.basic);
      expect(panel.entity_payload.actions).toBeUndefined();
      expect(field(panel, 'refused')?.length).toBeGreaterThan(0);
      await h.settle(50);
      expect(h.calls()).toBe(before);
    } finally {
      await store.settings.set(
        'access',
        { mode: 'everyone', users: [], groups: [], channels: [] },
        SLACK.adminId,
      );
    }
  });
});

describe('the local Slack server answers entity.presentDetails as Slack documents it', () => {
  let h: PlatdeskHarness;
  beforeAll(async () => {
    h = await startPlatdeskHarness({ plat: 'sandbox' });
  });
  afterAll(async () => {
    await h?.close();
  });

  const entity = (id: string) => ({
    entity_type: 'slack#/entities/item',
    url: `https://item.taobao.com/item.htm?id=${id}`,
    external_ref: { id },
    entity_payload: { attributes: { title: { text: 'x' } } },
  });
  const call = async (args: Record<string, unknown>) => {
    const res = await fetch(`${h.fake.apiUrl}entity.presentDetails`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer xoxb-test' },
      body: JSON.stringify(args),
    });
    return (await res.json()) as { ok: boolean; error?: string };
  };

  it('checks the trigger (known, not expired, tied to the entity), the metadata and the auth url', async () => {
    const trigger = h.fake.entityTrigger('680001234501');
    expect(await call({ metadata: entity('680001234501') })).toEqual({
      ok: false,
      error: 'invalid_arguments',
    });
    expect(await call({ trigger_id: 'nope', metadata: entity('680001234501') })).toEqual({
      ok: false,
      error: 'invalid_trigger_id',
    });
    const old = h.fake.entityTrigger('680001234501', { issuedAt: Date.now() - 3001 });
    expect(await call({ trigger_id: old, metadata: entity('680001234501') })).toEqual({
      ok: false,
      error: 'invalid_trigger_id',
    });
    expect(await call({ trigger_id: trigger, metadata: entity('999999999') })).toEqual({
      ok: false,
      error: 'entity_metadata_does_not_match_trigger',
    });
    expect(await call({ trigger_id: trigger, metadata: { url: 'x' } })).toEqual({
      ok: false,
      error: 'invalid_metadata',
    });
    expect(
      await call({ trigger_id: trigger, metadata: entity('680001234501'), user_auth_required: true }),
    ).toEqual({ ok: false, error: 'user_auth_url_missing' });
    expect(await call({ trigger_id: trigger, error: { status: 'bogus' } })).toEqual({
      ok: false,
      error: 'invalid_arguments',
    });
    expect(h.fake.presentedDetails()).toEqual([]);
    expect(await call({ trigger_id: trigger, metadata: entity('680001234501') })).toEqual({ ok: true });
    expect(await call({ trigger_id: trigger, error: { status: 'not_found' } })).toEqual({ ok: true });
    expect(h.fake.presentedDetails().map((p) => [p.triggerId, p.entityId, p.error?.status ?? null])).toEqual([
      [trigger, '680001234501', null],
      [trigger, '680001234501', 'not_found'],
    ]);
  });
});
