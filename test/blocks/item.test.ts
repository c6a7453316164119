import type { ActionsBlock, HeaderBlock, SectionBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { ACTIONS } from '../../src/blocks/action-ids.js';
import { priceRange, renderItem, renderItemPrices } from '../../src/blocks/item.js';
import { assertWithinSlackLimits } from '../helpers/block-limits.js';
import { ITEM_ID, makeItem, makeItemPrices, makeSku } from '../helpers/domain-factories.js';
import { en } from '../helpers/words.js';
import { allText, HOSTILE, LONG_HOSTILE_TITLE } from './render-fixtures.js';

const charge = { chargedPoints: 0, quotaCalls: 1 };

describe('renderItem', () => {
  it('shows title, shop link, price range with the original struck through, SKUs and attributes', () => {
    const item = makeItem({
      skus: [
        makeSku(0, { price: 59, originalPrice: 99 }),
        makeSku(1, { price: 129, originalPrice: 199, propNames: '颜色分类,尺码', propValues: '红色,XL' }),
      ],
      videoUrl: 'https://video.example.com/v.mp4',
    });
    const { text, blocks } = renderItem(en, item, {
      prices: null,
      charge,
      itemUrl: `https://item.taobao.com/item.htm?id=${ITEM_ID}`,
    });
    assertWithinSlackLimits(blocks);
    expect((blocks[0] as HeaderBlock).text.text).toBe('Linen summer shirt');
    const all = allText(blocks);
    expect(all).toContain('*Shop:* <https://shop57301234.taobao.com/|Harbour Linen Store> (id 57301234)');
    expect(all).toContain('*Price:* ¥59.00–¥129.00 ~¥99.00–¥199.00~');
    expect(all).toContain('*SKUs (2)*');
    expect(all).toContain('• 颜色分类: 红色, 尺码: XL — ¥129.00 ~¥199.00~');
    expect(all).toContain('• Attribute 0: Value 0');
    // Bare category ids say nothing to a person (issue 35): not shown.
    expect(all).not.toContain('50010850');
    expect(all).toContain('*Video:* <https://video.example.com/v.mp4|watch>');
    expect(all).toContain('Used 1 call of the item quota');
    expect(text).toContain('Linen summer shirt');
    expect((blocks[1] as SectionBlock).accessory).toEqual({
      type: 'image',
      image_url: 'https://img.example.com/main-1.jpg',
      alt_text: 'Item image',
    });
    const buttons = blocks.find((b): b is ActionsBlock => b.type === 'actions')?.elements;
    expect(buttons).toEqual([
      expect.objectContaining({ action_id: ACTIONS.itemPrices, value: ITEM_ID }),
      // The Shop button carries the item's link: get-shop-info takes a link (spec §4.4).
      expect.objectContaining({
        action_id: ACTIONS.itemShop,
        value: `https://item.taobao.com/item.htm?id=${ITEM_ID}`,
      }),
      expect.objectContaining({
        action_id: ACTIONS.itemLink,
        url: `https://item.taobao.com/item.htm?id=${ITEM_ID}`,
      }),
    ]);
  });

  it('skips images that are not https and shows the prices answer when given', () => {
    const { blocks } = renderItem(
      en,
      makeItem({ images: ['http://img.example.com/a.jpg', '//img.example.com/b.jpg'] }),
      {
        prices: makeItemPrices(),
        charge,
      },
    );
    expect((blocks[1] as SectionBlock).accessory).toBeUndefined();
    const all = allText(blocks);
    expect(all).toContain('*Price*\n¥59.00');
    expect(all).toContain('*Original price*\n~¥99.00~');
    expect(all).toContain('*Reference price*\n¥79.50');
  });

  it('escapes a 5000-character hostile title and cuts it to a 150-character header', () => {
    const { text, blocks } = renderItem(en, makeItem({ title: LONG_HOSTILE_TITLE, shopName: HOSTILE }), {
      prices: null,
      charge,
    });
    assertWithinSlackLimits(blocks);
    const headerText = (blocks[0] as HeaderBlock).text.text;
    expect(headerText.length).toBeLessThanOrEqual(150);
    expect(
      headerText.startsWith('&lt;!channel&gt; &lt;@U1&gt; &amp; &lt;https://evil.example|click&gt;'),
    ).toBe(true);
    expect(allText(blocks)).not.toMatch(/<[!@]/);
    expect(text).not.toMatch(/<[!@]/);
  });

  it('cuts 300 SKUs and 200 attributes with exact counts', () => {
    const { blocks } = renderItem(en, makeItem({}, { skus: 300, attributes: 200 }), { prices: null, charge });
    assertWithinSlackLimits(blocks);
    const all = allText(blocks);
    expect(all).toContain('*SKUs (300)*');
    const shownSkus = all.split('\n').filter((l) => l.startsWith('• 颜色分类')).length;
    expect(all).toContain(`…and ${300 - shownSkus} more SKUs`);
    const shownAttributes = all.split('\n').filter((l) => l.startsWith('• Attribute')).length;
    expect(all).toContain(`…and ${200 - shownAttributes} more attributes`);
  });

  it('handles an item without SKUs or prices', () => {
    const { blocks } = renderItem(en, makeItem({ skus: [], attributes: [], categoryIds: [], title: '' }), {
      prices: null,
      charge,
    });
    assertWithinSlackLimits(blocks);
    expect((blocks[0] as HeaderBlock).text.text).toBe(`Item ${ITEM_ID}`);
    expect(allText(blocks)).toContain('*Price:* not listed');
  });

  it('computes price ranges', () => {
    expect(priceRange(en, [59, null, 129, 99])).toBe('¥59.00–¥129.00');
    expect(priceRange(en, [59, 59])).toBe('¥59.00');
    expect(priceRange(en, [null])).toBeNull();
  });
});

describe('renderItemPrices', () => {
  it('shows the three prices, text when a price did not parse', () => {
    const { text, blocks } = renderItemPrices(
      en,
      makeItemPrices({ referencePrice: { value: null, text: 'n/a <b>' }, originalPrice: null }),
      { chargedPoints: 0, quotaCalls: 1 },
    );
    assertWithinSlackLimits(blocks);
    expect(text).toBe(`Prices of item ${ITEM_ID}: ¥59.00`);
    const all = allText(blocks);
    expect(all).toContain('*Reference price*\nn/a &lt;b&gt;');
    expect(all).toContain('*Original price*\n—');
  });
});
