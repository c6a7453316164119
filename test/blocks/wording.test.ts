/**
 * A native editor's pass, kept (issue 35): every render of every renderer, in English and in
 * Chinese, read for what a bilingual support lead would mark (test/helpers/wording.ts): a phrase
 * said twice, an internal name, half-width punctuation beside Chinese, spaces around a Chinese
 * bold term or after full-width punctuation, an ISO date or `Asia/Shanghai` in Chinese prose,
 * a Latin word touching Chinese. Every message the app sends the local Slack in any test is read
 * the same way (test/helpers/block-kit/guard.ts).
 */
import { describe, expect, it } from 'vitest';
import { describeProblem } from '../../src/blocks/words-of.js';
import { payloadWordingProblems, wordingProblems } from '../helpers/wording.js';
import { en, zh } from '../helpers/words.js';
import { everyRender, REALISTIC_TEXT } from './every-render.js';

describe('the wording check', () => {
  it('marks what the issue found', () => {
    const marked = (text: string, locale?: 'en' | 'zh-CN') =>
      wordingProblems(text, { ...(locale ? { locale } : {}), strict: true });
    expect(marked(':money_with_wings: *Item prices* for prices of item 680001234501 costs:')).not.toEqual([]);
    expect(marked('Shop id for the shop id of account beeclothing costs:')).not.toEqual([]);
    expect(marked('Waybill print data (basic) for print data of 1 waybill of shop 57301234')).not.toEqual([]);
    expect(
      marked(':shopping_bags: *Item 680001234501* on the first marketplace (item.taobao.com)'),
    ).not.toEqual([]);
    expect(marked('天猫店铺 · 类型 B · 状态 1 · 版本 3', 'zh-CN')).not.toEqual([]);
    expect(marked('print template (version waybill_print_secret_version_1)')).not.toEqual([]);
    expect(marked('查询商品 680001234501，需调用 *商品详情* 接口，费用如下：', 'zh-CN')).not.toEqual([]);
    expect(marked('• *商品详情：* 额度 1 次', 'zh-CN')).not.toEqual([]);
    expect(marked('看不出快递公司：可能是 ZTO或STO', 'zh-CN')).not.toEqual([]);
    expect(marked('2026年11月28日 08:21 · 最多的一天是 2026-11-28', 'zh-CN')).not.toEqual([]);
    expect(marked('时间均按 Asia/Shanghai 时区', 'zh-CN')).not.toEqual([]);
    expect(marked('颜色分类: 白色, 尺码: XL', 'zh-CN')).not.toEqual([]);
  });

  it('lets good prose, commands, links and quoted codes through', () => {
    const clean = [
      ':money_with_wings: *Item prices* for item 680001234501: 1 quota call.',
      'Nothing was sent or charged.',
      'Slack refused the message (error “channel_is_archived”)',
      '• `/orders digest add <owner id> #channel 09:00` — a daily digest',
    ];
    for (const text of clean) expect(wordingProblems(text, { locale: 'en' }), text).toEqual([]);
    const zhClean = [
      ':money_with_wings: 商品价格：商品 680001234501，商品额度 1 次。',
      '旺旺号“beeclothing”属于店铺 57301234。',
      '可用 `/orders digest list` 查看',
      '<https://item.taobao.com/item.htm?id=1|商品>：已签收',
      '*按状态*\n• 待发货：1 单 · ¥59.00',
    ];
    for (const text of zhClean)
      expect(wordingProblems(text, { locale: 'zh-CN', strict: true }), text).toEqual([]);
  });
});

describe('Chinese lists and alternatives (issue 35)', () => {
  it('"或" between carrier codes is spaced as Chinese spaces Latin words: ZTO 或 STO', () => {
    const p = {
      code: 'waybill_unknown_carrier' as const,
      carriers: [{ number: '7312345678901', candidates: ['ZTO', 'STO'] }],
      values: { codes: 'ZTO, STO' },
    };
    expect(describeProblem(zh, p)).toContain('7312345678901（可能是 ZTO 或 STO）');
    expect(describeProblem(en, p)).toContain('7312345678901 (could be ZTO or STO)');
  });

  it('ids, codes and times are listed with 、 in Chinese, with commas in English', () => {
    expect(zh.join(['09:00', '17:30'])).toBe('09:00、17:30');
    expect(en.join(['09:00', '17:30'])).toBe('09:00, 17:30');
    expect(zh.sentences(['未产生任何费用。', '如需查询，请确认下面的新请求。'])).toBe(
      '未产生任何费用。如需查询，请确认下面的新请求。',
    );
    expect(zh.zone('Asia/Shanghai')).toBe('北京时间');
    expect(en.zone('Asia/Shanghai')).toBe('Beijing time');
    expect(zh.zone('America/New_York')).toBe('America/New_York');
    expect(zh.day('2026-11-28')).toBe('2026年11月28日');
  });
});

describe.each([
  ['en', en],
  ['zh-CN', zh],
] as const)('every render reads as written by a person (%s)', (locale, w) => {
  const renders = everyRender(w, REALISTIC_TEXT);

  it('renders enough to mean something', () => {
    expect(renders.length).toBeGreaterThan(150);
  });

  it.each(renders.map((r) => [r.name, r] as const))('%s', (_name, r) => {
    expect(payloadWordingProblems(r.payload, { locale, strict: locale === 'zh-CN' })).toEqual([]);
  });
});
