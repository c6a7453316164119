/**
 * Channel caps (issue 33 finding 15; README: caps "per person, channel and workspace"), through
 * the REAL Bolt app, the fake Slack Web API and a sandbox on loopback, on both engines: an admin
 * sets `/platdesk budget #channel daily|monthly <points|off>`; it is listed with the other caps
 * (`/platdesk budget`, the App Home's settings); every charge made in the channel counts, whoever
 * asks; a lookup that would pass it is refused before any call, naming the channel's cap and by
 * how much (English and Chinese); concurrent Confirms are reserved against it like any cap.
 */
import { describe, expect, it } from 'vitest';
import { periodsOf } from '../../src/store/periods.js';
import { SIGNING_SECRET, textOf, useHarness } from '../helpers/platdesk-harness.js';
import { postEvent } from '../helpers/slack-http.js';
import { appHomeOpened, eventCallback, SLACK } from '../helpers/slack-payloads.js';
import { ENGINES } from '../helpers/store-engines.js';

const ADMIN = SLACK.adminId;
const CAPPED = 'C0CAPPED';
const BUSY = 'C0BUSY';
const ZONE = 'Asia/Shanghai';

describe.each(ENGINES)('channel caps (%s store)', (engine) => {
  const h = useHarness({ engine, env: { PLAT_PRICES: 'get-shop-id=2' } });
  let seq = 0;

  async function say(name: string, text: string, userId: string, channelId?: string): Promise<string> {
    const sent = await h().command(name, text, { userId, ...(channelId ? { channelId } : {}) });
    expect(sent.status).toBe(200);
    return textOf(await h().nextResponse(sent.responseUrlId));
  }

  /** The channel's daily counter today (spent + reserved). */
  async function channelToday(channelId: string): Promise<number> {
    const { daily } = periodsOf(h().now(), ZONE);
    const [use] = await h().platdesk.store.budgets.uses([
      { scope: 'channel', subject: channelId, period: 'daily', key: daily.key, cap: 0 },
    ]);
    return use?.spent ?? 0;
  }

  it('an admin sets a channel cap; /platdesk budget and the App Home list it with the other caps', async () => {
    const set = await say('/platdesk', `budget <#${CAPPED}|capped> daily 3`, ADMIN);
    expect(set).toContain(`<#${CAPPED}>: daily 3 points, monthly no cap`);
    expect(await say('/platdesk', 'budget', ADMIN)).toContain(`<#${CAPPED}>: daily 3 points, monthly no cap`);
    // Admin-only, as every cap.
    expect(await say('/platdesk', `budget <#${CAPPED}|capped> daily 100`, SLACK.userId)).toContain(
      'is for platdesk admins',
    );

    const before = h().fake.callsTo('views.publish').length;
    const res = await postEvent(
      h().eventsUrl,
      SIGNING_SECRET,
      eventCallback(appHomeOpened(ADMIN), { eventId: `EvCAPS${++seq}` }),
    );
    expect(res.status).toBe(200);
    await h().fake.waitFor('views.publish', () => h().fake.callsTo('views.publish').length > before, 5000);
    const home = textOf(h().fake.callsTo('views.publish')[before]?.body.view);
    expect(home).toContain('Spending caps');
    expect(home).toContain(`<#${CAPPED}>: daily 3 points, monthly no cap`);
  });

  it('every charge in the channel counts, whoever asks; one that would pass the cap is refused, naming it and by how much; nothing is sent', async () => {
    const first = await h().ask('/shop', 'ww channel-cap-1', { channelId: CAPPED });
    expect(textOf((await h().confirm(first.confirmation)).answer)).toContain('Charged 2 points');
    expect(await channelToday(CAPPED)).toBe(2);

    // Another person in the same channel: 2 + 2 > 3.
    const before = h().calls();
    const refused = await say('/shop', 'ww channel-cap-2', SLACK.secondUserId, CAPPED);
    expect(refused).toContain(
      "This lookup (about 2 points) would exceed this channel's daily cap: 2 of 3 points used, by 1 point (¥0.01).",
    );
    expect(refused).toMatch(/nothing was (sent or )?charged/i);
    // The admins hear of it once.
    await h().fake.waitFor(
      'chat.postMessage',
      (c) =>
        c.body.channel === ADMIN && textOf(c.body).includes(`The daily cap of <#${CAPPED}> refused a call`),
      5000,
    );
    await h().settle(100);
    expect(h().calls()).toBe(before);

    // The same lookup in another channel is not limited by it.
    const elsewhere = await h().ask('/shop', 'ww channel-cap-2', { userId: SLACK.secondUserId });
    expect(
      textOf((await h().confirm(elsewhere.confirmation, { userId: SLACK.secondUserId })).answer),
    ).toContain('Charged 2 points');
    expect(await channelToday(CAPPED)).toBe(2);
  });

  it('the refusal in Chinese names the channel cap and by how much', async () => {
    expect(await say('/platdesk', 'language zh-CN', SLACK.secondUserId)).toContain('中文');
    const refused = await say('/shop', 'ww channel-cap-3', SLACK.secondUserId, CAPPED);
    expect(refused).toContain('将超出本频道的每日上限：已用 2 / 3 点');
    expect(refused).toContain('多出 1 点（¥0.01）');
    await say('/platdesk', 'language en', SLACK.secondUserId);
  });

  it('ten Confirms at once in a channel with 10 points left: exactly 5 calls, 5 refused by the channel cap; counters = ledger = sandbox', async () => {
    await say('/platdesk', `budget <#${BUSY}|busy> daily 10`, ADMIN);
    const before = h().calls();
    const ledgerBefore = (await h().platdesk.store.ledger.list({ from: new Date(0), to: new Date(8.64e15) }))
      .length;
    const asked = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        h().ask('/shop', `ww busy-${i}`, { userId: `U0BUSY${i}`, channelId: BUSY }),
      ),
    );
    const answers = await Promise.all(
      asked.map(({ confirmation }, i) => h().confirm(confirmation, { userId: `U0BUSY${i}` })),
    );
    await h().settle();
    const said = answers.map((a) => textOf(a.answer));
    expect(said.filter((t) => t.includes('Charged 2 points'))).toHaveLength(5);
    expect(said.filter((t) => t.includes("would exceed this channel's daily cap"))).toHaveLength(5);
    expect(h().calls() - before).toBe(5);
    const rows = await h().platdesk.store.ledger.list({ from: new Date(0), to: new Date(8.64e15) });
    expect(rows.length - ledgerBefore).toBe(5);
    expect(rows.filter((r) => r.channelId === BUSY).reduce((sum, r) => sum + r.points, 0)).toBe(10);
    expect(await channelToday(BUSY)).toBe(10);
    const { daily, monthly } = periodsOf(h().now(), ZONE);
    expect(await h().platdesk.store.budgets.reconcile([daily, monthly])).toEqual([]);
  });

  it('cleared with off: the next lookup in the channel runs', async () => {
    const cleared = await say('/platdesk', `budget <#${CAPPED}|capped> daily off`, ADMIN);
    expect(cleared).not.toContain(CAPPED);
    const { confirmation } = await h().ask('/shop', 'ww channel-cap-4', { channelId: CAPPED });
    expect(textOf((await h().confirm(confirmation)).answer)).toContain('Charged 2 points');
    expect(await channelToday(CAPPED)).toBe(4);
  });
});
