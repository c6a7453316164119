/**
 * The glossary (src/blocks/i18n/GLOSSARY.md) holds for the whole zh-CN catalog, keys added later
 * included: no word it says not to use, and its terms where the English text uses them. Amounts
 * and points read the same way in every message.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderConfirmation } from '../../src/blocks/confirmation.js';
import { CATALOGS } from '../../src/blocks/i18n/words.js';
import { makeQuote, makeQuoteLine, PENDING_ID } from '../helpers/domain-factories.js';
import { en, zh } from '../helpers/words.js';
import { everyRender, REALISTIC_TEXT } from './every-render.js';

type Tree = { readonly [key: string]: string | Tree };

function flatten(tree: Tree, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') out.set(path, value);
    else for (const [k, v] of flatten(value, path)) out.set(k, v);
  }
  return out;
}

interface Row {
  en: string[];
  zh: string[];
  avoid: string[];
}

const ticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');

/** The rows of the glossary's "Terms" table: its `ticked` terms per column. */
function glossaryRows(markdown: string): Row[] {
  const section = markdown.split(/^## Terms$/m)[1]?.split(/^## /m)[0] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|\s*(en|-+)\s*\|/.test(line))
    .map((line) => {
      const [enCell = '', zhCell = '', avoidCell = ''] = line.split('|').slice(1, -1);
      return { en: ticked(enCell), zh: ticked(zhCell), avoid: ticked(avoidCell) };
    });
}

/** Every place a catalog breaks the glossary: a word not to use, or a term not used. */
function glossaryProblems(rows: Row[], english: Map<string, string>, chinese: Map<string, string>): string[] {
  const problems: string[] = [];
  for (const [key, text] of chinese) {
    for (const row of rows)
      for (const word of row.avoid) if (text.includes(word)) problems.push(`${key}: “${word}” in “${text}”`);
  }
  for (const row of rows) {
    if (row.en.length === 0 || row.zh.length === 0) continue;
    const terms = row.en.map((t) => new RegExp(`\\b${t.replace(/[-\s]+/g, '[-\\s]+')}s?\\b`, 'i'));
    for (const [key, text] of english) {
      // Not words: emoji codes (:thread:), placeholders ({{carrier}}), command options (carrier:ZTO).
      const words = text
        .replace(/:[a-z0-9_+-]+:/g, ' ')
        .replace(/\{\{[^}]*\}\}/g, ' ')
        .replace(/[a-z-]+:(?=\S|$)/gi, ' ');
      if (!terms.some((t) => t.test(words))) continue;
      const zhText = chinese.get(key) ?? '';
      if (!row.zh.some((z) => zhText.includes(z)))
        problems.push(`${key}: “${row.en.join('/')}” should be ${row.zh.join('/')} in “${zhText}”`);
    }
  }
  return problems;
}

const ROWS = glossaryRows(readFileSync('src/blocks/i18n/GLOSSARY.md', 'utf8'));
const EN = flatten(CATALOGS.en as unknown as Tree);
const ZH = flatten(CATALOGS['zh-CN'] as unknown as Tree);

describe('the glossary', () => {
  it('is read: enough terms, words not to use and checked pairs to mean something', () => {
    expect(ROWS.length).toBeGreaterThan(30);
    expect(ROWS.flatMap((r) => r.avoid)).toEqual(
      expect.arrayContaining([
        '面单号',
        '消费',
        '花费',
        '账单',
        '收件人',
        '话题',
        '商家ID',
        '个面单',
        '等另外',
      ]),
    );
    expect(ROWS.filter((r) => r.en.length > 0 && r.zh.length > 0).length).toBeGreaterThan(8);
  });

  it('would catch a catalog that breaks it', () => {
    const english = new Map([
      ['a', 'give at least one waybill number'],
      ['b', 'The ledger export'],
      ['c', 'Who may spend'],
    ]);
    const chinese = new Map([
      ['a', '请至少提供一个面单号'],
      ['b', '账单导出'],
      ['c', '谁可以消费'],
    ]);
    const problems = glossaryProblems(ROWS, english, chinese);
    expect(problems.some((p) => p.startsWith('a: “面单号”'))).toBe(true);
    expect(problems.some((p) => p.startsWith('a: “waybill number” should be 运单号'))).toBe(true);
    expect(problems.some((p) => p.startsWith('b: “账单”'))).toBe(true);
    expect(problems.some((p) => p.startsWith('b: “ledger” should be 扣费明细'))).toBe(true);
    expect(problems.some((p) => p.startsWith('c: “消费”'))).toBe(true);
  });

  it('holds for every key of the zh-CN catalog', () => {
    expect(glossaryProblems(ROWS, EN, ZH)).toEqual([]);
  });

  it('says the reviewed words as a seller does', () => {
    expect(zh.t('problem.waybill_none')).toContain('运单号');
    expect(zh.t('charge.noneReported')).toBe('服务未返回扣费（0 点）');
    expect(zh.t('shipAlert.runAnyway', { points: '14 点' })).toBe('今天仍然运行（约 14 点）');
    expect(zh.t('home.whoMaySpend', { who: 'x' })).not.toMatch(/消费/);
    expect(zh.t('platdesk.exportFallback')).toBe('扣费明细导出');
    expect(zh.t('summary.waybillPrint', { count: 3, n: '3', shop: '57301234' })).toBe(
      '店铺 57301234 的 3 张面单打印数据',
    );
    expect(zh.t('problem.waybill_and_more', { list: 'A, B', n: '3' })).toBe('A, B 及另外 3 个');
  });

  it('fixes what the review found: the confirmation title, unfurl refusals, the day comparison', () => {
    const confirmation = renderConfirmation(zh, {
      pendingId: PENDING_ID,
      request: { kind: 'item', itemId: '680001234501', withPrices: false },
      quote: makeQuote([
        makeQuoteLine({ operation: 'platiteminfo', edition: null, unit: 'quota', configuredPoints: null }),
      ]),
      expiresInMinutes: 10,
    });
    // Issue 35: the operation named once, no bold term spaced out of the sentence.
    expect((confirmation.blocks[0] as { text: { text: string } }).text.text).toBe(
      ':money_with_wings: 商品详情：商品 680001234501，商品额度 1 次。\n查询结果会写明实际扣费。',
    );
    expect(zh.t('unfurl.refused', { reason: 'x' })).not.toMatch(/无权|权限/);
    expect(zh.t('unfurl.running')).toContain('这个商品正在自动查询中');
    expect(zh.t('digest.ordersFieldVs', { n: '120', delta: zh.t('digest.same'), date: '2026-11-19' })).toBe(
      '*订单数*\n120（较 2026-11-19 持平）',
    );
    expect(
      en.t('confirm.lastCharged', { text: 'about 10 points (¥0.10) per call', last: en.points(12) }),
    ).toBe('about 10 points (¥0.10) per call, last charged 12 points (¥0.12)');
  });
});

describe('numbers and units read the same way everywhere', () => {
  const texts = (w: typeof en) =>
    everyRender(w, REALISTIC_TEXT).map((r) => ({ name: r.name, text: JSON.stringify(r.payload) }));

  it.each([
    ['en', en],
    ['zh-CN', zh],
  ] as const)('%s: every amount in ¥ has two decimals, every "last charged" its unit', (_l, w) => {
    const all = texts(w);
    const amounts = all.flatMap(({ name, text }) =>
      [...text.matchAll(/¥-?[\d,]+(?:\.\d+)?/g)].map((m) => ({ name, amount: m[0] })),
    );
    expect(amounts.length).toBeGreaterThan(50);
    expect(amounts.filter((a) => !/\.\d\d$/.test(a.amount))).toEqual([]);
    const lastCharged = all.flatMap(({ text }) => [
      ...text.matchAll(/(?:last charged|上次实际扣费) ([^,，\\"]+)/g),
    ]);
    expect(lastCharged.length).toBeGreaterThan(0);
    for (const m of lastCharged) expect(m[1]).toMatch(/^[\d,]+ (?:points? \(|点（)¥\d+\.\d\d/);
  });

  it('zh-CN: a space between a number and 点, and points always as 点 with their ¥ value or alone', () => {
    const all = texts(zh).map((t) => t.text);
    expect(all.filter((t) => /\d点/.test(t))).toEqual([]);
    expect(all.join('\n')).toMatch(/\d 点（¥\d+\.\d\d）/);
  });
});
