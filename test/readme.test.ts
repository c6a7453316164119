/**
 * README.md is what a fresh clone has to go on (issue 10, points 14 and 17): it names only files
 * that are in the repository, its Quick start uses ASCII placeholders that pass the token checks,
 * and it says plainly that running the app needs a Slack app from manifest.yml and how to try
 * without a plat account. (test/start-up.test.ts runs the Quick start's command line itself.)
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { useHarness } from './helpers/platdesk-harness.js';
import { messageAsText, quickStartEnv, readmeBlock, readmeSection, withoutDates } from './helpers/readme.js';
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

describe("README's headline example, run as a reader would run it", () => {
  const h = useHarness({ plat: 'sandbox' });

  it('the confirmation and the page it pays for read as README shows them, in Chinese, for the charge stated', async () => {
    const block = readmeBlock('/orders ');
    const [command = '', confirmationText = '', answerText = ''] = block.split('\n\n');
    const [name = '', ...args] = command.split(' ');
    h().fake.setLocale(SLACK.userId, 'zh-CN');
    const { message, confirmation } = await h().ask(name, args.join(' '));
    expect(withoutDates(messageAsText(message))).toBe(withoutDates(confirmationText));
    const before = h().calls();
    const { answer } = await h().confirm(confirmation);
    expect(withoutDates(messageAsText(answer))).toBe(withoutDates(answerText));
    // A real page: not past the last, and what it says it charged is what the sandbox counted.
    expect(answerText).toMatch(/第 2 \/ \d+ 页/);
    expect(h().calls()).toBe(before + 1);
  });

  it('names its units next to it', () => {
    const after = README.slice(README.indexOf(readmeBlock('/orders ')));
    expect(after.replace(/\s+/g, ' ')).toContain(
      'Units: 1 point = ¥0.01; item details and prices use the item quota, not points.',
    );
  });
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
