/**
 * Bold, italic, strikethrough and code that Slack renders in both languages (issue 23): the
 * marker rule (src/blocks/markers.ts), the spacing of platdesk's own markers, and every message of
 * every renderer in English and Chinese checked against the rule.
 */
import { describe, expect, it } from 'vitest';
import { CATALOGS, type Catalog, makeWords } from '../../src/blocks/i18n/words.js';
import { message, section } from '../../src/blocks/kit.js';
import { bold, code, holdMarkers, markerProblems, resolveMarkers, strike } from '../../src/blocks/markers.js';
import { escapeText, truncateMrkdwn } from '../../src/blocks/text.js';
import { en, zh } from '../helpers/words.js';
import { EXTREME_TEXT, everyRender, REALISTIC_TEXT, type Render } from './every-render.js';

/** A catalog text held, filled in (as i18next does) and resolved. */
const spaced = (text: string, values: Record<string, string> = {}) =>
  resolveMarkers(holdMarkers(text).replace(/\{\{(\w+)\}\}/g, (m, k: string) => values[k] ?? m));

describe('the marker rule (what Slack shows as formatting)', () => {
  it('accepts markers at boundaries: line edges, ASCII spaces and ASCII punctuation', () => {
    for (const ok of [
      '*Shop:* Honey Store',
      ':warning: *platdesk is busy* (try again).',
      '• `/orders digest list`: the digests',
      '*店铺：* 蜂蜜服饰旗舰店',
      '查询 *商品详情* 的费用',
      '¥129.00 ~¥199.00~',
      '(*bold*)',
      '_italic_, then text',
    ]) {
      expect(markerProblems(ok), ok).toEqual([]);
    }
  });

  it('flags markers touching Chinese text or full-width punctuation', () => {
    expect(markerProblems('*店铺：*蜂蜜服饰旗舰店')).toHaveLength(1);
    expect(markerProblems('查询商品需使用*商品详情*，费用如下')).toHaveLength(1);
    expect(markerProblems('用法：`/orders <商家 ID>`')).toHaveLength(1);
    expect(markerProblems('*Total:*12 points')).toHaveLength(1);
    expect(markerProblems('订单 `123`已超时')).toHaveLength(1);
    expect(markerProblems('价格 ~¥199.00~（原价）')).toHaveLength(1);
  });

  it('flags a lone *, ~ or backtick, but not an identifier, an emoji code, a link or a lone spaced star', () => {
    expect(markerProblems('*unclosed bold')).toHaveLength(1);
    expect(markerProblems('`unclosed code')).toHaveLength(1);
    for (const ok of [
      'check PLAT_BASE_URL and PLATDESK_ADMINS',
      'Slack refused the message (not_in_channel)',
      ':white_check_mark: :money_with_wings: done',
      '<https://example.com/a_b_c|a_b_c> and <#C1_2>',
      '2 * 3 = 6',
      'goods.html?goods_id=…',
    ]) {
      expect(markerProblems(ok), ok).toEqual([]);
    }
  });

  it('checks each line on its own: a pair never spans lines', () => {
    expect(markerProblems('*价格*\n¥129.00')).toEqual([]);
    expect(markerProblems('*价格\n*¥129.00')).toHaveLength(2);
  });
});

describe("spacing platdesk's own markers", () => {
  it('puts an ASCII space outside a marker between Chinese and a Latin word or a number, and nowhere else', () => {
    expect(spaced('旺旺号*{{a}}*属于', { a: 'beeclothing' })).toBe('旺旺号 *beeclothing* 属于');
    expect(spaced('{{sn}}已超时', { sn: code('123') })).toBe('`123` 已超时');
    expect(spaced('*Shop:* {{shop}}')).toBe('*Shop:* {{shop}}');
    expect(spaced('• `{{example}}`：{{what}}')).toBe('• `{{example}}` ：{{what}}');
    expect(spaced(':warning: *{{title}}*\n{{problems}}')).toBe(':warning: *{{title}}*\n{{problems}}');
  });

  it('drops a bold pair that would need a space between Chinese characters or beside full-width punctuation (issue 35)', () => {
    // "商品详情： 额度 1 次", "需调用 商品详情 接口": the space is the blemish; the words stand plain.
    expect(spaced('*店铺：*{{shop}}', { shop: '蜂蜜' })).toBe('店铺：蜂蜜');
    expect(spaced('*店铺：*{{shop}}', { shop: 'Honey' })).toBe('店铺：Honey');
    expect(spaced('查询{{x}}需使用*商品详情*费用')).toBe('查询{{x}}需使用商品详情费用');
    expect(spaced('（*12 点*）')).toBe('（12 点）');
    // A whole line, or a bold next to ASCII punctuation or a space, stays bold.
    expect(spaced('*按状态*\n{{lines}}')).toBe('*按状态*\n{{lines}}');
    expect(spaced('*Total:* {{total}}')).toBe('*Total:* {{total}}');
  });

  it('leaves identifiers, emoji codes and lone markers alone', () => {
    for (const text of [
      '请检查 PLAT_BASE_URL。',
      ':white_check_mark: 已添加',
      '仍然运行（约 {{points}}）',
      'Run anyway (~{{points}})',
    ]) {
      expect(spaced(text)).toBe(text);
    }
  });

  it('moves spaces just inside a marker outside it, and drops a pair around nothing', () => {
    expect(resolveMarkers(`价格${bold(' ¥12.00 ')}元`)).toBe('价格 *¥12.00* 元');
    expect(resolveMarkers(`a ${bold('')} b`)).toBe('a  b');
    expect(resolveMarkers(`合计${bold('12 点 ')}`)).toBe('合计 *12 点*');
    expect(resolveMarkers(`${code('x')}\n下一行`)).toBe('`x`\n下一行');
  });

  it('spaces values the translator fills in, and markers a renderer wrote with bold/code/strike', () => {
    expect(zh.t('item.shop', { shop: '蜂蜜服饰旗舰店' })).toBe('店铺：蜂蜜服饰旗舰店');
    expect(en.t('item.shop', { shop: 'Honey' })).toBe('*Shop:* Honey');
    // A code span made by a renderer, put into a catalog text after full-width punctuation.
    const usage = zh.t('invalid.usage', { usage: code('/orders'), command: '/orders' });
    expect(markerProblems(usage)).toEqual([]);
    expect(usage).toContain('`/orders`');
    const blocks = message('x', [section(`原价${strike('¥199.00')}`)]).blocks;
    expect(JSON.stringify(blocks)).toContain('原价 ~¥199.00~');
  });

  it('never takes foreign text for a marker: noncharacters are removed when escaping', () => {
    // What a remark would have to carry to pass for one of platdesk's own markers.
    const foreign = bold('x');
    expect(escapeText(foreign)).toBe('x');
  });

  it('any catalog given to makeWords is spaced the same way', () => {
    const catalog = structuredClone(CATALOGS.en) as unknown as { item: { shop: string } };
    catalog.item.shop = '*店铺：*{{shop}}';
    const w = makeWords('en', catalog as unknown as Catalog);
    expect(w.t('item.shop', { shop: '蜂蜜' })).toBe('店铺：蜂蜜');
  });
});

/** Every mrkdwn text of a payload, and its fallback text. */
function mrkdwnTexts(payload: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown, top: boolean): void => {
    if (Array.isArray(v)) {
      for (const x of v) walk(x, false);
      return;
    }
    if (!v || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    if (o.type === 'mrkdwn' && typeof o.text === 'string') out.push(o.text);
    else if (top && typeof o.text === 'string') out.push(o.text);
    for (const [key, value] of Object.entries(o))
      if (key !== 'text' || typeof value !== 'string') walk(value, false);
  };
  walk(payload, true);
  return out;
}

describe.each([
  ['en', en],
  ['zh-CN', zh],
] as const)('every message in %s renders its formatting', (_locale, w) => {
  const renders: Render[] = [
    ...everyRender(w, REALISTIC_TEXT),
    ...everyRender(w, EXTREME_TEXT).map((r) => ({ ...r, name: `${r.name} (extreme)` })),
  ];

  it('renders enough messages to mean something', () => {
    expect(renders.length).toBeGreaterThan(150);
  });

  it.each(renders.map((r) => [r.name, r] as const))(
    '%s: no marker Slack would show as a character',
    (_n, r) => {
      const texts = mrkdwnTexts(r.payload);
      expect(texts.length).toBeGreaterThan(0);
      expect(texts.flatMap(markerProblems)).toEqual([]);
      expect(JSON.stringify(r.payload)).not.toMatch(/[\uFDD0-\uFDEF]/);
    },
  );
});

describe('cutting a long text', () => {
  it('never leaves a span open or a closing marker against the "…"', () => {
    const text = '请给出预警编号，可用 `/orders alert list` 查看，或者 *这里是很长的粗体文字* 结束';
    for (let max = 5; max < text.length; max++) {
      const cut = truncateMrkdwn(text, max);
      expect(cut.length, cut).toBeLessThanOrEqual(max);
      expect(markerProblems(cut), cut).toEqual([]);
    }
  });
});
