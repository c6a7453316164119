/**
 * The admins' spend chart on the App Home (issue 26 point 3), through the real Bolt app, the plat
 * sandbox and the local Slack-compatible server: app_home_opened → the chart rendered from the
 * ledger (points per day and operation, the daily cap), uploaded through
 * files.getUploadURLExternal / files.completeUploadExternal, and views.publish shows it with a
 * slack_file image block naming the uploaded file; opened again with the same ledger, the file is
 * reused (no render, no upload); after a new charge, it is rendered and uploaded again.
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

  async function openHome(userId: string): Promise<SlackCall> {
    const before = h().fake.callsTo('views.publish').length;
    const res = await postEvent(
      h().eventsUrl,
      SIGNING_SECRET,
      eventCallback(appHomeOpened(userId), { eventId: `EvSPEND${++seq}` }),
    );
    expect(res.status).toBe(200);
    await h().fake.waitFor('views.publish', () => h().fake.callsTo('views.publish').length > before, 10_000);
    return h().fake.callsTo('views.publish')[before] as SlackCall;
  }

  const imagesOf = (call: SlackCall) =>
    ((call.body.view as { blocks: Json[] }).blocks ?? []).filter((b) => b.type === 'image');

  it('an admin sees the chart of the ledger, uploaded and shown by its file id; a user sees none', async () => {
    const uploadsBefore = h().fake.callsTo('file_upload').length;
    const call = await openHome(SLACK.adminId);
    expect(blockKitProblems(call.body.view)).toEqual([]);
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

    expect(imagesOf(await openHome(SLACK.userId))).toHaveLength(0);
  });

  it('opened again with the same ledger: the same file, nothing rendered or uploaded', async () => {
    const first = imagesOf(await openHome(SLACK.adminId))[0];
    const uploads = h().fake.callsTo('files.getUploadURLExternal').length;
    const again = imagesOf(await openHome(SLACK.adminId))[0];
    expect(h().fake.callsTo('files.getUploadURLExternal')).toHaveLength(uploads);
    expect(again?.slack_file).toEqual(first?.slack_file);
  });

  it('a new charge changes the chart: rendered and uploaded once more', async () => {
    const before = imagesOf(await openHome(SLACK.adminId))[0];
    const uploads = h().fake.callsTo('files.getUploadURLExternal').length;
    const { confirmation } = await h().ask('/orders', owners.small);
    await h().confirm(confirmation);
    const after = imagesOf(await openHome(SLACK.adminId))[0];
    expect(h().fake.callsTo('files.getUploadURLExternal')).toHaveLength(uploads + 1);
    expect(after?.slack_file).not.toEqual(before?.slack_file);
  });
});
