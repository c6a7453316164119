/**
 * `/platdesk` on a real store: admin subcommands are refused to others; every change persists in
 * the store (across a restart) and writes an audit row naming who made it.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { renderLedgerCsv, renderPlatdeskResult } from '../../src/blocks/platdesk.js';
import { digestCap } from '../../src/digest/runner.js';
import { createLocaleSettings } from '../../src/lookups/locale.js';
import { type PlatdeskResult, runPlatdeskCommand } from '../../src/lookups/platdesk-command.js';
import { ledgerCsv, reportRange } from '../../src/lookups/reports.js';
import { SETTING_KEYS, spendSettings } from '../../src/lookups/settings.js';
import { createStepsAdmin } from '../../src/lookups/steps.js';
import type { NewLedgerEntry, Store } from '../../src/store/store.js';
import { allText } from '../blocks/render-fixtures.js';
import { ledgerEntry } from '../helpers/ledger-entry.js';
import { openTestStore } from '../helpers/store-engines.js';
import { en } from '../helpers/words.js';

const ADMIN = 'UADMIN';
const USER = 'U1234';
const OTHER = 'U5678';
const NOW = new Date('2026-11-20T04:00:00Z');

let store: Store;
const admins = new Set([ADMIN]);

async function run(text: string, userId = ADMIN, s: Store = store): Promise<PlatdeskResult> {
  return await runPlatdeskCommand(text, {
    userId,
    isAdmin: async (u) =>
      admins.has(u) || ((await s.settings.get<string[]>(SETTING_KEYS.admins)) ?? []).includes(u),
    configuredAdmins: [ADMIN],
    store: s,
    settings: spendSettings(s.settings),
    locales: createLocaleSettings(s.settings),
    now: NOW,
    // Steps are tested through the real app (test/slack/workflow-steps.test.ts); quotes need a client.
    steps: createStepsAdmin({
      lookups: {
        settings: spendSettings(s.settings),
        quote: async () => ({ lines: [], totalPoints: null, quotaCalls: 0 }),
        ensureAccount: async () => undefined,
      },
      store: s,
    }),
  });
}
/** The answer's lines as an English reader sees them (mrkdwn, one block per line). */
const linesOf = (r: PlatdeskResult) =>
  r.kind === 'invalid' || r.kind === 'denied'
    ? `not settings: ${JSON.stringify(r)}`
    : renderPlatdeskResult(en, r)
        .blocks.slice(1)
        .map((b) => (b.type === 'section' ? (b.text?.text ?? '') : ''))
        .join('\n');
const problemsOf = (r: PlatdeskResult) =>
  r.kind === 'invalid' ? allText(renderPlatdeskResult(en, r).blocks) : `not invalid: ${r.kind}`;
const settings = () => spendSettings(store.settings);
const audits = async () => await store.audit.list(100);

let charges = 0;
function charge(userId: string | null, points: number, at = NOW): NewLedgerEntry {
  return ledgerEntry({ chargeId: `test-charge-${++charges}`, at, userId, channelId: 'C1234', points });
}

beforeEach(async () => {
  store = await openTestStore(':memory:', { now: () => NOW });
});
afterEach(async () => await store.close());

describe('admin subcommands', () => {
  it.each([
    'access everyone',
    'access only <@U5678>',
    'budget workspace daily 100',
    'budget',
    'shop add tea owner:2200001002',
    'shops',
    'shops registered-only on',
    'cache platiteminfo 0',
    'admins add <@U5678>',
    'admins',
    'audit',
    'export month',
  ])('"%s" is denied to a non-admin and changes nothing', async (text) => {
    const result = await run(text, USER);
    expect(result).toMatchObject({ kind: 'denied', reason: 'admin_only' });
    expect(allText(renderPlatdeskResult(en, result).blocks)).toContain('is for platdesk admins');
    expect(await audits()).toEqual([]);
  });

  it('usage of others or of the workspace is denied to a non-admin; their own is not', async () => {
    expect((await run(`usage <@${OTHER}>`, USER)).kind).toBe('denied');
    expect((await run('usage all', USER)).kind).toBe('denied');
    expect((await run('usage month', USER)).kind).toBe('usage');
    expect((await run(`usage <@${OTHER}>`, ADMIN)).kind).toBe('usage');
  });

  it('help shows the admin lines to admins only', async () => {
    expect(await run('', USER)).toEqual({ kind: 'help', admin: false });
    expect(await run('help', ADMIN)).toEqual({ kind: 'help', admin: true });
  });
});

describe('settings changes persist and are audited with the actor', () => {
  it('budget: workspace, every user, one user, off, time zone', async () => {
    expect(linesOf(await run('budget workspace daily 500'))).toContain('Workspace: daily 500 points');
    await run('budget user monthly 2000');
    await run(`budget <@${USER}|agent> daily 50`);
    await run(`budget ${OTHER} monthly 70`);
    await run('budget workspace daily off');
    await run('budget timezone America/New_York');
    expect(await settings().budgets()).toEqual({
      timezone: 'America/New_York',
      workspace: { daily: null, monthly: null },
      perUser: { daily: null, monthly: 2000 },
      users: { [USER]: { daily: 50, monthly: null }, [OTHER]: { daily: null, monthly: 70 } },
      channels: {},
    });
    const rows = await audits();
    expect(rows).toHaveLength(6);
    expect(
      rows.every((a) => a.actorId === ADMIN && a.action === 'settings.set' && a.detail.includes('budgets')),
    ).toBe(true);
  });

  it('budget #channel: a channel cap per period, listed with the others, cleared with off', async () => {
    const set = await run('budget <#C0SUPPORT|support> daily 300');
    expect(set.kind).toBe('budgets');
    expect(linesOf(set)).toContain('<#C0SUPPORT>: daily 300 points, monthly no cap');
    await run('budget C0ORDERS monthly 5000');
    await run('budget <#C0SUPPORT> monthly 4000');
    expect((await settings().budgets()).channels).toEqual({
      C0SUPPORT: { daily: 300, monthly: 4000 },
      C0ORDERS: { daily: null, monthly: 5000 },
    });
    // The listing (`/platdesk budget`) shows every channel cap.
    const listed = linesOf(await run('budget'));
    expect(listed).toContain('<#C0SUPPORT>: daily 300 points, monthly 4,000 points');
    expect(listed).toContain('<#C0ORDERS>: daily no cap, monthly 5,000 points');
    // Cleared period by period; a channel with no cap left is no longer listed.
    await run('budget <#C0ORDERS|orders> monthly off');
    await run('budget <#C0SUPPORT|support> daily off');
    expect((await settings().budgets()).channels).toEqual({ C0SUPPORT: { daily: null, monthly: 4000 } });
    expect(linesOf(await run('budget'))).not.toContain('C0ORDERS');
    const rows = await audits();
    expect(rows).toHaveLength(5);
    expect(rows.every((a) => a.actorId === ADMIN && a.detail.includes('budgets'))).toBe(true);
    // Admin-only, as every cap.
    expect(await run('budget <#C0SUPPORT|support> daily 1', USER)).toMatchObject({ kind: 'denied' });
    expect((await settings().budgets()).channels).toEqual({ C0SUPPORT: { daily: null, monthly: 4000 } });
  });

  it('budget: bad forms change nothing', async () => {
    expect(problemsOf(await run('budget workspace weekly 5'))).toContain('daily|monthly');
    expect(problemsOf(await run('budget workspace daily lots'))).toContain('whole number');
    expect(problemsOf(await run('budget someone daily 5'))).toContain('@user');
    expect(problemsOf(await run('budget someone daily 5'))).toContain('#channel');
    expect(problemsOf(await run('budget <#C0SUPPORT|support> weekly 5'))).toContain('daily|monthly');
    expect(problemsOf(await run('budget timezone Mars/Olympus'))).toContain('not a time zone');
    expect(await audits()).toEqual([]);
  });

  it('access: only listed users, groups and channels; then everyone again', async () => {
    const result = await run(`access only <@${USER}|agent> <!subteam^S123|@support> <#C999|orders>`);
    expect(linesOf(result)).toContain(`<@${USER}>`);
    expect(await settings().access()).toEqual({
      mode: 'listed',
      users: [USER],
      groups: ['S123'],
      channels: ['C999'],
    });
    await run('access everyone');
    expect((await settings().access()).mode).toBe('everyone');
    expect((await audits()).map((a) => a.actorId)).toEqual([ADMIN, ADMIN]);
    expect(problemsOf(await run('access only nobody'))).toContain('@users');
    expect(problemsOf(await run('access some'))).toContain('everyone, or only');
  });

  it('shop add / remove / registered-only', async () => {
    await run('shop add tea owner:2200001002 shop:57305678 <#C1|tea-support> channel:<#C2>');
    await run('shop add clothing owner:2200001001');
    expect((await await settings().shops()).shops).toEqual([
      { alias: 'tea', ownerId: '2200001002', shopId: '57305678', channels: ['C1', 'C2'] },
      { alias: 'clothing', ownerId: '2200001001', shopId: null, channels: [] },
    ]);
    // Adding an alias again replaces it.
    await run('shop add TEA owner:2200001002');
    expect((await settings().shops()).shops.map((s) => [s.alias, s.channels])).toEqual([
      ['clothing', []],
      ['TEA', []],
    ]);
    await run('shops registered-only on');
    expect((await await settings().shops()).registeredOnly).toBe(true);
    expect(linesOf(await run('shops'))).toContain('Only registered shops may be queried.');
    await run('shop remove clothing');
    expect((await settings().shops()).shops.map((s) => s.alias)).toEqual(['TEA']);
    expect(await audits()).toHaveLength(5);
    expect((await audits()).every((a) => a.actorId === ADMIN)).toBe(true);
    expect(problemsOf(await run('shop remove nope'))).toContain('no shop nope');
    expect(problemsOf(await run('shop add bad/alias owner:1'))).toContain('alias');
    expect(problemsOf(await run('shop add x'))).toContain('owner:&lt;owner id&gt;');
    expect(problemsOf(await run('shop add x owner:1 what'))).toContain('not understood: what');
    expect(problemsOf(await run('shops registered-only maybe'))).toContain('on|off');
    expect(await audits()).toHaveLength(5);
  });

  it('cache lifetimes per operation (0 = not cached)', async () => {
    expect(linesOf(await run('cache platiteminfo 0'))).toContain('`platiteminfo` · Item details: not cached');
    await run('cache paging-orders 60');
    expect(await settings().cacheTtlS()).toMatchObject({
      platiteminfo: 0,
      'paging-orders': 60,
      platiteminfoprice: 600,
    });
    expect(await audits()).toHaveLength(2);
    expect(problemsOf(await run('cache nope 5'))).toContain('operations:');
    expect(problemsOf(await run('cache platiteminfo soon'))).toContain('seconds');
  });

  it('the digest cost cap: shown, set (audited), validated', async () => {
    expect(linesOf(await run('digest-cap'))).toContain('above 200 points');
    expect(linesOf(await run('digest-cap 50'))).toContain('above 50 points');
    expect(await digestCap(store)).toBe(50);
    expect(await audits()).toHaveLength(1);
    expect(problemsOf(await run('digest-cap lots'))).toContain('whole number');
    expect((await run('digest-cap 10', USER)).kind).toBe('denied');
  });

  it('admins add / remove; configured admins stay', async () => {
    const added = await run(`admins add <@${USER}|agent>`);
    expect(linesOf(added)).toContain(`<@${USER}>`);
    expect(await store.settings.get(SETTING_KEYS.admins)).toEqual([USER]);
    // The new admin can use admin subcommands at once.
    expect((await run('budget workspace daily 5', USER)).kind).toBe('budgets');
    const removed = await run(`admins remove <@${ADMIN}> <@${USER}>`);
    expect(linesOf(removed)).toContain('stay admins: they are set in PLATDESK_ADMINS');
    expect(await store.settings.get(SETTING_KEYS.admins)).toEqual([]);
    expect((await run('budget', USER)).kind).toBe('denied');
    expect((await audits()).map((a) => a.actorId)).toEqual([ADMIN, USER, ADMIN]);
  });

  it('audit lists the changes with who made them, escaped', async () => {
    await run('shop add tea owner:2200001002');
    // A stored value with Slack markup in it (e.g. written by an older version) is shown as text.
    await store.settings.set('note', '<!channel> & <@U9>', OTHER);
    const lines = linesOf(await run('audit'));
    expect(lines).toContain(`<@${ADMIN}> set: \`shops = `);
    expect(lines).toContain(`<@${OTHER}> set: \`note = "&lt;!channel&gt; &amp; &lt;@U9&gt;"\``);
    expect(lines).not.toContain('<!channel>');
  });

  it("confirm under N / always is the user's own preference (no admin needed)", async () => {
    expect(linesOf(await run('confirm under 50', USER))).toContain('under 50 points run without asking');
    expect(await store.prefs.getConfirmThreshold(USER)).toBe(50);
    expect(await store.prefs.getConfirmThreshold(OTHER)).toBeNull();
    expect(linesOf(await run('confirm', USER))).toContain('Lookups under 50 points');
    await run('confirm always', USER);
    expect(await store.prefs.getConfirmThreshold(USER)).toBeNull();
  });
});

describe('settings survive a restart', () => {
  const dir = mkdtempSync(join(tmpdir(), 'platdesk-settings-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('budgets, access, shops and cache lifetimes read back from a reopened file', async () => {
    const path = join(dir, 'platdesk.sqlite');
    const first = await openTestStore(path, { now: () => NOW });
    await run('budget user daily 300', ADMIN, first);
    await run(`access only <@${USER}>`, ADMIN, first);
    await run('shop add tea owner:2200001002 <#C1>', ADMIN, first);
    await run('cache get-shop-info 0', ADMIN, first);
    first.close();
    const second = await openTestStore(path, { now: () => NOW });
    try {
      const s = spendSettings(second.settings);
      expect((await s.budgets()).perUser.daily).toBe(300);
      expect(await s.access()).toMatchObject({ mode: 'listed', users: [USER] });
      expect((await s.shops()).shops[0]).toMatchObject({ alias: 'tea', channels: ['C1'] });
      expect((await s.cacheTtlS())['get-shop-info']).toBe(0);
      expect(await second.audit.list(10)).toHaveLength(4);
    } finally {
      second.close();
    }
  });
});

describe('reports', () => {
  it("usage: the user's own spend today", async () => {
    await store.ledger.record(charge(USER, 10));
    await store.ledger.record(charge(OTHER, 20));
    const result = await run('usage', USER);
    if (result.kind !== 'usage') throw new Error(result.kind);
    expect(result.report.userId).toBe(USER);
    expect(result.report.totals).toEqual({ points: 10, quotaCalls: 0, calls: 1 });
    const all = await run('usage today all', ADMIN);
    if (all.kind !== 'usage') throw new Error(all.kind);
    expect(all.report.totals.points).toBe(30);
    expect(problemsOf(await run('usage yesterday', USER))).toContain('usage takes');
  });

  it("export: this month's ledger as CSV; YYYY-MM for another month", async () => {
    await store.ledger.record(charge(USER, 10));
    await store.ledger.record(charge(OTHER, 20, new Date('2026-10-15T04:00:00Z')));
    const result = await run('export month');
    if (result.kind !== 'export') throw new Error(result.kind);
    expect(result.filename).toBe('platdesk-ledger-2026-11.csv');
    const range = reportRange('month', NOW, 'Asia/Shanghai');
    expect(renderLedgerCsv(en, result.entries)).toBe(
      ledgerCsv(await store.ledger.list(range).then((e) => e.reverse())),
    );
    expect(result.entries).toHaveLength(1);
    const october = await run('export 2026-10');
    if (october.kind !== 'export') throw new Error(october.kind);
    expect(october).toMatchObject({ filename: 'platdesk-ledger-2026-10.csv' });
    expect(october.entries.map((e) => e.userId)).toEqual([OTHER]);
    expect(problemsOf(await run('export 2026-13'))).toContain('YYYY-MM');
    expect(problemsOf(await run('export forever'))).toContain('export takes');
  });
});

it('unknown subcommands are named', async () => {
  expect(problemsOf(await run('frobnicate'))).toContain('unknown subcommand frobnicate');
});
