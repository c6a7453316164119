/**
 * `help` of each lookup command end to end: acknowledged at once, answered privately with the
 * command's usage, and no plat call.
 */
import { describe, expect, it } from 'vitest';
import { textOf, useHarness } from '../helpers/platdesk-harness.js';

describe('help of the lookup commands', () => {
  const h = useHarness();

  it.each([
    ['/item', ['How to use /item', '/item &lt;item link or id&gt; [prices]']],
    ['/orders', ['How to use /orders']],
    ['/shop', ['How to use /shop']],
    ['/waybill', ['How to use /waybill']],
  ])('%s answers help with the usage, ephemeral, and makes no call', async (command, usage) => {
    const sent = await h().command(command, 'help');
    expect(sent.status).toBe(200);
    expect(sent.ms).toBeLessThan(1000);
    const answer = await h().nextResponse(sent.responseUrlId);
    expect(answer.response_type).toBe('ephemeral');
    for (const expected of usage) expect(textOf(answer)).toContain(expected);
    expect(h().calls()).toBe(0);
  });
});
