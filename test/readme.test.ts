/**
 * README.md is what a fresh clone has to go on (issue 10, points 14 and 17): it names only files
 * that are in the repository, its Quick start uses ASCII placeholders that pass the token checks,
 * and it says plainly that running the app needs a Slack app from manifest.yml and how to try
 * without a plat account. (test/start-up.test.ts runs the Quick start's command line itself.)
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { quickStartEnv, readmeSection } from './helpers/readme.js';

const ROOT = new URL('../', import.meta.url);
const README = readFileSync(new URL('README.md', ROOT), 'utf8');

describe('README.md', () => {
  it('points at no file outside the repository, and every file or directory it names exists', () => {
    expect(README).not.toMatch(/\.\.\//);
    const named = [...README.matchAll(/`([^`\s]+)`/g)]
      .map((m) => m[1] ?? '')
      .filter(
        (p) =>
          /^(src|test|bench|\.ci)(\/[\w.-]+)*$/.test(p) ||
          /^[\w.-]+\.(yml|json|md|sample|ts)$/.test(p) ||
          p === 'Dockerfile',
      );
    expect(named).toEqual(expect.arrayContaining(['manifest.yml', '.env.sample', 'src/config.ts']));
    expect(named.filter((p) => !existsSync(new URL(p, ROOT)))).toEqual([]);
  });

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
