/**
 * platdesk in Chinese, end to end through the REAL Bolt app (issue 14): a person whose Slack
 * language is zh-CN (users.info include_locale, answered by the fake Slack Web API) reads Chinese
 * in help, bad input, the confirmation, the answer and its pages, a refusal, usage, the orders form
 * and the App Home; a channel set to zh-CN gets its digest in Chinese; `/platdesk language en`
 * switches back; Slack failing to answer users.info still answers, in the workspace default.
 */
import { describe, expect, it } from 'vitest';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import {
  buttonOf,
  confirmationOf,
  type PlatdeskHarness,
  SIGNING_SECRET,
  type SlackMessage,
  startPlatdeskHarness,
  textOf,
  useHarness,
} from '../helpers/platdesk-harness.js';
import type { SlackCall } from '../helpers/slack-api-server.js';
import { postEvent } from '../helpers/slack-http.js';
import { appHomeOpened, eventCallback, SLACK } from '../helpers/slack-payloads.js';

const { items, owners } = SANDBOX_FIXTURES;
const ZH_USER = SLACK.userId;
const HAN = /\p{Script=Han}/u;

/** Sends a command and returns its first answer. */
async function say(
  h: PlatdeskHarness,
  name: string,
  text: string,
  userId: string = ZH_USER,
): Promise<SlackMessage> {
  const sent = await h.command(name, text, { userId });
  expect(sent.status).toBe(200);
  expect(sent.ms).toBeLessThan(3000);
  return h.nextResponse(sent.responseUrlId);
}

describe('a zh-CN user', () => {
  const h = useHarness({ env: { PLAT_PRICES: 'paging-orders:1=2' } });
  let seq = 0;

  it('Slack says zh-CN: help comes in Chinese (帮助 too), after one users.info with include_locale', async () => {
    h().fake.setLocale(ZH_USER, 'zh-CN');
    const help = textOf(await say(h(), '/item', 'help'));
    expect(help).toContain('/item 使用说明');
    expect(help).toContain('每次收费查询都会先请你确认费用');
    expect(help).not.toContain('How to use');
    const info = h().fake.callsTo('users.info');
    expect(info.length).toBe(1);
    expect(info[0]?.body).toMatchObject({ user: ZH_USER, include_locale: 'true' });
    // The locale is cached: a second request does not ask Slack again.
    expect(textOf(await say(h(), '/orders', '帮助'))).toContain('/orders 使用说明');
    expect(h().fake.callsTo('users.info').length).toBe(1);
  });

  it('bad Chinese input gets the Chinese usage line and what was wrong, and costs nothing', async () => {
    const before = h().calls();
    const answer = await say(h(), '/orders', `${owners.busy} 每页:101 旗:黑`);
    const said = textOf(answer);
    expect(answer.response_type).toBe('ephemeral');
    expect(said).toContain('无法查询');
    expect(said).toContain('每页数量须为 1 到 100');
    expect(said).toContain('旗帜须为 1 到 5');
    expect(said).toContain('用法：\n`/orders &lt;商家 ID&gt;');
    expect(said).toContain('未发送任何请求，未产生任何费用');
    expect(() => confirmationOf(answer)).toThrow();
    await h().settle(50);
    expect(h().calls()).toBe(before);
  });

  let page: SlackMessage;

  it('Chinese keywords make the request: a Chinese confirmation, then the answer in Chinese', async () => {
    const before = h().calls();
    const { confirmation } = await h().ask('/orders', `${owners.busy} 页：2 每页:50`, { userId: ZH_USER });
    expect(confirmation.text).toContain('订单（增强版）');
    expect(confirmation.text).toContain(
      `订单（增强版）：商家 ${owners.busy}，第 2 页（每页 50 单），约 2 点（¥0.02）。`,
    );
    expect(confirmation.confirm.label).toBe('确认（2 点）');
    expect(confirmation.cancel.label).toBe('取消');
    expect(confirmation.text).toContain('确认之前不会产生任何费用');
    expect(h().calls()).toBe(before);

    const { progress, answer } = await h().confirm(confirmation, { userId: ZH_USER });
    expect(progress.text).toContain('正在查询商家');
    page = answer;
    const said = textOf(answer);
    expect(said).toContain(`${owners.busy} 的订单`);
    expect(said).toMatch(/第 2 \/ \d+ 页，共 [\d,]+ 单/);
    expect(said).toContain('已扣费 2 点（¥0.02）');
    expect(said).toMatch(/待发货|已发货待签收|已签收/);
    // One date style, 北京时间 by name, no space after the full-width bracket (issue 35).
    expect(said).toMatch(/\d{4}年\d{1,2}月\d{1,2}日 \d\d:\d\d（北京时间）成交/);
    expect(buttonOf(answer, 'platdesk.orders.next').label).toBe('下一页 ▶（2 点）');
    expect(buttonOf(answer, 'platdesk.orders.prev').label).toBe('◀ 上一页（2 点）');
    await h().settle();
    expect(h().calls()).toBe(before + 1);
  });

  it('the next page comes in Chinese too', async () => {
    const next = buttonOf(page, 'platdesk.orders.next');
    const click = await h().click(next.actionId, next.value, { userId: ZH_USER });
    expect(textOf(await h().nextResponse(click.responseUrlId))).toContain('正在查询');
    expect(textOf(await h().nextResponse(click.responseUrlId))).toMatch(/第 3 \/ \d+ 页/);
  });

  it('an item with prices (价格): the answer and its charge note in Chinese', async () => {
    const { confirmation } = await h().ask('/item', `${items.basic} 价格`, { userId: ZH_USER });
    expect(confirmation.text).toContain('商品详情');
    expect(confirmation.confirm.label).toBe('确认（商品额度 2 次）');
    const { answer } = await h().confirm(confirmation, { userId: ZH_USER });
    const said = textOf(answer);
    // A label in a Chinese line is plain: bold would need spaces (issue 35).
    expect(said).toContain('商品 ID：');
    expect(said).not.toContain('*商品 ID');
    expect(said).toContain('已使用商品额度 2 次');
    expect(buttonOf(answer, 'platdesk.item.prices').label).toBe('价格');
  });

  it('a refusal (over a cap) is Chinese and costs nothing', async () => {
    const admin = await say(h(), '/platdesk', 'budget user daily 1', SLACK.adminId);
    expect(textOf(admin)).toContain('Each user: daily 1 points');
    const before = h().calls();
    const refused = textOf(await say(h(), '/orders', owners.busy));
    expect(refused).toContain('未查询');
    expect(refused).toContain('将超出你的每日上限');
    expect(refused).toContain('未发送任何请求，未产生任何费用');
    await h().settle(50);
    expect(h().calls()).toBe(before);
    await say(h(), '/platdesk', 'budget user daily off', SLACK.adminId);
  });

  it('/platdesk usage answers in Chinese', async () => {
    const said = textOf(await say(h(), '/platdesk', 'usage'));
    expect(said).toContain('今天的扣费');
    expect(said).toContain(`<@${ZH_USER}>今天共扣费`);
    expect(said).toContain('*按接口*');
  });

  it('the /orders form is Chinese', async () => {
    const before = h().fake.callsTo('views.open').length;
    await h().command('/orders', '', { userId: ZH_USER });
    await h().fake.waitFor('views.open', () => h().fake.callsTo('views.open').length > before);
    const view = h().fake.callsTo('views.open')[before]?.body.view as Record<string, { text?: string }>;
    expect(view.title?.text).toBe('订单');
    expect(view.submit?.text).toBe('继续');
    const said = textOf(view);
    expect(said).toContain('商家 ID');
    expect(said).toContain('每页订单数');
    expect(said).toContain('1 红');
  });

  async function openHome(userId: string): Promise<string> {
    const before = h().fake.callsTo('views.publish').length;
    const res = await postEvent(
      h().eventsUrl,
      SIGNING_SECRET,
      eventCallback(appHomeOpened(userId), { eventId: `EvI18N${++seq}` }),
    );
    expect(res.status).toBe(200);
    await h().fake.waitFor('views.publish', () => h().fake.callsTo('views.publish').length > before, 5000);
    return textOf(
      (h().fake.callsTo('views.publish')[before] as SlackCall).body.view as Record<string, unknown>,
    );
  }

  it('the App Home is Chinese, says which language and offers the others', async () => {
    const home = await openHome(ZH_USER);
    expect(home).toContain('你的扣费');
    expect(home).toContain('语言：中文（按你的 Slack 语言或工作区默认语言）');
    expect(home).toContain(`商家 ${owners.busy} 的订单，第 2 页（每页 50 单）`);
    expect(home).not.toContain('Your spend');
  });

  it('the App Home language buttons switch the person to English and back to automatic', async () => {
    const before = h().fake.callsTo('views.publish').length;
    await h().click('platdesk.home.language.en', 'en', { userId: ZH_USER });
    await h().fake.waitFor('views.publish', () => h().fake.callsTo('views.publish').length > before, 5000);
    const english = textOf(
      (h().fake.callsTo('views.publish')[before] as SlackCall).body.view as Record<string, unknown>,
    );
    expect(english).toContain('*Language*: English (your choice)');
    expect(textOf(await say(h(), '/item', 'help'))).toContain('How to use /item');
    await h().click('platdesk.home.language.auto', 'auto', { userId: ZH_USER });
    await h().fake.waitFor(
      'views.publish',
      () => h().fake.callsTo('views.publish').length > before + 1,
      5000,
    );
    expect(textOf(await say(h(), '/item', 'help'))).toContain('/item 使用说明');
  });

  it('/platdesk language en switches the person back to English, and says so in English', async () => {
    const switched = textOf(await say(h(), '/platdesk', 'language en'));
    expect(switched).toContain('platdesk speaks English to you (your choice)');
    expect(textOf(await say(h(), '/item', 'help'))).toContain('How to use /item');
    expect(textOf(await say(h(), '/platdesk', 'language zh-CN'))).toContain(
      'platdesk 对你使用中文（你的选择）',
    );
    expect(textOf(await say(h(), '/platdesk', 'language auto'))).toContain('platdesk 按你的 Slack 语言');
    expect(textOf(await say(h(), '/platdesk', 'language 法语'))).toContain('无法理解');
  });

  it('only admins set a channel or the workspace language', async () => {
    expect(textOf(await say(h(), '/platdesk', 'language workspace zh-CN'))).toContain(
      '仅限 platdesk 管理员使用',
    );
    expect(textOf(await say(h(), '/platdesk', 'language <#C7777|ops> zh-CN'))).toContain(
      '仅限 platdesk 管理员使用',
    );
    const set = textOf(await say(h(), '/platdesk', 'language <#C7777|ops> zh-CN', SLACK.adminId));
    expect(set).toContain(
      'Messages to <#C7777> (digests, unfurls, answers in threads) are in Chinese (中文).',
    );
  });

  it('an English user in the same workspace keeps English', async () => {
    expect(textOf(await say(h(), '/item', 'help', SLACK.secondUserId))).toContain('How to use /item');
  });
});

describe("Slack's users.info failing", () => {
  const h = useHarness();

  it('still answers, in the workspace default (English)', async () => {
    h().fake.failNext('users.info', { error: 'user_not_found' });
    const answer = await say(h(), '/item', 'help', 'UFAIL001');
    expect(textOf(answer)).toContain('How to use /item');
    expect(h().fake.callsTo('users.info').length).toBe(1);
    expect(h().logs().join('\n')).toContain('users.info failed');
  });

  it('a slow users.info does not hold the answer for long', async () => {
    h().fake.setDelay('users.info', 5_000);
    const started = Date.now();
    const answer = await say(h(), '/item', 'help', 'USLOW001');
    expect(textOf(answer)).toContain('How to use /item');
    expect(Date.now() - started).toBeLessThan(4_000);
    h().fake.reset();
  });
});

describe('PLATDESK_LOCALE=zh-CN: the workspace default', () => {
  const h = useHarness({ env: { PLATDESK_LOCALE: 'zh-CN' } });

  it('answers in Chinese when Slack cannot be asked', async () => {
    h().fake.failNext('users.info', { error: 'ratelimited' });
    expect(textOf(await say(h(), '/item', 'help', 'UFAIL002'))).toContain('/item 使用说明');
  });

  it("a person's Slack language still comes first", async () => {
    h().fake.setLocale('UENG0001', 'en-GB');
    expect(textOf(await say(h(), '/item', 'help', 'UENG0001'))).toContain('How to use /item');
  });

  it('an admin can set the workspace default back to English', async () => {
    h().fake.setLocale(SLACK.adminId, 'ja-JP');
    const set = textOf(await say(h(), '/platdesk', 'language workspace en', SLACK.adminId));
    expect(set).toContain('The workspace default is English');
    expect(textOf(await say(h(), '/item', 'help', 'UFAIL003'))).toContain('How to use /item');
  });
});

describe('a channel set to zh-CN', () => {
  it('gets its digest in Chinese, while the admin who ran it reads English', async () => {
    const h = await startPlatdeskHarness();
    try {
      const at = `${String((new Date(h.now().getTime() + 20 * 3_600_000).getUTCHours() + 8) % 24).padStart(2, '0')}:00`;
      const added = textOf(
        await say(h, '/orders', `digest add 2200001002 <#C1234|support> ${at} lang:zh-CN`, SLACK.adminId),
      );
      expect(added).toContain('Digest #1 added');
      const bad = textOf(
        await say(h, '/orders', `digest add 2200001002 <#C1234|support> ${at} 语言:法语`, SLACK.adminId),
      );
      expect(bad).toContain('is not a language platdesk speaks');

      const sent = await h.command('/orders', 'digest run 1', { userId: SLACK.adminId });
      expect(textOf(await h.nextResponse(sent.responseUrlId))).toContain('progress is shown in <#C1234>');
      expect(textOf(await h.nextResponse(sent.responseUrlId, 10_000))).toContain('Digest posted in <#C1234>');

      const posts = h.fake.callsTo('chat.postMessage').filter((c) => c.body.channel === 'C1234');
      expect(textOf(posts[0]?.body)).toContain('正在准备');
      const digest = textOf(h.fake.callsTo('chat.update').at(-1)?.body);
      expect(digest).toContain('最近 24 小时的订单 · 2200001002');
      expect(digest).toContain('*订单数*');
      expect(digest).toContain('*按状态*');
      expect(digest).toContain('本次汇总扣费');
      expect(digest).toContain('不含收货人姓名、电话和地址');
      expect(digest).not.toMatch(/Orders of the last|This digest cost/);
      expect(digest).toMatch(HAN);
    } finally {
      await h.close();
    }
  });
});
