/**
 * `/platdesk audit` as a support lead reads it (issue 35): what was done in words, in the reader's
 * language; the stored setting and value shown once, as data (a code span), never as prose.
 */
import { describe, expect, it } from 'vitest';
import { wordsFor } from '../../src/blocks/i18n/words.js';
import { renderPlatdeskResult } from '../../src/blocks/platdesk.js';
import { textOf } from '../helpers/platdesk-harness.js';

const AT = new Date('2026-11-28T05:49:00Z');
const records = [
  { at: AT, actorId: 'UADMIN', action: 'settings.set', detail: 'access = {"mode":"everyone"}' },
  { at: AT, actorId: 'UADMIN', action: 'someday.new_action', detail: 'x `y` <@U1>' },
];

describe.each([
  ['en', 'set'],
  ['zh-CN', '修改设置'],
] as const)('/platdesk audit in %s', (locale, setWords) => {
  it('names the action in words and shows the stored detail once, as code', () => {
    const text = textOf(renderPlatdeskResult(wordsFor(locale), { kind: 'audit', records }));
    expect(text).toContain(`<@UADMIN> ${setWords}`);
    expect(text).toContain('`access = {"mode":"everyone"}`');
    // An action this version has no words for stays a code, marked as one, not prose.
    expect(text).toContain('`someday.new_action`');
    expect(text).not.toMatch(/(^|[^`])settings\.set/m);
    // Stored text cannot end the code span or mention anyone.
    expect(text).toContain("`x 'y' &lt;@U1&gt;`");
  });
});
