/**
 * Item links pasted into channels (issue 5), end to end: signed link_shared events into the real
 * Bolt app, chat.unfurl on the fake Slack server, calls counted at the in-process sandbox.
 * An unfurl never charges by itself; the composer and the posted event, and Slack retries, never
 * cost twice; an auto-lookup channel charges within its daily cap and says so.
 */
import { describe, expect, it } from 'vitest';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import {
  buttonOf,
  confirmationOf,
  SIGNING_SECRET,
  type SlackMessage,
  textOf,
  useHarness,
} from '../helpers/platdesk-harness.js';
import type { SlackCall } from '../helpers/slack-api-server.js';
import { postAction, postEvent } from '../helpers/slack-http.js';
import {
  blockAction,
  eventCallback,
  type LinkSharedInput,
  linkShared,
  SLACK,
} from '../helpers/slack-payloads.js';
import { ENGINES } from '../helpers/store-engines.js';

const { items, links } = SANDBOX_FIXTURES;
const MINUTE = 60_000;
const AUTO_CHANNEL = 'CAUTO0001';

let eventSeq = 0;

describe.each(ENGINES)('item-link unfurls (%s store)', (engine) => {
  /** Sends a link_shared event and returns the chat.unfurl call it caused (or null within `quietMs`). */
  async function share(
    input: LinkSharedInput,
    options: { eventId?: string; retryNum?: number; withoutUnfurlId?: boolean; expectUnfurl?: boolean } = {},
  ): Promise<SlackCall | null> {
    const before = h().fake.callsTo('chat.unfurl').length;
    const event = linkShared(input);
    if (options.withoutUnfurlId) {
      delete (event as { unfurl_id?: string }).unfurl_id;
      delete (event as { source?: string }).source;
    }
    const envelope = eventCallback(event, { eventId: options.eventId ?? `EvUNFURL${++eventSeq}` });
    const res = await postEvent(
      h().eventsUrl,
      SIGNING_SECRET,
      envelope,
      options.retryNum !== undefined ? { retryNum: options.retryNum } : {},
    );
    expect(res.status).toBe(200);
    expect(res.ms).toBeLessThan(1000);
    if (options.expectUnfurl === false) {
      await h().settle(150);
      expect(h().fake.callsTo('chat.unfurl')).toHaveLength(before);
      return null;
    }
    await h().fake.waitFor('chat.unfurl', () => h().fake.callsTo('chat.unfurl').length > before, 5000);
    return h().fake.callsTo('chat.unfurl')[before] ?? null;
  }

  /** A click on an unfurl's button in `channel` (the message is not the app's: not ephemeral). */
  let clickSeq = 0;
  async function clickIn(channel: string, value: string | undefined, userId: string = SLACK.userId) {
    const responseUrlId = `unfurl-click-${++clickSeq}`;
    const payload = blockAction({
      actionId: 'platdesk.unfurl.lookup',
      ...(value !== undefined ? { value } : {}),
      userId,
      channelId: channel,
      isEphemeral: false,
      responseUrl: h().fake.responseUrl(responseUrlId),
      actionTs: `1700000002.${String(clickSeq).padStart(6, '0')}`,
    });
    const res = await postAction(h().eventsUrl, SIGNING_SECRET, payload);
    expect(res.status).toBe(200);
    return h().nextResponse(responseUrlId);
  }

  const unfurlOf = (call: SlackCall | null, url: string): SlackMessage => {
    const unfurls = (call?.body.unfurls ?? {}) as Record<string, SlackMessage>;
    const found = unfurls[url];
    if (!found) throw new Error(`no unfurl for ${url} in ${JSON.stringify(call?.body).slice(0, 300)}`);
    return found;
  };

  const link = (url: string) => ({ url, domain: new URL(url).hostname });

  const h = useHarness({ engine });

  it.each([
    ['Taobao', links.firstMarketplace, items.basic, 'on Taobao'],
    ['Tmall', links.brandedStore, items.tea, 'on Tmall'],
    ['mobile page (itemId=)', links.mobile, items.manySkus, 'on Taobao'],
    ['Pinduoduo', links.secondMarketplace, items.secondMarketplace, 'on Pinduoduo'],
  ])(
    '%s: composer and posted unfurls show the item and a Look up button, and call nothing',
    async (_name, url, itemId, where) => {
      const before = h().calls();
      for (const source of ['composer', 'conversations_history'] as const) {
        const call = await share({ links: [link(url)], source });
        expect(call?.body.unfurl_id).toBeTruthy();
        expect(call?.body.source).toBe(source);
        const unfurl = unfurlOf(call, url);
        const said = textOf(unfurl);
        expect(said).toContain(`Item ${itemId}`);
        expect(said).toContain(where);
        expect(said).toContain('Nothing has been charged');
        const button = buttonOf(unfurl, 'platdesk.unfurl.lookup');
        expect(button.label).toBe('Look up (1 quota call)');
        expect(button.value).toContain(itemId);
      }
      await h().settle(100);
      expect(h().calls()).toBe(before);
    },
  );

  it('an event without unfurl_id is answered with channel and ts', async () => {
    const call = await share(
      { links: [link(links.firstMarketplace)], messageTs: '1700000000.777777' },
      { withoutUnfurlId: true },
    );
    expect(call?.body.channel).toBe(SLACK.channelId);
    expect(call?.body.ts).toBe('1700000000.777777');
    expect(call?.body.unfurl_id).toBeUndefined();
  });

  it('a short link gets a "paste the full link" note and no button', async () => {
    const url = 'https://m.tb.cn/h().5Xyz9Ab';
    const before = h().calls();
    const call = await share({ links: [link(url)] });
    const unfurl = unfurlOf(call, url);
    expect(textOf(unfurl)).toContain('Paste the full item link');
    expect(() => buttonOf(unfurl, 'platdesk.unfurl.lookup')).toThrow();
    expect(h().calls()).toBe(before);
  });

  it('Look up → the normal confirmation (for the clicker only) → exactly one call; the same link again is the earlier result', async () => {
    const channel = 'CLOOKUP01';
    const call = await share({ links: [link(links.firstMarketplace)], channel });
    const button = buttonOf(unfurlOf(call, links.firstMarketplace), 'platdesk.unfurl.lookup');
    const before = h().calls();

    const offer = await clickIn(channel, button.value, SLACK.secondUserId);
    expect(offer.response_type).toBe('ephemeral');
    expect(offer.replace_original).toBe(false);
    const confirmation = confirmationOf(offer);
    expect(confirmation.text).toContain(`item ${items.basic}`);
    expect(confirmation.text).toContain(': 1 quota call.');
    expect(h().calls()).toBe(before);

    const { answer } = await h().confirm(confirmation, { userId: SLACK.secondUserId });
    expect(textOf(answer)).toContain('Used 1 call of the item quota');
    await h().settle();
    expect(h().calls()).toBe(before + 1);

    // Posted again in the same channel within 30 minutes: the earlier result, no call.
    h().advance(5 * MINUTE);
    const again = unfurlOf(
      await share({ links: [link(links.firstMarketplace)], channel }),
      links.firstMarketplace,
    );
    expect(textOf(again)).toContain('Earlier result');
    expect(textOf(again)).toContain(`<@${SLACK.secondUserId}>`);
    expect(textOf(again)).toContain('not looked up again, no charge');
    // Its button answers from the earlier result too.
    const details = buttonOf(again, 'platdesk.unfurl.lookup');
    const shown = await clickIn(channel, details.value);
    expect(textOf(shown)).toContain('Earlier result');
    await h().settle(100);
    expect(h().calls()).toBe(before + 1);
  });

  it('an auto-lookup channel charges without asking up to its cap, then stops and says so', async () => {
    const set = await h().command('/platdesk', `autolookup <#${AUTO_CHANNEL}|auto> on cap 2`, {
      userId: SLACK.adminId,
    });
    expect(textOf(await h().nextResponse(set.responseUrlId))).toContain('up to 2 a day');
    const before = h().calls();

    // The composer never looks up (the channel is not known yet)…
    const composer = unfurlOf(
      await share({ links: [link(links.secondMarketplace)], source: 'composer' }),
      links.secondMarketplace,
    );
    expect(textOf(composer)).toContain('Look up');
    expect(h().calls()).toBe(before);
    // …the posted message does, once.
    const first = unfurlOf(
      await share({ links: [link(links.secondMarketplace)], channel: AUTO_CHANNEL }),
      links.secondMarketplace,
    );
    expect(textOf(first)).toContain('Looked up automatically');
    expect(textOf(first)).toContain('1 of 2 today');
    expect(h().calls()).toBe(before + 1);

    // The same link posted again within 30 minutes: the earlier result.
    h().advance(10 * MINUTE);
    const repeat = unfurlOf(
      await share({ links: [link(links.secondMarketplace)], channel: AUTO_CHANNEL }),
      links.secondMarketplace,
    );
    expect(textOf(repeat)).toContain('Earlier result (looked up automatically');
    expect(h().calls()).toBe(before + 1);

    const longTitle = `https://item.taobao.com/item.htm?id=${items.longTitle}`;
    const second = unfurlOf(await share({ links: [link(longTitle)], channel: AUTO_CHANNEL }), longTitle);
    expect(textOf(second)).toContain('2 of 2 today');
    expect(h().calls()).toBe(before + 2);

    const video = `https://item.taobao.com/item.htm?id=${items.withVideo}`;
    const third = unfurlOf(await share({ links: [link(video)], channel: AUTO_CHANNEL }), video);
    expect(textOf(third)).toContain('cap of 2 automatic lookups a day is reached');
    expect(buttonOf(third, 'platdesk.unfurl.lookup').label).toBe('Look up (1 quota call)');
    await h().settle(100);
    expect(h().calls()).toBe(before + 2);

    // The ledger has the two automatic lookups, charged to the poster, marked as unfurls.
    const entries = await h().platdesk.store.ledger.list({
      from: new Date(0),
      to: new Date(h().now().getTime() + MINUTE),
    });
    const auto = entries.filter((e) => e.source === 'unfurl');
    expect(auto).toHaveLength(2);
    expect(auto.every((e) => e.userId === SLACK.userId && e.channelId === AUTO_CHANNEL)).toBe(true);
  });

  it('a Slack retry of the same event (x-slack-retry-num: 1) does nothing twice', async () => {
    const channel = 'CAUTO0002';
    const set = await h().command('/platdesk', `autolookup <#${channel}|auto2> on`, {
      userId: SLACK.adminId,
    });
    await h().nextResponse(set.responseUrlId);
    const before = h().calls();
    const url = `https://item.taobao.com/item.htm?id=${items.missing}`;
    const eventId = 'EvRETRY0001';
    const first = await share({ links: [link(url)], channel }, { eventId });
    expect(first).not.toBeNull();
    await h().settle();
    expect(h().calls()).toBe(before + 1);
    const unfurlsBefore = h().fake.callsTo('chat.unfurl').length;

    await share({ links: [link(url)], channel }, { eventId, retryNum: 1, expectUnfurl: false });
    await share({ links: [link(url)], channel }, { eventId, retryNum: 2, expectUnfurl: false });
    expect(h().fake.callsTo('chat.unfurl')).toHaveLength(unfurlsBefore);
    expect(h().calls()).toBe(before + 1);
  });

  it('two deliveries of one posted link arriving together cost once', async () => {
    const channel = 'CAUTO0003';
    const set = await h().command('/platdesk', `autolookup <#${channel}|auto3> on cap 5`, {
      userId: SLACK.adminId,
    });
    await h().nextResponse(set.responseUrlId);
    const before = h().calls();
    const url = `https://detail.tmall.com/item.htm?id=${items.manySkus}`;
    const count = h().fake.callsTo('chat.unfurl').length;
    await Promise.all([
      postEvent(
        h().eventsUrl,
        SIGNING_SECRET,
        eventCallback(linkShared({ links: [link(url)], channel }), { eventId: 'EvPAIR1' }),
      ),
      postEvent(
        h().eventsUrl,
        SIGNING_SECRET,
        eventCallback(linkShared({ links: [link(url)], channel }), { eventId: 'EvPAIR2' }),
      ),
    ]);
    await h().fake.waitFor('chat.unfurl', () => h().fake.callsTo('chat.unfurl').length >= count + 2, 5000);
    await h().settle();
    expect(h().calls()).toBe(before + 1);
    const texts = h()
      .fake.callsTo('chat.unfurl')
      .slice(count)
      .map((c) => textOf(c.body));
    expect(texts.some((t) => t.includes('Looked up automatically'))).toBe(true);
    expect(texts.some((t) => t.includes('Earlier result'))).toBe(true);
  });

  it('in an auto-lookup channel, a poster who may not spend gets the button and the reason, and no call', async () => {
    const settings = h().platdesk.store.settings;
    settings.set(
      'access',
      { mode: 'listed', users: [SLACK.adminId], groups: [], channels: [] },
      SLACK.adminId,
    );
    try {
      const before = h().calls();
      const url = `https://detail.tmall.com/item.htm?id=${items.tea}`;
      const unfurl = unfurlOf(await share({ links: [link(url)], channel: 'CAUTO0002' }), url);
      expect(textOf(unfurl)).toContain('refused for the person who posted it');
      expect(buttonOf(unfurl, 'platdesk.unfurl.lookup').label).toBe('Look up (1 quota call)');
      await h().settle(100);
      expect(h().calls()).toBe(before);
    } finally {
      settings.set('access', { mode: 'everyone', users: [], groups: [], channels: [] }, SLACK.adminId);
    }
  });

  it('every unfurl and answer fits Slack limits', async () => {
    for (const call of h().fake.callsTo('chat.unfurl'))
      for (const unfurl of Object.values(call.body.unfurls as Record<string, SlackMessage>))
        expect((unfurl.blocks ?? []).length).toBeLessThanOrEqual(10);
    h().assertAllWithinLimits();
  });
});
