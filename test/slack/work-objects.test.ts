/**
 * Item links as Work Objects (issue 25), end to end through the real Bolt app over signed HTTP:
 * the unfurl carries an entity beside its fallback blocks; opening the details panel answers from
 * what platdesk holds without a call; the panel's paid action asks for consent first and makes
 * exactly one charged call after Confirm (both store engines: money), and the panel then shows it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import {
  confirmationOf,
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

type Entity = {
  entity_type: string;
  url: string;
  app_unfurl_url?: string;
  external_ref: { id: string };
  entity_payload: {
    attributes: { title: { text: string }; display_id?: string };
    custom_fields?: { key: string; value?: string }[];
    actions?: { primary_actions?: { text: string; action_id: string; value?: string }[] };
  };
};

let seq = 0;

describe.each(ENGINES)('Work Objects for item links (%s store)', (engine) => {
  let h: PlatdeskHarness;
  beforeAll(async () => {
    h = await startPlatdeskHarness({ engine, plat: 'sandbox' });
  });
  afterAll(async () => {
    await h?.close();
  });

  async function openPanel(url: string, itemId: string): Promise<Entity> {
    const before = h.fake.callsTo('entity.presentDetails').length;
    const sent = await postEvent(
      h.eventsUrl,
      SIGNING_SECRET,
      eventCallback(entityDetailsRequested({ entityUrl: url, appUnfurlUrl: url, externalId: itemId }), {
        eventId: `EvENTITY${engine}${++seq}`,
      }),
    );
    expect(sent.status).toBe(200);
    const call = await h.fake.waitFor(
      'entity.presentDetails',
      () => h.fake.callsTo('entity.presentDetails').length > before,
      5000,
    );
    const last = h.fake.callsTo('entity.presentDetails').at(-1) ?? call;
    expect(last.body.trigger_id).toBe('10000000001.1000000001.entitytrigger');
    return last.body.metadata as Entity;
  }

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

  it('the panel answers without a call; its paid action asks first and makes one call after Confirm', async () => {
    const url = links.firstMarketplace;
    const before = h.calls();
    const panel = await openPanel(url, items.basic);
    expect(panel.entity_payload.custom_fields?.find((f) => f.key === 'known')?.value).toBe(
      'Not looked up yet; opening this panel charges nothing',
    );
    const action = panel.entity_payload.actions?.primary_actions?.[0];
    expect(action?.text).toBe('Look up now — 1 item quota call');
    await h.settle(50);
    expect(h.calls()).toBe(before);

    // The click: the usual confirmation, privately (a direct message), and still no call.
    const dmBefore = h.fake.callsTo('chat.postMessage').length;
    const clicked = await postAction(
      h.eventsUrl,
      SIGNING_SECRET,
      entityAction({
        actionId: action?.action_id ?? '',
        value: action?.value ?? '',
        actionTs: `1700000002.${++seq}`,
      }),
    );
    expect(clicked.status).toBe(200);
    const dm = await h.fake.waitFor(
      'chat.postMessage',
      () => h.fake.callsTo('chat.postMessage').length > dmBefore,
      5000,
    );
    const confirmation = confirmationOf(dm.body);
    expect(dm.body.channel).toBe(SLACK.userId);
    expect(confirmation.text).toContain('1 call of the quota');
    await h.settle(50);
    expect(h.calls()).toBe(before);

    // Confirm: exactly one charged call.
    const confirm = await h.click('platdesk.confirm', confirmation.confirm.value, {
      label: confirmation.confirm.label,
    });
    await h.nextResponse(confirm.responseUrlId);
    const answer = await h.nextResponse(confirm.responseUrlId);
    expect(textOf(answer)).toContain(items.basic);
    await h.settle();
    expect(h.calls()).toBe(before + 1);

    // The panel now shows the answer and its age, still without a call.
    const filled = await openPanel(url, items.basic);
    expect(filled.entity_payload.attributes.title.text).not.toBe(`Item ${items.basic}`);
    expect(filled.entity_payload.custom_fields?.find((f) => f.key === 'known')?.value).toMatch(
      /^Looked up .+ ago; opening this panel charges nothing$/,
    );
    await h.settle(50);
    expect(h.calls()).toBe(before + 1);
  });
});
