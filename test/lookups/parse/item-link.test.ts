/**
 * Item links and ids (spec/notes.md, "Item links"): every documented shape is read to an item id and
 * its marketplace; short links and anything else are refused before any call (DESIGN rule 3).
 */
import { describe, expect, it } from 'vitest';
import {
  canonicalItemUrl,
  findItemRefs,
  marketplaceOfHost,
  parseItemRef,
  unwrapSlackLink,
} from '../../../src/lookups/parse/item-link.js';
import { SANDBOX_FIXTURES } from '../../../src/sandbox/index.js';

const { items, links } = SANDBOX_FIXTURES;

describe('parseItemRef: the link shapes of notes.md', () => {
  it.each([
    ['first marketplace', links.firstMarketplace, items.basic, '0'],
    ['branded store', links.brandedStore, items.tea, '1'],
    ['branded store, mobile host', `https://detail.m.tmall.com/item.htm?id=${items.tea}`, items.tea, '1'],
    ['mobile page with itemId=', links.mobile, items.manySkus, '0'],
    ['second marketplace goods_id=', links.secondMarketplace, items.secondMarketplace, '2'],
    [
      'second marketplace with tracking parameters',
      `https://mobile.yangkeduo.com/goods.html?goods_id=${items.secondMarketplace}&refer_page_name=index&_x_share=1`,
      items.secondMarketplace,
      '2',
    ],
    [
      'tracking parameters before id',
      `https://item.taobao.com/item.htm?spm=a1z10.1&id=${items.basic}&ns=1`,
      items.basic,
      '0',
    ],
    ['http, not https', `http://item.taobao.com/item.htm?id=${items.basic}`, items.basic, '0'],
    ['no scheme', `item.taobao.com/item.htm?id=${items.basic}`, items.basic, '0'],
  ] as const)('%s', (_name, input, itemId, marketplace) => {
    expect(parseItemRef(input)).toEqual({
      ok: true,
      itemId,
      marketplace,
      url: canonicalItemUrl(itemId, marketplace),
    });
  });

  it('a bare numeric id is an item id of no known marketplace', () => {
    expect(parseItemRef(` ${items.basic} `)).toEqual({
      ok: true,
      itemId: items.basic,
      marketplace: null,
      url: null,
    });
  });

  it('drops tracking parameters from the canonical link', () => {
    const ref = parseItemRef(`https://item.taobao.com/item.htm?spm=secret&id=${items.basic}&utm=x`);
    expect(ref.ok && ref.url).toBe(`https://item.taobao.com/item.htm?id=${items.basic}`);
  });
});

describe('parseItemRef: links as Slack sends them', () => {
  it('unwraps <url|label>', () => {
    expect(parseItemRef(`<${links.brandedStore}|detail.tmall.com/item.htm>`)).toMatchObject({
      ok: true,
      itemId: items.tea,
      marketplace: '1',
    });
  });

  it('unwraps <url> without a label', () => {
    expect(parseItemRef(`<${links.secondMarketplace}>`)).toMatchObject({
      ok: true,
      itemId: items.secondMarketplace,
    });
  });

  it('reads &amp; as & (Slack escapes it in command text)', () => {
    const ref = parseItemRef(`<https://item.taobao.com/item.htm?spm=a1&amp;id=${items.basic}|item>`);
    expect(ref).toMatchObject({ ok: true, itemId: items.basic, marketplace: '0' });
    expect(unwrapSlackLink('a&amp;b&amp;c')).toBe('a&b&c');
  });
});

describe('parseItemRef: refused without a call', () => {
  it.each([
    'https://m.tb.cn/h.5abcDEF?tk=xyz',
    'm.tb.cn/h.5abcDEF',
    'https://e.tb.cn/h.gHiJkl',
    '<https://m.tb.cn/h.5abcDEF|m.tb.cn/h.5abcDEF>',
  ])('short link %s → short_link', (input) => {
    expect(parseItemRef(input)).toMatchObject({ ok: false, reason: 'short_link' });
  });

  it.each([
    ['a word', 'hello'],
    ['an empty string', ''],
    ['a short number', '1234'],
    ['an id with letters', `https://item.taobao.com/item.htm?id=abc${items.basic}`],
    ['a link without an id', 'https://item.taobao.com/item.htm?spm=a1'],
    ['another site', `https://example.com/item.htm?id=${items.basic}`],
    ['a look-alike host', `https://item.taobao.com.evil.example/item.htm?id=${items.basic}`],
    ['another scheme', `ftp://item.taobao.com/item.htm?id=${items.basic}`],
    ['a script URL', 'javascript:alert(1)'],
    ['a host without a dot', `https://localhost/item.htm?id=${items.basic}`],
  ])('%s → not_an_item', (_name, input) => {
    expect(parseItemRef(input)).toMatchObject({ ok: false, reason: 'not_an_item' });
  });
});

describe('marketplaceOfHost', () => {
  it.each([
    ['item.taobao.com', '0'],
    ['h5.m.taobao.com', '0'],
    ['detail.tmall.com', '1'],
    ['detail.tmall.hk', '1'],
    ['mobile.yangkeduo.com', '2'],
    ['mobile.pinduoduo.com', '2'],
    ['example.com', null],
    ['nottaobao.com', null],
  ])('%s → %s', (host, marketplace) => {
    expect(marketplaceOfHost(host)).toBe(marketplace);
  });
});

describe('findItemRefs: every item link in free text', () => {
  it('finds each link once, in order, with short links kept for a hint', () => {
    const text = [
      `look at <${links.firstMarketplace}|this one>`,
      `and ${links.brandedStore},`,
      `again https://item.taobao.com/item.htm?spm=1&amp;id=${items.basic}`,
      'and https://m.tb.cn/h.abc',
      'not https://example.com/page?id=123456',
    ].join(' ');
    const refs = findItemRefs(text);
    expect(refs).toEqual([
      { ok: true, itemId: items.basic, marketplace: '0', url: links.firstMarketplace },
      { ok: true, itemId: items.tea, marketplace: '1', url: links.brandedStore },
      { ok: false, reason: 'short_link', input: 'https://m.tb.cn/h.abc' },
    ]);
  });

  it('finds nothing in text without links', () => {
    expect(findItemRefs(`item ${items.basic} please`)).toEqual([]);
  });
});
