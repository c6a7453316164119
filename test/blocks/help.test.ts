import { describe, expect, it } from 'vitest';
import { renderHelp, SLASH_COMMANDS, usageLine } from '../../src/blocks/help.js';
import { resolveMarkers } from '../../src/blocks/markers.js';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import { assertWithinSlackLimits } from '../helpers/block-limits.js';
import { en, zh } from '../helpers/words.js';
import { allText } from './render-fixtures.js';

describe('renderHelp', () => {
  it.each(SLASH_COMMANDS)('%s has usage and examples within limits', (command) => {
    const { text, blocks } = renderHelp(en, command);
    assertWithinSlackLimits(blocks);
    expect(text).toContain(`How to use ${command}`);
    expect(allText(blocks)).toContain(resolveMarkers(usageLine(en, command)));
    expect(allText(blocks)).not.toMatch(/<[a-z]/);
  });

  it('gives examples the sandbox answers: every item id in any help or problem text, in both languages, is one it has', () => {
    const texts = [en, zh].flatMap((w) =>
      (['/item', '/shop', '/waybill', '/orders'] as const).map((c) => allText(renderHelp(w, c).blocks)),
    );
    texts.push(en.t('problem.item_not_an_item'), zh.t('problem.item_not_an_item'));
    const ids = texts.flatMap((t) => [...t.matchAll(/(?:id=|\/item )(\d{6,})/g)].map((m) => m[1]));
    expect(ids.length).toBeGreaterThanOrEqual(6);
    const known = new Set<string>(Object.values(SANDBOX_FIXTURES.items));
    expect(ids.filter((id) => !known.has(id ?? '') || id === SANDBOX_FIXTURES.items.missing)).toEqual([]);
  });

  it('gives the documented examples', () => {
    expect(allText(renderHelp(en, '/item').blocks)).toContain('`/item 680001234502`');
    expect(allText(renderHelp(en, '/item').blocks)).toContain(
      'https://item.taobao.com/item.htm?id=680001234501',
    );
    expect(allText(renderHelp(en, '/shop').blocks)).toContain('`/shop ww beeclothing`');
    const waybill = allText(renderHelp(en, '/waybill').blocks);
    expect(waybill).toContain('`/waybill SF1234567890123 YT1234567890123 shop:&lt;shop id&gt;`');
    expect(waybill).toContain('owner:&lt;owner id&gt;');
    expect(waybill).toContain('carrier:ZTO');
    const orders = allText(renderHelp(en, '/orders').blocks);
    expect(orders).toContain('[page:2] [size:50] [from:2026-11-20 to:2026-11-21] [remark:text] [flag:1-5]');
    expect(orders).toContain('`/orders`: opens a form');
  });

  it('has a one-line usage per command', () => {
    expect(resolveMarkers(usageLine(en, '/item'))).toBe('`/item &lt;item link or id&gt; [prices]`');
  });
});
