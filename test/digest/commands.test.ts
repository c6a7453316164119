/**
 * `/orders digest add|list|remove|run` and "Run anyway" through the REAL Bolt app of startPlatdesk
 * (signed requests, the fake Slack Web API, the in-process sandbox): admins only where it matters,
 * channel mentions in every form Slack sends, and "Run now" posting in the channel with progress.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_POINTS_SETTING } from '../../src/digest/runner.js';
import { spendSettings } from '../../src/lookups/settings.js';
import { SANDBOX_FIXTURES } from '../../src/sandbox/fixtures.js';
import { type PlatdeskHarness, startPlatdeskHarness, textOf } from '../helpers/platdesk-harness.js';
import { SLACK } from '../helpers/slack-payloads.js';
import { ENGINES } from '../helpers/store-engines.js';

const ADMIN = SLACK.adminId;
const AGENT = SLACK.userId;

let h: PlatdeskHarness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

/** A time of day twelve hours from the harness clock in Shanghai, so no scheduled run fires mid-test. */
function farTime(now: Date): string {
  const later = new Date(now.getTime() + 12 * 3_600_000 + 8 * 3_600_000);
  return `${String(later.getUTCHours()).padStart(2, '0')}:00`;
}

async function say(text: string, userId: string = ADMIN, channelId?: string): Promise<string> {
  if (!h) throw new Error('no harness');
  const sent = await h.command('/orders', text, { userId, ...(channelId ? { channelId } : {}) });
  expect(sent.status).toBe(200);
  expect(sent.ms).toBeLessThan(3000);
  return textOf(await h.nextResponse(sent.responseUrlId));
}

describe.each(ENGINES)('/orders digest (%s store)', (engine) => {
  it('add (admins only), every channel form, list, remove', async () => {
    h = await startPlatdeskHarness({ engine });
    const at = farTime(h.now());

    expect(await say(`digest add 2200001002 <#C1234|support> ${at}`, AGENT)).toContain(
      'Only platdesk admins',
    );
    expect(await h.platdesk.store.digests.list()).toHaveLength(0);

    const added = await say(`digest add 2200001002 <#C1234|support> ${at}`);
    expect(added).toContain('Digest #1 added');
    expect(added).toContain(`${at} Beijing time in <#C1234>`);
    expect(await say(`digest add 2200001001 <#C0ABCDEF> 7:30 america/new_york`)).toContain('Digest #2 added');
    expect(await say(`digest add 2200001001 <#G0ABCDEF|> 07:30`)).toContain('Digest #3 added');
    expect(await say(`digest add 2200001001 here 08:00`)).toContain('Digest #4 added');
    // A bare #name names no channel id: accepted only for the channel the command was typed in.
    expect(await say(`digest add 2200001001 #support 08:30`)).toContain('Digest #5 added');
    const bare = await say(`digest add 2200001001 #random 09:00`);
    expect(bare).toContain('pick the channel from the autocomplete'.replace('pick', 'Pick'));
    expect(bare).toContain('`here`');

    expect(
      (await h.platdesk.store.digests.list()).map((s) => [s.ownerId, s.channelId, s.localTime, s.timeZone]),
    ).toEqual([
      ['2200001002', 'C1234', at, 'Asia/Shanghai'],
      ['2200001001', 'C0ABCDEF', '07:30', 'America/New_York'],
      ['2200001001', 'G0ABCDEF', '07:30', 'Asia/Shanghai'],
      ['2200001001', 'C1234', '08:00', 'Asia/Shanghai'],
      ['2200001001', 'C1234', '08:30', 'Asia/Shanghai'],
    ]);

    expect(await say(`digest add 2200001002 <#C1234|support> ${at}`)).toContain('already exists: #1');
    const bad = await say('digest add 2200001002 <#C1234|support> 25:00 Mars/Olympus');
    expect(bad).toContain('not a time of day');
    expect(bad).toContain('not a time zone');

    const list = await say('digest list', AGENT);
    expect(list).toContain('Order digests (5)');
    expect(list).toContain('*#2* · owner 2200001001 → <#C0ABCDEF> · daily 07:30 America/New_York');
    expect(list).toContain('Last: not run yet');

    expect(await say('digest remove 2', AGENT)).toContain('Only platdesk admins');
    expect(await say('digest remove 2')).toContain('Digest #2 removed');
    expect(await say('digest remove 2')).toContain('There is no digest #2');
    expect(await say('digest list')).toContain('Order digests (4)');
    expect(await say('digest')).toContain('/orders digest add');
    expect(h.calls()).toBe(0);
    h.assertAllWithinLimits();
  });

  it('add states what the next run costs at the least: one page a day it covers, at the page price', async () => {
    h = await startPlatdeskHarness({ engine, env: { PLAT_PRICES: 'paging-orders=4' } });
    const at = farTime(h.now());
    // Every day: the next run covers one day, one page at the least.
    const daily = await say(`digest add 2200001002 <#C1234|support> ${at}`);
    expect(daily).toContain('Digest #1 added');
    expect(daily).toContain(
      'at 4 points (¥0.04) a page. The next run costs at least 4 points (¥0.04) (1 × 4 points (¥0.04))',
    );
    expect(daily).toContain('the digest cap of 200 points');
    // Mondays only: the run covers the seven days since last Monday's, seven pages at the least.
    const weekly = await say(`digest add 2200001001 <#C1234|support> ${at} days:mon`);
    expect(weekly).toContain('Digest #2 added');
    expect(weekly).toContain('The next run costs at least 28 points (¥0.28) (7 × 4 points (¥0.04))');
    expect(h.sandbox?.stats().calls ?? 0).toBe(0);
  });

  it('resolves a registered shop alias to its owner id', async () => {
    h = await startPlatdeskHarness({ engine });
    await spendSettings(h.platdesk.store.settings).setShops(
      {
        shops: [{ alias: 'tea', ownerId: SANDBOX_FIXTURES.owners.small, shopId: null, channels: [] }],
        registeredOnly: false,
      },
      ADMIN,
    );
    expect(await say(`digest add tea here ${farTime(h.now())}`)).toContain('owner 2200001002');
    expect((await h.platdesk.store.digests.list())[0]).toMatchObject({
      ownerId: '2200001002',
      shopLabel: 'tea',
    });
  });

  it('run: admins only; posts in the channel with "page 1 of 2" progress, then the digest; the ledger has it', async () => {
    h = await startPlatdeskHarness({ engine });
    // `single`: today's one message (a new digest is threaded by default, tested in threads.test.ts).
    await say(`digest add ${SANDBOX_FIXTURES.owners.busy} <#C1234|support> ${farTime(h.now())} single`);
    expect(await say('digest run 1', AGENT)).toContain('Only platdesk admins');
    expect(h.calls()).toBe(0);

    const sent = await h.command('/orders', 'digest run 1', { userId: ADMIN });
    expect(sent.ms).toBeLessThan(3000);
    expect(textOf(await h.nextResponse(sent.responseUrlId))).toContain('progress is shown in <#C1234>');
    const done = textOf(await h.nextResponse(sent.responseUrlId, 10_000));
    expect(done).toContain('Digest posted in <#C1234>');
    expect(done).toContain('it cost 4 points');

    const inChannel = h.fake.callsTo('chat.postMessage').filter((c) => c.body.channel === 'C1234');
    const posts = inChannel.filter((c) => c.body.thread_ts === undefined);
    expect(posts).toHaveLength(1);
    // Issue 26: the digest's chart is the last reply in its thread.
    expect(JSON.stringify(inChannel.at(-1)?.body.blocks)).toContain('"slack_file"');
    expect(textOf(posts[0]?.body)).toContain('Preparing the orders digest');
    const updates = h.fake.callsTo('chat.update').map((c) => textOf(c.body));
    expect(updates[0]).toContain('page 1 of 2');
    expect(updates.at(-1)).toContain('Orders of the last 24 h');
    expect(updates.at(-1)).toContain('This digest cost 4 points');
    // No receiver data reached Slack (the sandbox masks names as 张**, phones as 138****1234,
    // addresses as 文三路**号**室; its provinces and cities are listed in fixtures/orders.ts).
    for (const call of h.fake.calls)
      expect(JSON.stringify(call.body)).not.toMatch(
        /[张王李赵刘陈杨黄周吴]\*\*|\d{3}\*{4}\d{4}|号\*\*室|浙江省|杭州市|西湖区|receiver_/,
      );
    expect(h.sandbox.stats().callsByOperation['paging-orders']).toBe(2);
    const ledger = await h.platdesk.store.ledger.list({ from: new Date(0), to: new Date(8.64e15) });
    expect(ledger.map((e) => [e.source, e.userId, e.points])).toEqual([
      ['digest', null, 2],
      ['digest', null, 2],
    ]);
    h.assertAllWithinLimits();
  });

  it('run over the cost cap: asks first; Run anyway is for admins and runs once', async () => {
    h = await startPlatdeskHarness({ engine, env: { PLAT_PRICES: 'paging-orders:1=2' } });
    await h.platdesk.store.settings.set(MAX_POINTS_SETTING, 1, ADMIN);
    await say(`digest add ${SANDBOX_FIXTURES.owners.small} here ${farTime(h.now())}`);
    const sent = await h.command('/orders', 'digest run 1', { userId: ADMIN });
    await h.nextResponse(sent.responseUrlId);
    const ask = await h.nextResponse(sent.responseUrlId);
    expect(textOf(ask)).toContain('over the cap of 1 point');
    expect(h.calls()).toBe(0);
    const button = (ask.blocks ?? [])
      .flatMap((b) => ('elements' in b ? (b.elements as { action_id?: string; value?: string }[]) : []))
      .find((e) => e.action_id === 'platdesk.digest.run_anyway');
    expect(button?.value).toBeDefined();

    const refused = await h.click('platdesk.digest.run_anyway', button?.value, { userId: AGENT });
    expect(textOf(await h.nextResponse(refused.responseUrlId))).toContain('Only platdesk admins');
    expect(h.calls()).toBe(0);

    const click = await h.click('platdesk.digest.run_anyway', button?.value, { userId: ADMIN });
    expect(textOf(await h.nextResponse(click.responseUrlId))).toContain('approved the cost');
    expect(textOf(await h.nextResponse(click.responseUrlId, 10_000))).toContain('Digest posted in <#C1234>');
    expect(h.sandbox.stats().callsByOperation['paging-orders']).toBe(1);

    const again = await h.click('platdesk.digest.run_anyway', button?.value, { userId: ADMIN });
    await h.nextResponse(again.responseUrlId);
    expect(textOf(await h.nextResponse(again.responseUrlId))).toContain('already approved or run');
    expect(h.sandbox.stats().callsByOperation['paging-orders']).toBe(1);
    h.assertAllWithinLimits();
  });

  it('run again the same day after the digest was posted: asks first stating the charge; Run again is for admins and single-use', async () => {
    h = await startPlatdeskHarness({ engine });
    // `single`: one message a run (a new digest is threaded by default).
    await say(`digest add ${SANDBOX_FIXTURES.owners.busy} <#C1234|support> ${farTime(h.now())} single`);
    const first = await h.command('/orders', 'digest run 1', { userId: ADMIN });
    await h.nextResponse(first.responseUrlId);
    expect(textOf(await h.nextResponse(first.responseUrlId, 10_000))).toContain('it cost 4 points');
    // Messages in the channel itself (each digest's chart is a reply in its thread).
    const channelPosts = () =>
      h?.fake
        .callsTo('chat.postMessage')
        .filter((c) => c.body.channel === 'C1234' && c.body.thread_ts === undefined) ?? [];
    expect(channelPosts()).toHaveLength(1);
    const callsAfterFirst = h.calls();

    // The same day: a question with the charge, no call, no second digest.
    const sent = await h.command('/orders', 'digest run 1', { userId: ADMIN });
    const ask = await h.nextResponse(sent.responseUrlId);
    const asked = textOf(ask);
    expect(asked).toContain("Today's digest #1 was already posted in <#C1234>");
    expect(asked).toContain('it cost 4 points (¥0.04)');
    expect(asked).toContain('costs about 4 points (¥0.04) more');
    expect(ask.text).toContain('costs about 4 points (¥0.04) more');
    const button = (ask.blocks ?? [])
      .flatMap((b) =>
        'elements' in b
          ? (b.elements as { action_id?: string; value?: string; text?: { text: string } }[])
          : [],
      )
      .find((e) => e.action_id === 'platdesk.digest.run_again');
    expect(button?.text?.text).toBe('Run again (~4 points)');
    await h.settle(100);
    expect(h.calls()).toBe(callsAfterFirst);
    expect(channelPosts()).toHaveLength(1);

    const refused = await h.click('platdesk.digest.run_again', button?.value, { userId: AGENT });
    expect(textOf(await h.nextResponse(refused.responseUrlId))).toContain('Only platdesk admins');
    await h.settle(100);
    expect(h.calls()).toBe(callsAfterFirst);

    const click = await h.click('platdesk.digest.run_again', button?.value, { userId: ADMIN });
    expect(textOf(await h.nextResponse(click.responseUrlId))).toContain('Running digest #1 now');
    expect(textOf(await h.nextResponse(click.responseUrlId, 10_000))).toContain('Digest posted in <#C1234>');
    expect(h.calls()).toBe(callsAfterFirst + 2);
    expect(channelPosts()).toHaveLength(2);

    // The same button again (a double click, a Slack retry): nothing more.
    const again = await h.click('platdesk.digest.run_again', button?.value, { userId: ADMIN });
    expect(textOf(await h.nextResponse(again.responseUrlId))).toContain('has run since this question');
    await h.settle(100);
    expect(h.calls()).toBe(callsAfterFirst + 2);
    expect(channelPosts()).toHaveLength(2);
    h.assertAllWithinLimits();
  });
});
