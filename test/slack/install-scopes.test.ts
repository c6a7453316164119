/** The install asks Slack for exactly the bot scopes manifest.yml declares (issue 24). */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BOT_SCOPES } from '../../src/slack/installs.js';

describe('install scopes', () => {
  it('are the manifest bot scopes', () => {
    const manifest = readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8');
    const block = manifest.slice(manifest.indexOf('    bot:'), manifest.indexOf('settings:'));
    const scopes = [...block.matchAll(/^ {6}- ([a-z_:.]+)\s*$/gm)].map((m) => m[1]);
    expect([...BOT_SCOPES].sort()).toEqual(scopes.sort());
  });
});
