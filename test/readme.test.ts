/**
 * README.md is what a fresh clone has to go on (issue 10, points 14 and 17): it names only files
 * that are in the repository, its Quick start uses ASCII placeholders that pass the token checks,
 * and it says plainly that running the app needs a Slack app from manifest.yml and how to try
 * without a plat account. (test/start-up.test.ts runs the Quick start's command line itself.)
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { quickStartEnv, readmeSection } from './helpers/readme.js';

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
