import { describe, expect, it } from 'vitest';
import { renderHelp, SLASH_COMMANDS, usageLine } from '../../src/blocks/help.js';
import { resolveMarkers } from '../../src/blocks/markers.js';
import { assertWithinSlackLimits } from '../helpers/block-limits.js';
import { en } from '../helpers/words.js';
import { allText } from './render-fixtures.js';

describe('renderHelp', () => {
  it.each(SLASH_COMMANDS)('%s has usage and examples within limits', (command) => {
    const { text, blocks } = renderHelp(en, command);
    assertWithinSlackLimits(blocks);
    expect(text).toContain(`How to use ${command}`);
    expect(allText(blocks)).toContain(resolveMarkers(usageLine(en, command)));
    expect(allText(blocks)).not.toMatch(/<[a-z]/);
  });

  it('gives the documented examples', () => {
    expect(allText(renderHelp(en, '/item').blocks)).toContain('`/item 6543210987`');
    expect(allText(renderHelp(en, '/item').blocks)).toContain(
      'https://item.taobao.com/item.htm?id=6543210987',
    );
    expect(allText(renderHelp(en, '/shop').blocks)).toContain('`/shop ww &lt;account id&gt;`');
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
