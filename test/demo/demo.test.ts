/**
 * `npm run demo` in a real browser: Debian's chromium (installed by .ci/run) driven by
 * puppeteer-core through the demo page, which reaches the REAL app only with signed requests and
 * shows only what the app sent through the Web API and response_urls. The steps are docs/demo.md's
 * own table, row by row, in English and in Chinese: a row with no step here, or a step the page
 * cannot draw (window.demoUnknown: a block, element, emoji or chunk it does not know, an image it
 * cannot load), fails. Along the way the page's drawing is checked against what the app sent:
 * tables with their column settings, images by slack_file, files, Work Object cards and panels,
 * modals and the App Home; a streamed reply (the next issues' answers) is drawn too.
 *
 * DEMO_SCREENSHOTS=<dir> (`npm run demo:screenshots`) saves the README's and docs' screenshots.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WebClient } from '@slack/web-api';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Demo, startDemo } from '../../demo/index.js';
import { ACTIONS } from '../../src/blocks/action-ids.js';
import { type Words, wordsFor } from '../../src/blocks/i18n/words.js';
import { SANDBOX_FIXTURES } from '../../src/sandbox/fixtures.js';
import { launchChromium } from '../helpers/chromium.js';

const SHOTS = process.env.DEMO_SCREENSHOTS;
const ROOT = new URL('../../', import.meta.url);
/** The item's title in the sandbox (fixtures/items.ts), shown in the answer. */
const ITEM_TITLE = '纯棉短袖T恤男夏季宽松圆领半袖上衣';
const { owners, orderCounts } = SANDBOX_FIXTURES;

let browser: Browser;
let demo: Demo | null = null;
let page: Page | null = null;

beforeAll(async () => {
  // A screenshot in Chinese (or with emoji) drawn without the fonts shows boxes: refuse to save one.
  if (SHOTS) {
    const fonts = [
      [':lang=zh', 'fonts-noto-cjk'],
      [':charset=1f4b8', 'fonts-noto-color-emoji'],
    ] as const;
    for (const [query, pkg] of fonts)
      expect(execFileSync('fc-list', [query, 'family']).toString().trim(), `apt-get install ${pkg}`).not.toBe(
        '',
      );
  }
  browser = await launchChromium();
}, 30_000);

afterEach(async () => {
  await page?.close();
  page = null;
  await demo?.stop();
  demo = null;
});

afterAll(async () => {
  await browser?.close();
});

// ---------------------------------------------------------------------------------------------
// docs/demo.md's steps

/** The first cell of each row of docs/demo.md's "Try | What happens" table. */
function demoSteps(): string[] {
  const text = readFileSync(new URL('docs/demo.md', ROOT), 'utf8');
  const start = text.indexOf('| Try | What happens |');
  const rows = text
    .slice(start)
    .split('\n')
    .slice(2)
    .filter((l) => l.startsWith('|'));
  return rows.map((r) => r.split('|')[1]?.trim() ?? '');
}

/** A step's name: the first command (`…`) or button (**…**) its row names. */
const stepName = (cell: string) => /`([^`]+)`|\*\*([^*]+)\*\*/.exec(cell)?.slice(1).find(Boolean) ?? cell;

interface Ctx {
  p: Page;
  demo: Demo;
  w: Words;
  locale: 'en' | 'zh-CN';
}

const calls = (ctx: Ctx) => ctx.demo.platdesk.sandbox?.stats().calls ?? -1;
const PANE = "document.getElementById('conversation').innerText";

async function waitForText(p: Page, text: string, where = PANE, timeout = 20_000): Promise<void> {
  await p.waitForFunction(`(${where}).includes(${JSON.stringify(text)})`, { timeout });
}

async function say(p: Page, line: string): Promise<void> {
  await p.click('#composer');
  await p.type('#composer', line);
  await p.keyboard.press('Enter');
}

/** Clicks the newest rendered button with that action_id (within `scope`). */
async function click(p: Page, actionId: string, scope = '#conversation'): Promise<void> {
  const selector = `${scope} button[data-action-id="${actionId}"]`;
  await p.waitForSelector(selector, { timeout: 20_000 });
  const buttons = await p.$$(selector);
  await buttons.at(-1)?.click();
}

/** Closes the open modal, and the views under it if some were pushed, as a person would. */
async function closeModals(p: Page): Promise<void> {
  for (let i = 0; i < 5 && (await p.$('#modal:not([hidden]) .dialog')); i++) {
    const id = String(await p.evaluate("document.querySelector('#modal .dialog')?.dataset.viewId ?? ''"));
    await p.click('#modal .foot button');
    await p.waitForFunction(
      `document.getElementById('modal').hidden || document.querySelector('#modal .dialog')?.dataset.viewId !== ${JSON.stringify(id)}`,
      { timeout: 10_000 },
    );
  }
  await p.waitForSelector('#modal', { hidden: true, timeout: 10_000 });
}

const count = async (p: Page, selector: string) => (await p.$$(selector)).length;

/** Types a command, waits for its confirmation, confirms: exactly `expectCalls` more sandbox calls. */
async function lookUp(ctx: Ctx, line: string, expectCalls: number): Promise<void> {
  const before = calls(ctx);
  const confirms = await count(ctx.p, '#conversation button[data-action-id="platdesk.confirm"]');
  await say(ctx.p, line);
  await ctx.p.waitForFunction(
    `document.querySelectorAll('#conversation button[data-action-id="platdesk.confirm"]').length > ${confirms}`,
    { timeout: 20_000 },
  );
  expect(calls(ctx)).toBe(before);
  await click(ctx.p, ACTIONS.confirm);
  await expect.poll(() => calls(ctx), { timeout: 20_000 }).toBe(before + expectCalls);
  // The confirmation is replaced by the answer (replace_original), not left beside it.
  await ctx.p.waitForFunction(
    `document.querySelectorAll('#conversation button[data-action-id="platdesk.confirm"]').length === ${confirms}`,
    { timeout: 20_000 },
  );
}

async function show(p: Page, channel: 'support' | 'dm'): Promise<void> {
  const label = channel === 'dm' ? '💬 platdesk' : '#support';
  // The list is drawn again on every change, so the button is found and clicked in one go.
  const found = await p.evaluate(
    `(() => { const b = [...document.querySelectorAll('#channels button')].find((e) => e.textContent === ${JSON.stringify(label)}); b?.click(); return Boolean(b); })()`,
  );
  expect(found, `no "${label}" in the channel list`).toBe(true);
  await p.waitForSelector('#channels button.active', { timeout: 10_000 });
  await p.waitForFunction(
    `document.querySelector('#channels button.active')?.textContent === ${JSON.stringify(label)}`,
    { timeout: 10_000 },
  );
}

/** Saves a screenshot (DEMO_SCREENSHOTS), the newest `focus` element scrolled into view first. */
async function shot(
  p: Page,
  name: string,
  focus?: string,
  block: 'start' | 'center' | 'end' = 'start',
): Promise<void> {
  if (!SHOTS) return;
  if (focus) {
    const found = await p.evaluate(
      `(() => { const e = [...document.querySelectorAll(${JSON.stringify(focus)})].at(-1); e?.scrollIntoView({ block: ${JSON.stringify(block)} }); return Boolean(e); })()`,
    );
    expect(found, `nothing to show for ${name}: ${focus}`).toBe(true);
    // The page draws again when the app changes something; let it settle, then scroll once more.
    await new Promise((r) => setTimeout(r, 1500));
    await p.evaluate(
      `[...document.querySelectorAll(${JSON.stringify(focus)})].at(-1)?.scrollIntoView({ block: ${JSON.stringify(block)} })`,
    );
  }
  mkdirSync(SHOTS, { recursive: true });
  await p.screenshot({ path: join(SHOTS, name) as `${string}.png` });
}

/** Every <img> in `scope` loaded a picture (slack_file images come from the stand-in's files). */
async function imagesLoaded(p: Page, scope: string): Promise<void> {
  await p.waitForFunction(
    `[...document.querySelectorAll(${JSON.stringify(`${scope} img.image`)})].length > 0 && [...document.querySelectorAll(${JSON.stringify(`${scope} img.image`)})].every((i) => i.complete && i.naturalWidth > 0)`,
    { timeout: 60_000 },
  );
}

const STEPS: Record<string, (ctx: Ctx) => Promise<void>> = {
  '/item 680001234501': async (ctx) => {
    const { p, w } = ctx;
    await lookUp(ctx, '/item 680001234501', 1);
    await waitForText(p, ITEM_TITLE);
    await waitForText(p, '¥59.00');
    await waitForText(p, w.t('charge.quotaUsed', { count: 1, n: '1' }));
    if (ctx.locale === 'en') await shot(p, 'demo-item-en.png');
  },

  '/orders 2200001001': async (ctx) => {
    const { p, w } = ctx;
    await lookUp(ctx, `/orders ${owners.busy}`, 1);
    // The page's orders are a table with the app's header row and column settings.
    await p.waitForSelector('#conversation .table-wrap table th');
    const headers = await p.$$eval('#conversation .table-wrap table tr:first-child th', (ths) =>
      ths.map((th) => th.textContent ?? ''),
    );
    expect(headers[0]).toBe(w.t('table.order'));
    expect(headers).toContain(w.t('table.amount'));
    const amountAlign = await p.evaluate(
      "getComputedStyle(document.querySelector('#conversation .table-wrap table tr:nth-child(2) td:nth-child(5)')).textAlign",
    );
    expect(amountAlign).toBe('right');
    expect(await count(p, '#conversation .table-wrap table tr')).toBe(21);
    const position = (n: number) =>
      w.t('orders.position', {
        count: orderCounts.busy,
        n: w.count(orderCounts.busy),
        page: w.count(n),
        pages: w.count(Math.ceil(orderCounts.busy / 20)),
      });
    await waitForText(p, position(1));
    const before = calls(ctx);
    await click(p, ACTIONS.ordersNext);
    await waitForText(p, position(2));
    expect(calls(ctx)).toBe(before + 1);
    // Page 2 replaced page 1: one orders table on the page.
    expect(await count(p, '#conversation .table-wrap')).toBe(1);
    if (ctx.locale === 'zh-CN') await shot(p, 'demo-orders-zh-CN.png', '#conversation .msg:has(.table-wrap)');
  },

  '/orders 2200001002 page:3': async (ctx) => {
    const { p, w } = ctx;
    await lookUp(ctx, `/orders ${owners.small}`, 1);
    const before = calls(ctx);
    await say(p, `/orders ${owners.small} page:3`);
    await waitForText(
      p,
      w.t('orders.pastLast', {
        count: 1,
        page: '3',
        pages: '1',
        size: '20',
        orders: w.t('common.orders', { count: orderCounts.small, n: w.count(orderCounts.small) }),
      }),
    );
    expect(calls(ctx)).toBe(before);
  },

  '/shop ww beeclothing': async (ctx) => {
    const { p, w } = ctx;
    await lookUp(ctx, '/shop ww beeclothing', 1);
    await waitForText(p, '57301234');
    await p.waitForSelector(`#conversation button[data-action-id="${ACTIONS.shopPage}"]`);
    const label = await p.$eval(
      `#conversation button[data-action-id="${ACTIONS.shopPage}"]`,
      (b) => b.textContent,
    );
    expect(label).toBe(w.t('shop.pageButton'));
  },

  '/waybill SF1234567890123 shop:57301234': async (ctx) => {
    const { p } = ctx;
    await lookUp(ctx, '/waybill SF1234567890123 shop:57301234', 1);
    await click(p, ACTIONS.waybillDownload);
    // The file is in the DM: a file message the page draws with its name and a download link.
    await show(p, 'dm');
    await p.waitForSelector('#conversation .file a.file-download', { timeout: 20_000 });
    const href = String(
      await p.evaluate("document.querySelector('#conversation .file a.file-download').href"),
    );
    const body = String(await p.evaluate(`fetch(${JSON.stringify(href)}).then((r) => r.text())`));
    expect(JSON.parse(body)).toEqual([expect.objectContaining({ waybill_code: 'SF1234567890123' })]);
    await show(p, 'support');
  },

  'https://item.taobao.com/item.htm?id=680001234501': async (ctx) => {
    const { p, w } = ctx;
    await say(p, 'https://item.taobao.com/item.htm?id=680001234501');
    // A client that shows Work Objects shows the entity's card, not the fallback blocks.
    await p.waitForSelector('#conversation .unfurl .entity-card', { timeout: 20_000 });
    const cards = await p.$$('#conversation .unfurl .entity-card');
    const before = calls(ctx);
    await cards.at(-1)?.click();
    await p.waitForSelector(`#panel button[data-action-id="${ACTIONS.entityLookup}"]`, { timeout: 20_000 });
    expect(calls(ctx)).toBe(before);
    await p.click(`#panel button[data-action-id="${ACTIONS.entityLookup}"]`);
    await expect.poll(() => calls(ctx), { timeout: 20_000 }).toBeLessThanOrEqual(before + 1);
    // The answer fills the panel, saying what it cost.
    const charged = w.t('workObject.lookedUpNow', { charge: w.t('charge.quotaUsed', { count: 1, n: '1' }) });
    await waitForText(p, charged, "document.getElementById('panel').innerText");
    await waitForText(p, ITEM_TITLE, "document.getElementById('panel').innerText");
    if (ctx.locale === 'en') await shot(p, 'demo-work-object-en.png');
    await p.click('#panel .panel-head button');
    await p.waitForSelector('#panel', { hidden: true });
  },

  '⋯': async (ctx) => {
    const { p, w } = ctx;
    const menus = await p.$$('#conversation .msg .menu summary');
    await menus.at(-1)?.click();
    const buttons = await p.$$('#conversation .msg .menu[open] button');
    await buttons[0]?.click();
    await p.waitForSelector('#modal .dialog', { timeout: 20_000 });
    const title = await p.$eval('#modal .dialog h2', (h) => h.textContent);
    expect(title).toBe(w.t('shortcut.title.items'));
    await closeModals(p);
  },

  '⚡ platdesk lookup': async (ctx) => {
    const { p, w } = ctx;
    await p.click('#global-shortcut');
    await p.waitForSelector('#modal .dialog textarea, #modal .dialog input[type="text"]', {
      timeout: 20_000,
    });
    expect(await p.$eval('#modal .dialog h2', (h) => h.textContent)).toBe(w.t('shortcut.title.any'));
    await p.type(
      '#modal .dialog textarea, #modal .dialog input[type="text"]',
      'SF1234567890123 680001234502',
    );
    await p.click('#modal .foot button.primary');
    // The next view lists what was found, to tick, with the charge.
    await p.waitForFunction(
      `document.querySelectorAll('#modal .dialog input[type="checkbox"]').length >= 1`,
      { timeout: 20_000 },
    );
    await closeModals(p);
  },

  '💬 Messages': async (ctx) => {
    const { p, w, locale } = ctx;
    const THREAD = "document.getElementById('messages-thread').innerText";
    await p.click('#messages-tab-button');
    await p.waitForSelector('#messages-tab:not([hidden])', { timeout: 10_000 });
    // A new chat: the app's suggested prompts, in the person's language.
    await p.waitForSelector('#messages-prompts button.prompt', { timeout: 20_000 });
    const prompts = await p.$$eval('#messages-prompts button.prompt', (bs) => bs.map((b) => b.textContent));
    expect(prompts).toEqual(
      (['waybills', 'item', 'orders', 'spend'] as const).map((k) => w.t(`agent.prompt.${k}.title`)),
    );
    const before = calls(ctx);
    // The spend: free, answered at once from the ledger; no Confirm.
    await p.click('#messages-prompts button.prompt[data-prompt="3"]');
    await waitForText(p, w.t('agent.nothingToConfirm'), THREAD);
    await waitForText(p, w.t('agent.prompt.spend.message'), THREAD);
    // A question typed in plain words: the plan streams in as task cards, each paid step priced,
    // under one Confirm; nothing is called before it.
    const question =
      locale === 'zh-CN'
        ? `${owners.dueSoon} 六小时内要发的单有哪些？ZTO 773012345678901 到哪了？`
        : `Which orders of ${owners.dueSoon} must ship in the next 6 hours? And where is ZTO 773012345678901?`;
    await p.type('#messages-input', question);
    await p.keyboard.press('Enter');
    const confirm = `#messages-thread button[data-action-id="${ACTIONS.agentConfirm}"]`;
    await p.waitForSelector(confirm, { timeout: 20_000 });
    await waitForText(p, w.t('agent.planTitle'), THREAD);
    expect(await count(p, '#messages-thread .stream .plan .task.pending')).toBe(2);
    const label = String(await p.$eval(confirm, (b) => b.textContent));
    expect(label).toBe(
      w.t('agent.confirmButton', { short: w.t('common.pointsShort', { count: 6, n: '6' }) }),
    );
    expect(calls(ctx)).toBe(before);
    // The app said what it was doing while it planned (assistant.threads.setStatus).
    expect(ctx.demo.fake.callsTo('assistant.threads.setStatus').some((c) => c.body.status !== '')).toBe(true);
    await click(p, ACTIONS.agentConfirm, '#messages-thread');
    // The run: its cards tick to done, the answers arrive as the commands draw them, and the
    // closing line states what the ledger holds, with feedback buttons.
    const done = w.t('agent.doneSummary', { charged: '¤' }).split('¤')[0] ?? '';
    await waitForText(p, done.replace(/\*/g, ''), THREAD, 30_000);
    expect(calls(ctx)).toBe(before + 2);
    const runCards = await p.$$eval('#messages-thread .stream', (streams) =>
      [...(streams.at(-1)?.querySelectorAll('.task') ?? [])].map((t) => t.className),
    );
    expect(runCards).toEqual(['task complete', 'task complete']);
    await waitForText(p, w.t('charge.charged', { points: w.points(6) }), THREAD);
    await p.waitForSelector('#messages-thread .table-wrap table th', { timeout: 20_000 });
    await p.waitForSelector('#messages-thread button.feedback-button[data-feedback="positive"]');
    if (SHOTS) await shot(p, `demo-messages-${locale}.png`, '#messages-thread .stream', 'start');
    const feedback = await p.$$('#messages-thread button.feedback-button[data-feedback="positive"]');
    await feedback.at(-1)?.click();
    await waitForText(p, w.t('agent.feedbackThanks'), THREAD);
    expect(calls(ctx)).toBe(before + 2);
    await show(p, 'support');
  },

  '🏠 App Home': async (ctx) => {
    const { p, w } = ctx;
    await p.click('#home-tab');
    await p.waitForSelector('#home .blocks', { timeout: 20_000 });
    await waitForText(p, w.t('home.yourSpend'), "document.getElementById('home').innerText");
    // The admins' 30-day spend chart: an image uploaded to Slack, drawn from the stand-in's file.
    await imagesLoaded(p, '#home');
    if (ctx.locale === 'en') await shot(p, 'demo-home-en.png', '#home img.image', 'end');
    // A form behind Edit, its optional fields marked in the reader's language.
    await click(p, ACTIONS.homeAccess, '#home');
    await p.waitForSelector('#modal .dialog .input', { timeout: 20_000 });
    const labels = await p.$$eval('#modal .dialog .input .label', (ls) => ls.map((l) => l.textContent ?? ''));
    expect(labels.some((l) => l.endsWith(ctx.locale === 'zh-CN' ? '（可选）' : ' (optional)'))).toBe(true);
    expect(labels.join(' ')).not.toContain(ctx.locale === 'zh-CN' ? '(optional)' : '（可选）');
    await closeModals(p);
    await show(p, 'support');
  },

  '/platdesk usage today': async (ctx) => {
    const { p, w } = ctx;
    await say(p, '/platdesk usage today');
    await p.waitForFunction(
      `[...document.querySelectorAll('#conversation .table-wrap th')].some((th) => th.textContent === ${JSON.stringify(w.t('table.operation'))})`,
      { timeout: 20_000 },
    );
  },

  '/orders digest add 2200001001 here 23:59': async (ctx) => {
    const { p, w } = ctx;
    await say(p, `/orders digest add ${owners.busy} here 23:59`);
    await waitForText(p, '#1');
    const before = calls(ctx);
    await say(p, '/orders digest run 1');
    const heading = w.t('digest.titleManual', { shop: '' }).replace(/ · $/, '');
    await waitForText(p, heading, PANE, 30_000);
    // Threaded: the details and the chart of the day by hour are replies under the summary; the
    // chart (conversations.replies found the thread) is the uploaded picture.
    await p.waitForSelector('#conversation .thread .msg', { timeout: 30_000 });
    await imagesLoaded(p, '#conversation .thread');
    expect(calls(ctx)).toBeGreaterThan(before);
    // The post carries its key in message metadata (how an unclear post is found, never sent twice).
    expect(await count(p, '#conversation .msg .metadata')).toBeGreaterThan(0);
    const text = String(await p.evaluate(PANE));
    // Receiver data never reaches the page (the sandbox masks it as 张**, 138****1234, …).
    expect(text).not.toMatch(/[张王李赵刘陈杨黄周吴]\*\*|\d{3}\*{4}\d{4}|号\*\*室/);
    if (ctx.locale === 'zh-CN')
      await shot(p, 'demo-digest-zh-CN.png', '#conversation .thread img.image', 'end');
  },

  '/orders alert add 2200001004 here within:6 hours:00:00-23:59': async (ctx) => {
    const { p, w } = ctx;
    await say(p, `/orders alert add ${owners.dueSoon} here within:6 hours:00:00-23:59`);
    await p.waitForSelector('#conversation button[data-action-id^="platdesk.alert.claim"]', {
      timeout: 30_000,
    });
    const labels = await p.$$eval('#conversation button[data-action-id^="platdesk.alert."]', (bs) =>
      bs.map((b) => b.textContent ?? ''),
    );
    expect(labels).toContain(w.t('shipAlert.claim'));
    expect(labels).toContain(w.t('shipAlert.handled'));
    // The alert says what its check cost ("This check cost … in 2 calls").
    const sample = w.t('shipAlert.cost', { count: 1, n: '1', points: '¤' });
    await waitForText(
      p,
      sample
        .replace(/^:\w+: /, '')
        .split('¤')[0]
        ?.trim() ?? sample,
    );
  },

  中文: async (ctx) => {
    const { p } = ctx;
    await p.select('#locale', 'zh-CN');
    await expect
      .poll(async () => ctx.demo.platdesk.store.settings.get('locale.user.U1234'), { timeout: 10_000 })
      .toBeDefined();
    // Slack's own words on the page follow the person's language.
    expect(await p.$eval('#send', (b) => b.textContent)).toBe('发送');
  },
};

/** Errors the page's own script threw, per page: a drawing that threw is a failure too. */
const pageErrors = new WeakMap<Page, string[]>();

async function openPage(d: Demo): Promise<Page> {
  const p = await browser.newPage();
  const errors: string[] = [];
  pageErrors.set(p, errors);
  p.on('pageerror', (e) => errors.push(String(e)));
  await p.setViewport({ width: 1280, height: 860 });
  await p.goto(d.url);
  await p.waitForSelector('#channels button');
  return p;
}

async function noUnknown(p: Page, step: string): Promise<void> {
  const unknown = await p.evaluate('window.demoUnknown');
  expect(unknown, `after "${step}" the page met what it cannot draw`).toEqual([]);
  expect(pageErrors.get(p), `after "${step}" the page's script threw`).toEqual([]);
}

describe('docs/demo.md and the browser test agree', () => {
  it('every row of the table has a step, and every step a row', () => {
    const names = demoSteps().map(stepName);
    expect(names.length).toBeGreaterThan(10);
    expect(new Set(names)).toEqual(new Set(Object.keys(STEPS)));
  });
});

describe.each(['en', 'zh-CN'] as const)(
  'the demo page in a browser, docs/demo.md step by step (%s)',
  (locale) => {
    it('every step draws what the app sent, with nothing the page cannot draw', async () => {
      demo = await startDemo({ port: 0, logLevel: 'error' });
      page = await openPage(demo);
      const ctx: Ctx = { p: page, demo, w: wordsFor(locale), locale };
      const steps = demoSteps().map(stepName);
      // In Chinese the language is chosen first; in English it is the last step.
      const order = locale === 'zh-CN' ? ['中文', ...steps.filter((s) => s !== '中文')] : steps;
      for (const step of order) {
        await (STEPS[step] as (c: Ctx) => Promise<void>)(ctx);
        await noUnknown(page, step);
      }
      // Everything shown is text: nothing the app sent became markup.
      expect(await page.$$('#conversation script, #conversation iframe')).toHaveLength(0);
    }, 400_000);
  },
);

describe('the demo page draws what the next issues send: a streamed reply', () => {
  it('markdown, task cards and a plan, as chat.startStream / appendStream / stopStream send them', async () => {
    demo = await startDemo({ port: 0, logLevel: 'error' });
    page = await openPage(demo);
    const client = new WebClient('xoxb-demo', { slackApiUrl: demo.fake.apiUrl });
    // A streamed reply answers a person's message, in its thread.
    await show(page, 'dm');
    await say(page, 'What does item 680001234501 cost?');
    await expect.poll(() => demo?.fake.messages('D1234').length, { timeout: 10_000 }).toBe(1);
    const asked = demo.fake.messages('D1234')[0]?.ts ?? '';
    const started = await client.chat.startStream({
      channel: 'D1234',
      thread_ts: asked,
      markdown_text: 'Looking at **item 680001234501**',
      task_display_mode: 'plan',
    });
    const ts = String(started.ts);
    await client.chat.appendStream({
      channel: 'D1234',
      ts,
      chunks: [
        { type: 'plan_update', title: 'Two lookups' },
        { type: 'task_update', id: 't1', title: 'Item details', status: 'in_progress' },
        { type: 'task_update', id: 't2', title: 'Item prices', status: 'pending' },
      ],
    });
    await page.waitForSelector('#conversation .thread .stream .plan .task', { timeout: 10_000 });
    await waitForText(page, 'writing…');
    await client.chat.appendStream({
      channel: 'D1234',
      ts,
      chunks: [
        { type: 'task_update', id: 't1', title: 'Item details', status: 'complete', output: '1 quota call' },
        { type: 'task_update', id: 't2', title: 'Item prices', status: 'complete' },
      ],
    });
    await client.chat.stopStream({ channel: 'D1234', ts, markdown_text: '\n\nDone: *2 quota calls*.' });
    await page.waitForFunction(`!${PANE}.includes('writing…')`, { timeout: 10_000 });
    expect(await page.$$eval('#conversation .stream .plan .task.complete', (t) => t.length)).toBe(2);
    expect(await page.$eval('#conversation .stream .plan .plan-title', (e) => e.textContent)).toBe(
      'Two lookups',
    );
    expect(await page.$eval('#conversation .stream .markdown b', (e) => e.textContent)).toBe(
      'item 680001234501',
    );
    await waitForText(page, '1 quota call');
    // A stopped stream takes no more text, as Slack answers.
    await expect(client.chat.appendStream({ channel: 'D1234', ts, markdown_text: 'more' })).rejects.toThrow(
      /message_not_in_streaming_state/,
    );
    await noUnknown(page, 'stream');
  }, 60_000);
});

describe('the demo page renders mrkdwn as Slack does, and only as text', () => {
  it('bold, italic, strike, code, links and entities become elements; markup the app echoes stays text', async () => {
    demo = await startDemo({ port: 0, logLevel: 'error' });
    page = await openPage(demo);
    // page.js's own renderer, on a string holding every kind of mark-up Slack's mrkdwn has.
    const html = await page.evaluate(
      "mrkdwn('*bold* _it_ ~gone~ `a<b` <https://example.com/?a=1&amp;b=2|a &lt;link&gt;> <#C1234> &lt;script&gt; snake_case_id 2*3*4\\nnext').innerHTML",
    );
    expect(html).toBe(
      '<b>bold</b> <i>it</i> <s>gone</s> <code>a&lt;b</code> ' +
        '<a href="https://example.com/?a=1&amp;b=2" target="_blank" rel="noopener noreferrer">a &lt;link&gt;</a> ' +
        '<span class="mention">#support</span> &lt;script&gt; snake_case_id 2*3*4<br>next',
    );
    const javascriptLink = await page.evaluate("mrkdwn('<javascript:alert(1)|click>').innerHTML");
    expect(javascriptLink).toBe('<a>click</a>');

    // Through the app: a command echoing hostile input is answered, and shown as the text it is.
    const hostile = '<img src=x onerror="window.pwned=1">';
    await say(page, `/item ${hostile}`);
    await waitForText(page, 'onerror');
    expect(await page.evaluate('window.pwned')).toBeUndefined();
    expect(await page.$$('#conversation img')).toHaveLength(0);
    expect(demo.platdesk.sandbox?.stats().calls).toBe(0);
    // The tab has platdesk's icon (the page names it; the stand-in serves it).
    const icon = String(await page.$eval('link[rel="icon"]', (l) => l.getAttribute('href')));
    const served = await fetch(new URL(icon, demo.url));
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toContain('image/svg+xml');
    expect(await served.text()).toContain('<svg');
    // An element the page does not know is a failure, not a grey placeholder.
    await page.evaluate("block({ type: 'video_player_of_the_future' }, {})");
    expect(await page.evaluate('window.demoUnknown')).toEqual(['video_player_of_the_future block']);
  }, 30_000);
});
