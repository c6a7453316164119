/**
 * The admins' spend chart on the App Home (issue 26 point 3), through the real Bolt app, the plat
 * sandbox and the local Slack-compatible server: app_home_opened → the Home published at once
 * without waiting for the chart; the chart rendered from the ledger (points per day and operation,
 * the daily cap), uploaded through files.getUploadURLExternal / files.completeUploadExternal, and a
 * second views.publish shows it with a slack_file image block naming the uploaded file; opened
 * again with the same ledger, the file is reused (one publish, no render, no upload); after a new
 * charge, it is rendered and uploaded again; a late chart never overwrites a newer Home.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { spendChartData } from '../../src/charts/spend-days.js';
import { usageReport } from '../../src/lookups/reports.js';
import { budgetsSchema } from '../../src/lookups/settings.js';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import { blockKitProblems } from '../helpers/block-kit/check.js';
import { SIGNING_SECRET, useHarness } from '../helpers/platdesk-harness.js';
import { decodePng } from '../helpers/png.js';
import type { SlackCall } from '../helpers/slack-api-server.js';
import { postEvent } from '../helpers/slack-http.js';
import { appHomeOpened, eventCallback, SLACK } from '../helpers/slack-payloads.js';

const { items, owners } = SANDBOX_FIXTURES;
type Json = Record<string, unknown>;

describe('App Home spend chart', () => {
  let seq = 0;
  const h = useHarness({ env: { PLAT_PRICES: 'paging-orders:1=2' } });

  beforeAll(async () => {
    await h().platdesk.store.settings.set(
      'budgets',
      budgetsSchema.parse({ workspace: { daily: 50 } }),
      SLACK.adminId,
    );
    for (const [command, text] of [
      ['/item', items.basic],
      ['/orders', owners.busy],
    ] as const) {
      const { confirmation } = await h().ask(command, text);
      await h().confirm(confirmation);
    }
  });

  const publishes = () => h().fake.callsTo('views.publish');

  /** Opens the Home; answers the views.publish calls it makes, once `count` of them arrived. */
  async function openHome(userId: string, count = 1): Promise<SlackCall[]> {
    const before = publishes().length;
    const res = await postEvent(
      h().eventsUrl,
      SIGNING_SECRET,
      eventCallback(appHomeOpened(userId), { eventId: `EvSPEND${++seq}` }),
    );
    expect(res.status).toBe(200);
    await h().fake.waitFor('views.publish', () => publishes().length >= before + count, 20_000);
    return publishes().slice(before);
  }

  /** Lets a Home's late chart publish (if any) arrive before counting calls. */
  const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

  const imagesOf = (call: SlackCall) =>
    ((call.body.view as { blocks: Json[] }).blocks ?? []).filter((b) => b.type === 'image');

  it('an admin sees the Home at once, then again with the chart of the ledger, uploaded and shown by its file id; a user sees none', async () => {
    const uploadsBefore = h().fake.callsTo('file_upload').length;
    const completesBefore = h().fake.callsTo('files.completeUploadExternal').length;
    // A slow upload: the first publish must not wait for it.
    const delay = 1500;
    h().fake.setDelay('files.completeUploadExternal', delay);
    const [first, call] = (await openHome(SLACK.adminId, 2)) as [SlackCall, SlackCall];
    const completes = h().fake.callsTo('files.completeUploadExternal').slice(completesBefore);
    expect(completes).toHaveLength(1);
    const completedAt = (completes[0] as SlackCall).at + delay;
    expect(first.at).toBeLessThan(completedAt);
    expect(imagesOf(first)).toHaveLength(0);
    expect(call.at).toBeGreaterThanOrEqual(completedAt);
    h().fake.setDelay('files.completeUploadExternal', 0);
    expect(blockKitProblems(first.body.view)).toEqual([]);
    expect(blockKitProblems(call.body.view)).toEqual([]);
    // The same Home otherwise: the second publish adds the chart and nothing else.
    const withoutImages = (c: SlackCall) =>
      (c.body.view as { blocks: Json[] }).blocks.filter((b) => b.type !== 'image');
    expect(withoutImages(call)).toEqual(withoutImages(first));
    const uploads = h().fake.callsTo('file_upload').slice(uploadsBefore);
    expect(uploads).toHaveLength(1);
    const upload = uploads[0] as SlackCall;
    const complete = h().fake.callsTo('files.completeUploadExternal').at(-1);
    expect(JSON.stringify(complete?.body.files)).toContain(String(upload.id));
    expect(complete?.body.channel_id).toBeUndefined();
    const png = decodePng(upload.bytes ?? Buffer.alloc(0));
    expect(png.width).toBe(1000);
    expect(png.height).toBeGreaterThan(200);

    const [image, ...others] = imagesOf(call);
    expect(others).toHaveLength(0);
    expect(image).toMatchObject({ type: 'image', slack_file: { id: upload.id } });
    // The alt text states the ledger's figures: the points spent over the 30 days and the cap.
    const store = h().platdesk.store;
    const report = await usageReport(store, {
      period: 'last30',
      userId: null,
      now: new Date(),
      timeZone: 'Asia/Shanghai',
    });
    const data = spendChartData(report, 50);
    const total = data.perDay.reduce((n, p) => n + p, 0);
    expect(total).toBeGreaterThan(0);
    expect(total).toBe(report.totals.points);
    expect(String(image?.alt_text)).toContain(`${total} points in all`);
    expect(String(image?.alt_text)).toContain('daily cap 50');

    const member = await openHome(SLACK.userId);
    await settle();
    expect(publishes().at(-1)).toBe(member[0]);
    expect(imagesOf(member[0] as SlackCall)).toHaveLength(0);
  });

  it('opened again with the same ledger: one publish with the same file, nothing rendered or uploaded', async () => {
    const first = imagesOf((await openHome(SLACK.adminId))[0] as SlackCall)[0];
    expect(first?.slack_file).toBeDefined();
    const uploads = h().fake.callsTo('files.getUploadURLExternal').length;
    const calls = await openHome(SLACK.adminId);
    await settle();
    expect(publishes().at(-1)).toBe(calls[0]);
    const again = imagesOf(calls[0] as SlackCall)[0];
    expect(h().fake.callsTo('files.getUploadURLExternal')).toHaveLength(uploads);
    expect(again?.slack_file).toEqual(first?.slack_file);
  });

  it('a new charge changes the chart: the Home at once without the old chart, then rendered and uploaded once more', async () => {
    const before = imagesOf((await openHome(SLACK.adminId))[0] as SlackCall)[0];
    expect(before?.slack_file).toBeDefined();
    const uploads = h().fake.callsTo('files.getUploadURLExternal').length;
    const { confirmation } = await h().ask('/orders', owners.small);
    await h().confirm(confirmation);
    const [first, second] = await openHome(SLACK.adminId, 2);
    // The old chart no longer shows the figures: not shown as if it did.
    expect(imagesOf(first as SlackCall)).toHaveLength(0);
    const after = imagesOf(second as SlackCall)[0];
    expect(h().fake.callsTo('files.getUploadURLExternal')).toHaveLength(uploads + 1);
    expect(after?.slack_file).not.toEqual(before?.slack_file);
  });

  it('a late chart never overwrites a newer Home; a failed chart leaves the first publish as it is', async () => {
    // A newer publish (a later open) happens while the changed chart is still uploading.
    const delay = 1500;
    h().fake.setDelay('files.completeUploadExternal', delay);
    const { confirmation } = await h().ask('/orders', owners.busy);
    await h().confirm(confirmation);
    const uploads = h().fake.callsTo('files.getUploadURLExternal').length;
    const [older] = await openHome(SLACK.adminId);
    const [newer] = await openHome(SLACK.adminId);
    expect(imagesOf(older as SlackCall)).toHaveLength(0);
    expect(imagesOf(newer as SlackCall)).toHaveLength(0);
    // Both wait on the one chart being made; only the newest publish gets it.
    const [withChart] = await (async () => {
      const count = publishes().length;
      await h().fake.waitFor('views.publish', () => publishes().length > count, 20_000);
      return publishes().slice(count);
    })();
    await settle();
    expect(publishes().at(-1)).toBe(withChart);
    expect(imagesOf(withChart as SlackCall)).toHaveLength(1);
    expect(h().fake.callsTo('files.getUploadURLExternal')).toHaveLength(uploads + 1);

    // The upload fails: the Home published at once stays, nothing more is published.
    h().fake.setDelay('files.completeUploadExternal', 0);
    const again = await h().ask('/orders', owners.small);
    await h().confirm(again.confirmation);
    h().fake.failNext('files.getUploadURLExternal', { error: 'internal_error' });
    const [alone] = await openHome(SLACK.adminId);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(publishes().at(-1)).toBe(alone);
    expect(imagesOf(alone as SlackCall)).toHaveLength(0);
  });
});
