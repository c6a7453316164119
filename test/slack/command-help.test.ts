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

describe('a slash command platdesk does not know', () => {
  const h = useHarness();

  it('is acknowledged at once, answered with the commands it knows, and logged as a warning only', async () => {
    const logsBefore = h().logs().length;
    const sent = await h().command('/platdesk-old', 'help');
    expect(sent.status).toBe(200);
    expect(sent.ms).toBeLessThan(1000);
    const answer = await h().nextResponse(sent.responseUrlId);
    expect(answer.response_type).toBe('ephemeral');
    expect(textOf(answer)).toContain('platdesk does not know `/platdesk-old`');
    for (const command of ['/item', '/shop', '/waybill', '/orders', '/platdesk'])
      expect(textOf(answer)).toContain(`\`${command}\``);
    const lines = h()
      .logs()
      .slice(logsBefore)
      .map((l) => JSON.parse(l) as { level: number; msg: string; command?: string });
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 40,
        msg: 'a slash command platdesk does not know',
        command: '/platdesk-old',
      }),
    );
    expect(h().calls()).toBe(0);
  });

  it('does not answer a known command twice', async () => {
    const sent = await h().command('/item', 'help');
    await h().nextResponse(sent.responseUrlId);
    await new Promise((r) => setTimeout(r, 300));
    expect(h().responses(sent.responseUrlId)).toHaveLength(1);
  });
});
