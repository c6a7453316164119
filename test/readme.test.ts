/**
 * README.md is what a fresh clone has to go on (issue 10, points 14 and 17): it names only files
 * that are in the repository, its Quick start uses ASCII placeholders that pass the token checks,
 * and it says plainly that running the app needs a Slack app from manifest.yml and how to try
 * without a plat account. (test/start-up.test.ts runs the Quick start's command line itself.)
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { buttonOf, buttonsOf, startPlatdeskHarness, textOf, useHarness } from './helpers/platdesk-harness.js';
import {
  docPages,
  messageAsText,
  quickStartEnv,
  readmeSection,
  sampleExchanges,
  withoutDates,
} from './helpers/readme.js';
import { SLACK } from './helpers/slack-payloads.js';

const ROOT = new URL('../', import.meta.url);
const README = readFileSync(new URL('README.md', ROOT), 'utf8');

/** The repository paths a text names in backticks (source, tests, config files, docs). */
function namedFiles(text: string): string[] {
  return [...text.matchAll(/`([^`\s]+)`/g)]
    .map((m) => m[1] ?? '')
    .filter(
      (p) =>
        /^(src|test|bench|docs|scripts|\.ci)(\/[\w.-]+)*$/.test(p) ||
        /^[\w.-]+\.(yml|json|md|sample|ts)$/.test(p) ||
        p === 'Dockerfile',
    );
}

describe('README.md', () => {
  it('points at no file outside the repository, and every file or directory it names exists', () => {
    expect(README).not.toMatch(/\.\.\//);
    const named = namedFiles(README);
    expect(named).toEqual(
      expect.arrayContaining(['manifest.yml', '.env.sample', 'docs/commands.md', 'docs/operations.md']),
    );
    expect(named.filter((p) => !existsSync(new URL(p, ROOT)))).toEqual([]);
    const pictures = [...README.matchAll(/!\[[^\]]*\]\(([\w./-]+)\)/g)].map((m) => m[1] ?? '');
    expect(pictures.length).toBeGreaterThan(0);
    expect(pictures.filter((p) => !existsSync(new URL(p, ROOT)))).toEqual([]);
  });

  it('is a front door: at most 150 lines, and every page under docs/ is reachable from it', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(150);
    const pages = readdirSync(new URL('docs/', ROOT)).filter((f) => f.endsWith('.md'));
    expect(pages.length).toBeGreaterThan(5);
    const reachable = new Set(
      [README, ...pages.map((f) => readFileSync(new URL(`docs/${f}`, ROOT), 'utf8'))]
        .join('\n')
        .match(/docs\/[\w.-]+\.md|\b[\w-]+\.md\b/g),
    );
    for (const page of pages) expect(reachable.has(`docs/${page}`) || reachable.has(page), page).toBe(true);
  });

  it.each(readdirSync(new URL('docs/', ROOT)).filter((f) => f.endsWith('.md')))(
    'docs/%s names no file outside the repository and only files that exist',
    (page) => {
      const text = readFileSync(new URL(`docs/${page}`, ROOT), 'utf8');
      expect(text).not.toMatch(/\]\(\.\.\/\.\.\//);
      expect(namedFiles(text).filter((p) => !existsSync(new URL(p, ROOT)))).toEqual([]);
      for (const [, link] of text.matchAll(/\]\(([\w./-]+\.md)\)/g))
        expect(existsSync(new URL(`docs/${link}`, ROOT)), link).toBe(true);
      // Pictures too: the demo's browser test writes them (npm run demo:screenshots).
      for (const [, picture] of text.matchAll(/!\[[^\]]*\]\(([\w./-]+)\)/g))
        expect(existsSync(new URL(`docs/${picture}`, ROOT)), picture).toBe(true);
    },
  );

  it('Quick start: ASCII placeholder tokens that pass the token checks, the sandbox instead of a plat account', () => {
    const env = quickStartEnv();
    expect(env).toEqual({
      PLAT_SANDBOX: '1',
      SLACK_BOT_TOKEN: 'xoxb-your-bot-token',
      SLACK_APP_TOKEN: 'xapp-your-app-token',
    });
    expect(Object.values(env).join('')).toMatch(/^[\x21-\x7e]+$/);
    expect(loadConfig(env).slack.mode).toBe('socket');
  });

  it('Quick start says a Slack app from manifest.yml is needed and how to try without a plat account', () => {
    const text = readmeSection('Quick start').replace(/\s+/g, ' ');
    expect(text).toContain('**Running the app needs a Slack app.**');
    expect(text).toContain('create a Slack app from `manifest.yml` as the next section describes');
    expect(text).toContain('**No plat account is needed to try it:** `PLAT_SANDBOX=1`');
    expect(README.indexOf('## Create the Slack app')).toBeGreaterThan(README.indexOf('## Quick start'));
  });
});

describe("README's and the docs' sample exchanges, run as a reader would run them", () => {
  const samples = sampleExchanges();

  it('README opens with one that pays for a real page, and docs/commands.md shows one in Chinese', () => {
    expect(samples.map((s) => `${s.page}: ${s.command}`)).toEqual(
      expect.arrayContaining([
        'README.md: /orders 2200001001 页:2 每页:5',
        'docs/commands.md: /orders 2200001001 页:2 每页:50',
      ]),
    );
    const headline = samples.find((s) => s.page === 'README.md');
    expect(headline?.answer).toMatch(/第 2 \/ \d+ 页/);
  });

  // Each on a fresh app, as a reader trying it would have: no earlier charge to mention.
  it.each(samples.map((s) => [`${s.page}: ${s.command}`, s] as const))(
    '%s: the confirmation (and the page it pays for) read as shown, for the charge stated',
    async (_, sample) => {
      const h = await startPlatdeskHarness({ plat: 'sandbox' });
      try {
        const [name = '', ...args] = sample.command.split(' ');
        if (/[\u4e00-\u9fff]/.test(sample.confirmation)) h.fake.setLocale(SLACK.userId, 'zh-CN');
        const { message, confirmation } = await h.ask(name, args.join(' '));
        expect(withoutDates(messageAsText(message))).toBe(withoutDates(sample.confirmation));
        if (!sample.answer) return;
        const before = h.calls();
        const { answer } = await h.confirm(confirmation);
        expect(withoutDates(messageAsText(answer))).toBe(withoutDates(sample.answer));
        expect(h.calls()).toBe(before + 1);
      } finally {
        await h.close();
      }
    },
  );

  it('names its units next to it', () => {
    const after = README.slice(README.indexOf('```text\n/orders '));
    expect(after.replace(/\s+/g, ' ')).toContain(
      'Units: 1 point = ¥0.01; item details and prices use the item quota, not points.',
    );
  });
});

/**
 * A command the text names with a placeholder (<id>, [options], #channel, @user, …) is not run: a
 * #name or @name (alone or after `channels:`) is what Slack turns into a mention as it is picked.
 */
const PLACEHOLDER = /[<>[\]…|]|\.\.\.|(^|[\s:])[#@][a-z]+\b/;
/** What an example is said to give, where that is not a plain answer. */
const SAID: Record<string, RegExp> = {
  // docs/demo.md: after a first page of that shop, a page past the last is refused with the count.
  '/orders 2200001002 page:3': /past the last page|超出了最后一页/,
  // docs/digests-and-alerts.md names the command to list its options: alone, it answers its usage.
  '/orders digest add': /^(usage|用法)/im,
};
const REFUSED =
  /not understood|无法理解|^(usage|用法)[:：]|past the last page|超出了最后一页|is for platdesk admins|仅限 platdesk 管理员/im;

describe('every command README and the docs give as an example', () => {
  const h = useHarness({ plat: 'sandbox' });

  it('is run, in the order a reader meets them, as an admin: each is understood and gives an answer, a charged one after Confirm', async () => {
    const examples = [
      ...new Set(
        docPages().flatMap(({ text }) =>
          [...text.matchAll(/`(\/(?:item|orders|shop|waybill|platdesk)(?: [^`]*)?)`/g)].map(
            (m) => m[1] ?? '',
          ),
        ),
      ),
    ].filter((e) => e.includes(' ') && !PLACEHOLDER.test(e));
    expect(examples.length).toBeGreaterThan(30);
    const wrong: string[] = [];
    for (const example of examples) {
      const [name = '', ...args] = example.split(' ');
      const sent = await h().command(name, args.join(' '), { userId: SLACK.adminId });
      const said = await h().nextResponse(sent.responseUrlId, 10_000);
      const confirm = buttonsOf(said).find((b) => b.actionId === 'platdesk.confirm');
      let text = textOf(said);
      if (confirm) {
        const { answer } = await h().confirm(
          { confirm, cancel: buttonOf(said, 'platdesk.cancel'), text },
          { userId: SLACK.adminId },
        );
        text = textOf(answer);
      }
      const expected = SAID[example];
      if (expected ? !expected.test(text) : REFUSED.test(text))
        wrong.push(`${example} → ${text.split('\n')[0]}`);
    }
    expect(wrong).toEqual([]);
  }, 120_000);
});

describe('README and .env.sample for a first-day reader', () => {
  it('says what the EBADENGINE warnings of an older Node mean', () => {
    const text = readmeSection('Quick start').replace(/\s+/g, ' ');
    expect(text).toContain('On an older Node, `npm ci` prints `npm warn EBADENGINE` blocks');
    expect(text).toContain('they are harmless');
  });

  it('.env.sample points at pages and sections that exist', () => {
    const sample = readFileSync(new URL('.env.sample', ROOT), 'utf8');
    const pointers = [...sample.matchAll(/\b((?:docs\/)?[\w-]+\.md)(?:, "([^"]+)")?/g)];
    expect(pointers.length).toBeGreaterThan(2);
    for (const [, page = '', section] of pointers) {
      expect(page, 'README moved its sections to docs/').not.toBe('README.md');
      const text = readFileSync(new URL(page, ROOT), 'utf8');
      if (section)
        expect(text, `${page} has no section "${section}"`).toMatch(new RegExp(`^#+ ${section}$`, 'm'));
    }
  });
});
