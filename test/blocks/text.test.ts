import { describe, expect, it } from 'vitest';
import {
  escapeClip,
  escapeText,
  mrkdwnLink,
  safeUrl,
  truncate,
  truncateMrkdwn,
} from '../../src/blocks/text.js';
import { en } from '../helpers/words.js';

describe('escapeText', () => {
  it('escapes &, < and > so text cannot mention or link anyone', () => {
    expect(escapeText('<!channel> <@U1> & <https://x.example|x>')).toBe(
      '&lt;!channel&gt; &lt;@U1&gt; &amp; &lt;https://x.example|x&gt;',
    );
  });
  it('leaves other characters alone', () => {
    expect(escapeText('颜色 "x" \'y\' *z*')).toBe('颜色 "x" \'y\' *z*');
  });
});

describe('truncate', () => {
  it('keeps short text and cuts long text with an ellipsis', () => {
    expect(truncate('abc', 3)).toBe('abc');
    expect(truncate('abcdef', 4)).toBe('abc…');
  });
  it('never splits a surrogate pair', () => {
    const cut = truncate('🔴🔴🔴', 4);
    expect(cut).toBe('🔴…');
    expect(cut.length).toBeLessThanOrEqual(4);
  });
});

describe('escapeClip and truncateMrkdwn', () => {
  it('never cuts inside an entity', () => {
    const cut = escapeClip('a&&&&', 8);
    expect(cut).toBe('a&amp;…');
    expect(cut.length).toBeLessThanOrEqual(8);
  });
  it('never leaves a link open', () => {
    const text = `see ${mrkdwnLink('https://example.com/a', 'a label')} now`;
    expect(truncateMrkdwn(text, 20)).toBe('see …');
  });
  it('never leaves an entity open in mrkdwn', () => {
    expect(truncateMrkdwn('ab &lt;x', 6)).toBe('ab …');
  });
});

describe('links', () => {
  it('builds <url|label> with the label escaped', () => {
    expect(mrkdwnLink('https://example.com/a?b=1&c=2', 'A & <B>')).toBe(
      '<https://example.com/a?b=1&amp;c=2|A &amp; &lt;B&gt;>',
    );
  });
  it('encodes | < > in the URL so it cannot end the link early', () => {
    const link = mrkdwnLink('https://example.com/a|b<c>', 'x');
    expect(link).toBe('<https://example.com/a%7Cb%3Cc%3E|x>');
  });
  it('gives only the escaped label for a URL that is not http(s)', () => {
    expect(mrkdwnLink('javascript:alert(1)', '<x>')).toBe('&lt;x&gt;');
    expect(mrkdwnLink('//img.example.com/a.jpg', 'x')).toBe('x');
    expect(mrkdwnLink(null, 'x')).toBe('x');
  });
  it('safeUrl keeps https only when asked and drops credentials', () => {
    expect(safeUrl('http://example.com/a.jpg', { httpsOnly: true })).toBeNull();
    expect(safeUrl('https://user:pw@example.com/a')).toBe('https://example.com/a');
    expect(safeUrl('https://example.com/商品')).toBe('https://example.com/%E5%95%86%E5%93%81');
  });
});

describe("money and time (by the reader's Words)", () => {
  it('formats points with yuan at 1 point = 0.01 yuan', () => {
    expect(en.points(12)).toBe('12 points (¥0.12)');
    expect(en.points(1)).toBe('1 point (¥0.01)');
    expect(en.points(0)).toBe('0 points (¥0.00)');
    expect(en.points(12345)).toBe('12,345 points (¥123.45)');
  });
  it('formats yuan with two decimals', () => {
    expect(en.yuan(59)).toBe('¥59.00');
    expect(en.yuan(12345.5)).toBe('¥12,345.50');
    expect(en.yuan(-1.5)).toBe('-¥1.50');
    expect(en.yuan(Number.NaN)).toBe('¥—');
  });
  it('formats times in Asia/Shanghai whatever the local zone', () => {
    expect(en.dateTime(new Date('2026-11-20T16:30:00Z'))).toBe('2026-11-21 00:30');
    expect(en.dateTime(new Date('2026-11-21T04:05:00Z'))).toBe('2026-11-21 12:05');
    expect(en.dateTime(new Date(Number.NaN))).toBe('—');
  });
  it('formats ages', () => {
    expect(en.age(20_000)).toBe('under a minute');
    expect(en.age(5 * 60_000)).toBe('5 min');
    expect(en.age(3 * 3_600_000)).toBe('3 h');
    expect(en.age(72 * 3_600_000)).toBe('3 days');
  });
});
