/**
 * `npm run demo` in a real browser: Debian's chromium (installed by .ci/run) driven by
 * puppeteer-core through the demo page, which reaches the REAL app only with signed requests and
 * shows only what the app sent through the Web API and response_urls. In English and in Chinese:
 * an item lookup (type → Confirm → the answer), an orders page turn (Next ▶) and a digest run,
 * checking the rendered text and the plat sandbox's call count.
 *
 * DEMO_SCREENSHOTS=<dir> (`npm run demo:screenshots`) also saves the README's screenshots there.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Demo, startDemo } from '../../demo/index.js';
import { wordsFor } from '../../src/blocks/i18n/words.js';
import { SANDBOX_FIXTURES } from '../../src/sandbox/fixtures.js';

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = process.env.DEMO_SCREENSHOTS;
const ITEM = SANDBOX_FIXTURES.items.basic;
const OWNER = SANDBOX_FIXTURES.owners.busy;
/** The item's title in the sandbox (fixtures/items.ts), shown in the answer. */
const ITEM_TITLE = '纯棉短袖T恤男夏季宽松圆领半袖上衣';

let browser: Browser;
let demo: Demo | null = null;
let page: Page | null = null;

beforeAll(async () => {
  expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install chromium (.ci/run does)`).toBe(true);
  browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--lang=en-US'],
  });
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

const calls = () => demo?.platdesk.sandbox?.stats().calls ?? -1;

/** The text of the conversation pane as the browser renders it. */
const shown = (p: Page) => p.$eval('#conversation', (e) => (e as unknown as { innerText: string }).innerText);
/** A page-side expression: the conversation pane's rendered text. */
const PANE_TEXT = "document.getElementById('conversation').innerText";

async function waitForText(p: Page, text: string, timeout = 10_000): Promise<void> {
  await p.waitForFunction(`${PANE_TEXT}.includes(${JSON.stringify(text)})`, { timeout });
}

async function type(p: Page, line: string): Promise<void> {
  await p.click('#composer');
  await p.type('#composer', line);
  await p.keyboard.press('Enter');
}

/** Clicks the newest rendered button with that action_id. */
async function click(p: Page, actionId: string, timeout = 10_000): Promise<void> {
  const selector = `button[data-action-id="${actionId}"]`;
  await p.waitForSelector(selector, { timeout });
  const buttons = await p.$$(selector);
  await buttons.at(-1)?.click();
}

async function count(p: Page, actionId: string): Promise<number> {
  return (await p.$$(`button[data-action-id="${actionId}"]`)).length;
}

async function shot(p: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await p.screenshot({ path: join(SHOTS, name) as `${string}.png` });
}

describe.each(['en', 'zh-CN'] as const)('the demo page in a browser (%s)', (locale) => {
  const w = wordsFor(locale);

  it('item lookup, orders page turn, digest run: rendered from what the app sent, with the sandbox call count at each step', async () => {
    demo = await startDemo({ port: 0, logLevel: 'error' });
    page = await browser.newPage();
    await page.setViewport({ width: 1200, height: 820 });
    await page.goto(demo.url);
    await page.waitForSelector('#channels button');

    if (locale === 'zh-CN') {
      await page.select('#locale', 'zh-CN');
      // The language commands answer in the DM; wait for the person's own choice to be stored.
      await expect
        .poll(async () => demo?.platdesk.store.settings.get('locale.user.U1234'), { timeout: 5000 })
        .toBeDefined();
    }

    // An item lookup: the confirmation states the charge, Confirm runs exactly one call.
    await type(page, `/item ${ITEM}`);
    await page.waitForSelector('button[data-action-id="platdesk.confirm"]');
    expect(calls()).toBe(0);
    const cancelLabel = await page.$eval('button[data-action-id="platdesk.cancel"]', (b) => b.textContent);
    expect(cancelLabel).toBe(w.t('confirm.cancelButton'));
    await click(page, 'platdesk.confirm');
    await waitForText(page, ITEM_TITLE);
    await waitForText(page, '¥59.00');
    // The confirmation was replaced by the answer (replace_original), not left beside it.
    expect(await count(page, 'platdesk.confirm')).toBe(0);
    expect(calls()).toBe(1);
    expect(await page.$eval('#calls', (e) => e.textContent)).toBe('1');
    if (locale === 'en') await shot(page, 'demo-item-en.png');

    // An orders page (five orders, so the screenshot holds it), then Next ▶: one call per page.
    await type(page, `/orders ${OWNER} size:5`);
    await page.waitForSelector('button[data-action-id="platdesk.confirm"]');
    await click(page, 'platdesk.confirm');
    await page.waitForSelector('button[data-action-id="platdesk.orders.next"]');
    expect(calls()).toBe(2);
    const next = await page.$eval('button[data-action-id="platdesk.orders.next"]', (b) => b.textContent);
    expect(next).toContain(w.t('orders.next'));
    const page1 = await shown(page);
    await click(page, 'platdesk.orders.next');
    await page.waitForFunction(`${PANE_TEXT} !== ${JSON.stringify(page1)}`, { timeout: 10_000 });
    await page.waitForSelector('button[data-action-id="platdesk.orders.prev"]');
    expect(calls()).toBe(3);
    const total = SANDBOX_FIXTURES.orderCounts.busy;
    const position = (n: number) =>
      w.t('orders.position', {
        count: total,
        n: w.count(total),
        page: w.count(n),
        pages: w.count(Math.ceil(total / 5)),
      });
    // Page 2 replaced page 1 (replace_original): one orders message, now at page 2.
    const turned = await shown(page);
    expect(turned).toContain(position(2));
    expect(turned).not.toContain(position(1));
    if (locale === 'zh-CN') await shot(page, 'demo-orders-zh-CN.png');

    // A digest, added for #support and run now: posted in the channel, in its language, threaded.
    await type(page, `/orders digest add ${OWNER} here 03:17`);
    await waitForText(page, String(w.t('digest.answer.added', { id: 1 }).match(/[^:]+#1/)?.[0]).trim());
    await type(page, '/orders digest run 1');
    const heading = w.t('digest.titleManual', { shop: '' }).replace(/ · $/, '');
    await waitForText(page, heading, 20_000);
    await expect.poll(calls, { timeout: 10_000 }).toBe(5);
    // A new digest is threaded: its details are replies under the summary (thread_ts).
    await page.waitForSelector('#conversation .thread .msg');
    const text = await shown(page);
    // Receiver data never reaches the page (the sandbox masks it as 张**, 138****1234, …).
    expect(text).not.toMatch(/[张王李赵刘陈杨黄周吴]\*\*|\d{3}\*{4}\d{4}|号\*\*室/);
    // Everything shown is text: nothing the app sent became markup.
    expect(await page.$$('#conversation script, #conversation iframe')).toHaveLength(0);
  }, 80_000);
});

describe('the demo page renders mrkdwn as Slack does, and only as text', () => {
  it('bold, italic, strike, code, links and entities become elements; markup the app echoes stays text', async () => {
    demo = await startDemo({ port: 0, logLevel: 'error' });
    page = await browser.newPage();
    await page.goto(demo.url);
    await page.waitForSelector('#channels button');
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
    await type(page, `/item ${hostile}`);
    await waitForText(page, 'onerror');
    expect(await page.evaluate('window.pwned')).toBeUndefined();
    expect(await page.$$('#conversation img')).toHaveLength(0);
    expect(calls()).toBe(0);
  }, 30_000);
});
