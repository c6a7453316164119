import type { SectionBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { renderShopId, renderShopInfo, shopStatusLabel, shopTypeLabel } from '../../src/blocks/shop.js';
import { assertWithinSlackLimits } from '../helpers/block-limits.js';
import { makeShopInfo, SHOP_ID } from '../helpers/domain-factories.js';
import { en, zh } from '../helpers/words.js';
import { allText } from './render-fixtures.js';

const charge = { chargedPoints: 5, quotaCalls: 0 };

describe('renderShopInfo', () => {
  it('shows name with link, type label, status, version, links and the icon', () => {
    const { text, blocks } = renderShopInfo(en, makeShopInfo(), charge);
    assertWithinSlackLimits(blocks);
    const all = allText(blocks);
    expect(all).toContain('*<https://harbourlinen.tmall.com/|Harbour Linen Store>*');
    expect(all).toContain('Tmall store · open');
    // Codes mapped to words (issue 35): no bare status code, no undocumented version.
    expect(all).not.toMatch(/version|status \d/);
    expect(all).toContain(`*Shop id:* ${SHOP_ID}`);
    expect(all).toContain('<https://shop57301234.taobao.com/|its Taobao page>');
    expect(all).toContain('Charged 5 points (¥0.05)');
    expect((blocks[0] as SectionBlock).accessory).toMatchObject({
      type: 'image',
      image_url: 'https://img.example.com/shop-icon.png',
    });
    expect(text).toBe(`Harbour Linen Store: Tmall store, shop id ${SHOP_ID}`);
  });

  it('labels every shop type and keeps unknown ones raw', () => {
    expect(shopTypeLabel(en, '0')).toBe('Taobao shop');
    expect(shopTypeLabel(en, '1')).toBe('Tmall store');
    expect(shopTypeLabel(en, '2')).toBe('Pinduoduo shop');
    // get-shop-info's own letters: C a Taobao shop, B a Tmall store, P a Pinduoduo shop.
    expect(['C', 'B', 'P'].map((c) => shopTypeLabel(zh, c))).toEqual(['淘宝店铺', '天猫店铺', '拼多多店铺']);
    expect(shopTypeLabel(en, '7')).toBe('Shop of another kind (7)');
    expect(shopStatusLabel(zh, '1')).toBe('营业中');
    expect(shopStatusLabel(en, '42')).toBeNull();
    expect(shopTypeLabel(en, '<b>')).toBe('Shop of another kind (&lt;b&gt;)');
    expect(shopTypeLabel(en, null)).toBe('Shop type not given');
  });

  it('shows a name without a link and no icon when the URLs are unusable', () => {
    const { blocks } = renderShopInfo(
      en,
      makeShopInfo({
        url: 'javascript:alert(1)',
        firstMarketplaceUrl: null,
        iconUrl: 'http://img.example.com/i.png',
        status: null,
        version: '',
      }),
      charge,
    );
    const section = blocks[0] as SectionBlock;
    expect(section.accessory).toBeUndefined();
    expect(section.text?.text).toContain('*Harbour Linen Store*\nTmall store\n');
    expect(section.text?.text).not.toContain('javascript');
  });
});

describe('renderShopId', () => {
  it('gives the shop id of an account', () => {
    const { text, blocks } = renderShopId(en, { found: true, wwid: 'seller_01', shopId: SHOP_ID }, charge);
    assertWithinSlackLimits(blocks);
    expect(text).toBe(`Seller account *seller_01* belongs to shop *${SHOP_ID}*.`);
  });

  it('answers "shop does not exist" as a normal, friendly answer with its charge', () => {
    const { text, blocks } = renderShopId(
      en,
      { found: false, wwid: 'seller_02', message: '店铺不存在 shop does not exist' },
      charge,
    );
    assertWithinSlackLimits(blocks);
    expect(text).toBe('No shop was found for seller account *seller_02*.');
    const all = allText(blocks);
    // The service's own "shop does not exist" would only say it again, in its own words.
    expect(all).not.toContain('shop does not exist');
    expect(all).toContain('Charged 5 points (¥0.05)');
    expect(all).not.toContain(':warning:');
  });
});
