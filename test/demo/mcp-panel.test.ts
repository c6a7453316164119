/**
 * The demo page's AI-client panel (demo/mcp-panel.ts, demo/mcp-page.js) in a real browser
 * (Debian's chromium through puppeteer-core), in English and in Chinese: a newcomer opens the
 * panel, connects the AI client (its token made by `/platdesk mcp token` in the DM, the app's
 * own answer), calls a paid tool, and sees side by side the DM with the charge, Confirm and Deny
 * (drawn from what the REAL app sent through the Slack stand-in) and the call waiting; Confirm
 * gives the structured result in the panel with one sandbox call; Deny gives the tool error and
 * no call. Every element the steps need must be drawn (a missing one fails its wait), and the
 * page must meet nothing it cannot draw (window.demoUnknown) and throw nothing.
 *
 * DEMO_SCREENSHOTS=<dir> (`npm run demo:screenshots`) saves docs/images/demo-mcp-<locale>.png, with
 * the token drawn as `pdmcp_…` (a secret never reaches a picture).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Demo, startDemo } from '../../demo/index.js';
import { DEMO_CLIENT } from '../../demo/mcp-panel.js';
import { ACTIONS } from '../../src/blocks/action-ids.js';
import { wordsFor } from '../../src/blocks/i18n/words.js';
import { launchChromium } from '../helpers/chromium.js';

const SHOTS = process.env.DEMO_SCREENSHOTS;
const WAIT = { timeout: 15_000 };
const PANE = "document.getElementById('conversation').innerText";
const PANEL = "document.getElementById('mcp-client').innerText";

let browser: Browser;
let demo: Demo | null = null;
let page: Page | null = null;

beforeAll(async () => {
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

const waitForText = (p: Page, text: string, where: string) =>
  p.waitForFunction(`(${where}).includes(${JSON.stringify(text)})`, WAIT);

describe.each(['en', 'zh-CN'] as const)('the demo page’s AI-client panel (%s)', (locale) => {
  it('the DM with Confirm / Deny and the tool call side by side; Confirm gives the result, Deny the tool error', async () => {
    const w = wordsFor(locale);
    demo = await startDemo({ port: 0, logLevel: 'error' });
    const d = demo;
    const calls = () => d.platdesk.sandbox?.stats().calls ?? -1;
    const p = await browser.newPage();
    page = p;
    const errors: string[] = [];
    p.on('pageerror', (e) => errors.push(String(e)));
    await p.setViewport({ width: 1440, height: 900 });
    await p.goto(d.url);
    await p.waitForSelector('#channels button', WAIT);
    if (locale === 'zh-CN') {
      await p.select('#locale', 'zh-CN');
      await expect
        .poll(async () => d.platdesk.store.settings.get('locale.user.U1234'), { timeout: 10_000 })
        .toBeDefined();
    }

    // The panel's tab, then the panel beside the DM with platdesk.
    await p.waitForSelector('#mcp-tab', WAIT);
    await p.click('#mcp-tab');
    await p.waitForSelector('#mcp-client:not([hidden]) .panel-head h2', WAIT);
    await p.waitForFunction(
      `document.querySelector('#channels button.active')?.textContent === '💬 platdesk'`,
      WAIT,
    );
    await p.click('#mcp-client .mcp-connect');
    // The token is the app's answer to /platdesk mcp token in the DM, shown only to the person.
    await waitForText(p, w.t('mcp.tokenSetup'), PANE);
    await p.waitForFunction("document.getElementById('conversation').innerText.includes('pdmcp_')", WAIT);
    await p.waitForSelector('#mcp-client .mcp-tool[data-tool="item_prices"]', WAIT);
    expect(await p.$$eval('#mcp-client .mcp-tool', (b) => b.map((x) => x.getAttribute('data-tool')))).toEqual(
      ['item_prices', 'lookup_waybill', 'orders_page', 'spend'],
    );
    expect(calls()).toBe(0);

    // A paid call: the DM states the charge and names the client; nothing is called yet.
    await p.click('#mcp-client .mcp-tool[data-tool="item_prices"]');
    await p.waitForSelector('#mcp-client .mcp-call.waiting[data-tool="item_prices"]', WAIT);
    await p.waitForSelector(`#conversation button[data-action-id="${ACTIONS.mcpConfirm}"]`, WAIT);
    await p.waitForSelector(`#conversation button[data-action-id="${ACTIONS.mcpDeny}"]`, WAIT);
    await waitForText(p, DEMO_CLIENT, PANE);
    expect(calls()).toBe(0);
    await p.click(`#conversation button[data-action-id="${ACTIONS.mcpConfirm}"]`);
    await p.waitForSelector('#mcp-client .mcp-call.done[data-tool="item_prices"] .mcp-structured pre', WAIT);
    expect(calls()).toBe(1);
    const structured = await p.$eval(
      '#mcp-client .mcp-call.done .mcp-structured pre',
      (e) => e.textContent ?? '',
    );
    expect(JSON.parse(structured)).toMatchObject({ price: expect.any(Number), summary: expect.any(String) });
    await waitForText(p, w.t('charge.quotaUsed', { count: 1, n: '1' }), PANEL);
    // The DM now says what happened, in place of its buttons.
    await p.waitForFunction(
      `!document.querySelector('#conversation button[data-action-id="${ACTIONS.mcpConfirm}"]')`,
      WAIT,
    );

    // A second call waits beside the first one's result: the moment the screenshot shows.
    await p.click('#mcp-client .mcp-tool[data-tool="lookup_waybill"]');
    await p.waitForSelector('#mcp-client .mcp-call.waiting[data-tool="lookup_waybill"]', WAIT);
    await p.waitForSelector(`#conversation button[data-action-id="${ACTIONS.mcpDeny}"]`, WAIT);
    if (SHOTS) {
      // A token never reaches a picture: the page is held still and the token drawn as pdmcp_…
      await p.evaluate(`(() => {
        window.heldRender = window.render;
        window.render = () => {};
        const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        for (let n = walk.nextNode(); n; n = walk.nextNode())
          n.nodeValue = n.nodeValue.replace(/pdmcp_[A-Za-z0-9_-]+/g, 'pdmcp_…');
      })()`);
      expect(await p.evaluate('document.body.innerText')).not.toMatch(/pdmcp_[A-Za-z0-9_-]{8}/);
      mkdirSync(SHOTS, { recursive: true });
      await p.screenshot({ path: join(SHOTS, `demo-mcp-${locale}.png`) as `${string}.png` });
      await p.evaluate('window.render = window.heldRender; shownVersion = -1; render()');
    }
    await p.click(`#conversation button[data-action-id="${ACTIONS.mcpDeny}"]`);
    await p.waitForSelector('#mcp-client .mcp-call.error[data-tool="lookup_waybill"]', WAIT);
    await waitForText(p, w.t('mcp.error.denied'), PANEL);
    expect(calls()).toBe(1);

    expect(await p.evaluate('window.demoUnknown'), 'the page met what it cannot draw').toEqual([]);
    expect(errors, 'the page’s script threw').toEqual([]);
  }, 60_000);
});
