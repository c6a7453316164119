/**
 * Spend control through the real Bolt app (platdesk-harness: signed requests, a fake Slack Web
 * API, the in-process sandbox whose counter proves "no call" and "one call"): cached answers with
 * Refresh, refusals that name the admins, /platdesk usage and export from the ledger, admin-only
 * settings, and the user's own confirmation threshold.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ACTIONS } from '../../src/blocks/action-ids.js';
import { periodStarts } from '../../src/lookups/budgets.js';
import { ledgerCsv, reportRange } from '../../src/lookups/reports.js';
import { spendSettings } from '../../src/lookups/settings.js';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import { localDateOf } from '../../src/zoned-time.js';
import { buttonOf, confirmationOf, textOf, useHarness } from '../helpers/platdesk-harness.js';
import { SLACK } from '../helpers/slack-payloads.js';
import { ENGINES } from '../helpers/store-engines.js';
import { en } from '../helpers/words.js';

const { items, links, wwids } = SANDBOX_FIXTURES;
const DAY = 24 * 3_600_000;
const allTime = () => ({ from: new Date(0), to: new Date(Date.now() + 2 * DAY) });

describe.each(ENGINES)('spend control in Slack (%s store)', (engine) => {
  const settings = () => spendSettings(h().platdesk.store.settings);
  const ledger = () => h().platdesk.store.ledger;

  const h = useHarness({ engine, env: { PLAT_PRICES: 'get-shop-id=2,get-shop-info:1=10' } });
  beforeAll(async () => {
    // The ledger export goes to the admin's DM: the fake answers conversations.open with one.
    h().fake.setResponse('conversations.open', { channel: { id: SLACK.imChannelId } });
  });

  it('a cached answer says "From cache … no charge" and offers Refresh; Refresh makes one call', async () => {
    const { confirmation } = await h().ask('/item', items.basic);
    await h().confirm(confirmation);
    await h().settle();
    const before = h().calls();

    const sent = await h().command('/item', items.basic);
    const cached = await h().nextResponse(sent.responseUrlId);
    expect(textOf(cached)).toMatch(/From cache, .* old: no charge/);
    const refresh = buttonOf(cached, ACTIONS.refresh);
    expect(refresh.label).toBe('Refresh (1 quota call)');
    await h().settle(100);
    expect(h().calls()).toBe(before);

    const click = await h().click(ACTIONS.refresh, refresh.value, { label: refresh.label });
    expect(textOf(await h().nextResponse(click.responseUrlId))).toContain('Looking up');
    const answer = await h().nextResponse(click.responseUrlId);
    expect(textOf(answer)).toContain('Used 1 call of the item quota');
    expect(textOf(answer)).not.toContain('From cache');
    await h().settle();
    expect(h().calls()).toBe(before + 1);

    // The Refresh button is single-use like Confirm.
    const again = await h().click(ACTIONS.refresh, refresh.value);
    expect(textOf(await h().nextResponse(again.responseUrlId))).toContain('already used');
    await h().settle(100);
    expect(h().calls()).toBe(before + 1);
  });

  it('a refusal says why and names the admins to ask; nothing is called', async () => {
    const admin = await h().command('/platdesk', `access only <@${SLACK.secondUserId}|agent2>`, {
      userId: SLACK.adminId,
    });
    expect(textOf(await h().nextResponse(admin.responseUrlId))).toContain(
      'Only these may run charged lookups',
    );
    const before = h().calls();
    try {
      const sent = await h().command('/shop', `ww ${wwids.known}`);
      const refusal = textOf(await h().nextResponse(sent.responseUrlId));
      expect(refusal).toContain('not on the list');
      expect(refusal).toContain(`<@${SLACK.adminId}>`);
      expect(refusal).toContain('Nothing was sent or charged');
      await h().settle(100);
      expect(h().calls()).toBe(before);
    } finally {
      const reset = await h().command('/platdesk', 'access everyone', { userId: SLACK.adminId });
      await h().nextResponse(reset.responseUrlId);
    }
    expect((await settings().access()).mode).toBe('everyone');
  });

  it('a budget refusal states the figures and names the admins', async () => {
    const set = await h().command('/platdesk', `budget <@${SLACK.userId}> daily 5`, {
      userId: SLACK.adminId,
    });
    await h().nextResponse(set.responseUrlId);
    const before = h().calls();
    try {
      const sent = await h().command('/shop', links.firstMarketplace);
      const refusal = textOf(await h().nextResponse(sent.responseUrlId));
      expect(refusal).toContain('about 10 points');
      expect(refusal).toContain('your daily cap: 0 of 5 points used');
      expect(refusal).toContain(`<@${SLACK.adminId}>`);
      // Admins hear of the cap by DM.
      const alert = await h().fake.waitFor('chat.postMessage', (c) => c.body.channel === SLACK.adminId);
      expect(String(alert.body.text)).toContain(`<@${SLACK.userId}>'s daily cap refused a lookup`);
      await h().settle(100);
      expect(h().calls()).toBe(before);
    } finally {
      const reset = await h().command('/platdesk', `budget <@${SLACK.userId}> daily off`, {
        userId: SLACK.adminId,
      });
      await h().nextResponse(reset.responseUrlId);
    }
  });

  it("/platdesk usage shows the user's own spend from the ledger", async () => {
    const before = await ledger().totals({ ...allTime(), userId: SLACK.userId });
    const { confirmation } = await h().ask('/shop', `ww ${wwids.known}`);
    await h().confirm(confirmation);
    // A call the service answered without charging (a system error, code 200) is still a call
    // that reached it: a ledger row of 0 points, counted among the calls.
    h().sandbox.setFaults([{ kind: 'code', code: 200, count: 1 }]);
    try {
      const refused = await h().ask('/shop', `ww ${wwids.unknown}`);
      await h().confirm(refused.confirmation);
    } finally {
      h().sandbox.setFaults([]);
    }
    const mine = await ledger().totals({ ...allTime(), userId: SLACK.userId });
    expect(mine.points).toBe(2);
    expect(mine.calls).toBe(before.calls + 2);
    const rows = await ledger().list({ ...allTime(), userId: SLACK.userId, limit: 2 });
    expect(rows.map((r) => [r.operation, r.code, r.points])).toEqual([
      ['get-shop-id', 200, 0],
      ['get-shop-id', 0, 2],
    ]);

    const sent = await h().command('/platdesk', 'usage');
    const report = textOf(await h().nextResponse(sent.responseUrlId));
    expect(report).toContain(
      `Spend of <@${SLACK.userId}> today: *${en.points(mine.points)}* in ${mine.calls} calls (charged or not),`,
    );
    expect(report).toContain(`${mine.quotaCalls} calls of the item quota`);
    expect(report).toContain('Shop id');
    // Issue 10, point 18: a personal report has no "By user" heading, and its period is stated in
    // the budget zone the caps count in (Asia/Shanghai by default), not in UTC.
    expect(report).not.toContain('By user');
    const { day, nextDay } = periodStarts(h().now(), 'Asia/Shanghai');
    const date = (d: Date) => localDateOf(d.getTime(), 'Asia/Shanghai');
    expect(report).toContain(`From the ledger, ${date(day)} 00:00 to ${date(nextDay)} 00:00 (Beijing time).`);
    expect(report).not.toContain('UTC');
    // Another user's spend is their own.
    const other = await h().command('/platdesk', 'usage', { userId: SLACK.secondUserId });
    expect(textOf(await h().nextResponse(other.responseUrlId))).toContain(`*${en.points(0)}*`);
  });

  it('/platdesk export month (admin) uploads the month of the ledger as CSV to the admin', async () => {
    const uploadsBefore = h().fake.callsTo('file_upload').length;
    const sent = await h().command('/platdesk', 'export month', { userId: SLACK.adminId });
    const reply = textOf(await h().nextResponse(sent.responseUrlId));

    const range = reportRange('month', h().now(), (await await settings().budgets()).timezone);
    const rows = (await ledger().list(range)).reverse();
    expect(rows.length).toBeGreaterThanOrEqual(3);
    expect(reply).toContain(`(${rows.length} rows) is in your direct messages`);

    expect(h().fake.callsTo('conversations.open').at(-1)?.body.users).toBe(SLACK.adminId);
    const url = await h().fake.waitFor('files.getUploadURLExternal');
    expect(url.body.filename).toMatch(/^platdesk-ledger-\d{4}-\d{2}\.csv$/);
    const uploads = h().fake.callsTo('file_upload');
    expect(uploads).toHaveLength(uploadsBefore + 1);
    const csv = uploads.at(-1)?.bytes?.toString('utf8') ?? '';
    expect(csv).toBe(ledgerCsv(rows));
    const lines = csv.trimEnd().split('\r\n');
    expect(lines).toHaveLength(rows.length + 1);
    expect(lines.slice(1).map((l) => l.split(',')[12])).toEqual(rows.map((r) => r.pendingId ?? ''));
    const complete = await h().fake.waitFor('files.completeUploadExternal');
    expect(complete.body.channel_id).toBe(SLACK.imChannelId);
  });

  it('/platdesk export and budget are denied to a non-admin and change nothing', async () => {
    const budgetsBefore = await await settings().budgets();
    const auditBefore = (await h().platdesk.store.audit.list(100)).length;
    const uploadsBefore = h().fake.callsTo('file_upload').length;
    for (const text of ['budget user daily 5', 'budget workspace monthly 1', 'export month']) {
      const sent = await h().command('/platdesk', text);
      expect(textOf(await h().nextResponse(sent.responseUrlId))).toContain('is for platdesk admins');
    }
    expect(await settings().budgets()).toEqual(budgetsBefore);
    expect(await h().platdesk.store.audit.list(100)).toHaveLength(auditBefore);
    expect(h().fake.callsTo('file_upload')).toHaveLength(uploadsBefore);
  });

  it('/platdesk confirm under 50, then a cheap lookup runs without a confirmation: one call', async () => {
    const pref = await h().command('/platdesk', 'confirm under 50');
    expect(textOf(await h().nextResponse(pref.responseUrlId))).toContain(
      'under 50 points run without asking',
    );
    await h().settle();
    const before = h().calls();
    try {
      const sent = await h().command('/shop', `ww ${wwids.unknown}`);
      expect(textOf(await h().nextResponse(sent.responseUrlId))).toContain('Looking up');
      const answer = await h().nextResponse(sent.responseUrlId);
      expect(() => confirmationOf(answer)).toThrow();
      expect(textOf(answer)).toContain('Charged 2 points');
      await h().settle();
      expect(h().calls()).toBe(before + 1);

      // Over the threshold still asks: get-shop-info is quoted 10, a threshold of 5 is below it.
      const lower = await h().command('/platdesk', 'confirm under 5');
      await h().nextResponse(lower.responseUrlId);
      const { confirmation } = await h().ask('/shop', links.brandedStore);
      expect(confirmation.confirm.label).toBe('Confirm (10 points)');
      expect(h().calls()).toBe(before + 1);
    } finally {
      const reset = await h().command('/platdesk', 'confirm always');
      await h().nextResponse(reset.responseUrlId);
    }
  });

  it('every message fits Slack limits', async () => {
    h().assertAllWithinLimits();
  });
});
