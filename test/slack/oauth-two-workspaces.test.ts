/**
 * Issue 24 end to end, on both engines: two workspaces installed through Slack's OAuth flow on
 * the local Slack-compatible server (one a workspace install, one an Enterprise Grid org-wide
 * install), each admin connecting its own plat account in the App Home modal; commands from each
 * are answered with that workspace's bot token and charged to that workspace's plat account (a
 * plat service apart from the operator's default, counting each token's calls); the first answer
 * marks each account verified; one ledger's export excludes the other's charges; a forged
 * team_id gets nothing and costs nothing; uninstall deletes the tokens rows (read raw) and a
 * later command from that workspace is ignored; a refused token connected later is marked refused
 * (401) by its first call.
 */
import Database from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { PLAT_ACCOUNT_FORM } from '../../src/blocks/plat-account.js';
import { createSandbox, SANDBOX_FIXTURES, type Sandbox } from '../../src/sandbox/index.js';
import type { Schema } from '../../src/store/schema.js';
import {
  confirmationOf,
  type PlatdeskHarness,
  startPlatdeskHarness,
  textOf,
} from '../helpers/platdesk-harness.js';
import { postAction, postCommand, postEvent } from '../helpers/slack-http.js';
import {
  distributedModeEnv,
  type FakeOAuth,
  fromWorkspace,
  installFakeOAuth,
  installThroughOAuth,
  platAccountValues,
} from '../helpers/slack-oauth.js';
import { blockAction, eventCallback, slashCommand, viewSubmission } from '../helpers/slack-payloads.js';
import { ENGINES, type TestDatabase, testDatabase } from '../helpers/store-engines.js';

/** A connection of the test's own to the app's database, to read the rows themselves. */
function rawDb(db: TestDatabase): Kysely<Schema> {
  return new Kysely<Schema>({
    dialect:
      db.engine === 'postgres'
        ? new PostgresDialect({ pool: new pg.Pool({ connectionString: db.options.url ?? '', max: 1 }) })
        : new SqliteDialect({ database: new Database(db.options.path ?? '', { readonly: true }) }),
  });
}

const SIGNING_SECRET = 'test-secret';
const itemId = SANDBOX_FIXTURES.items.basic;
const range = { from: new Date(0), to: new Date(Date.now() + 86_400_000) };

/** Where a payload comes from: a workspace, or a workspace of an org-wide Grid install. */
interface From {
  teamId: string;
  userId: string;
  enterpriseId?: string;
}
const WS: From = { teamId: 'T0001', userId: 'UINST1' };
const ORG: From = { teamId: 'T0777', userId: 'UINST2', enterpriseId: 'E0001' };
const FORGED: From = { teamId: 'T0404', userId: 'UINST1' };

/** Slack's fields naming the workspace (and the org of an org-wide install) on an interactive payload. */
const interactiveFrom = (from: From) => ({
  team: {
    id: from.teamId,
    domain: 'shop',
    ...(from.enterpriseId ? { enterprise_id: from.enterpriseId } : {}),
  },
  ...(from.enterpriseId ? { enterprise: { id: from.enterpriseId, name: 'Grid org' } } : {}),
  is_enterprise_install: from.enterpriseId !== undefined,
});

describe.each(ENGINES)('two workspaces through the OAuth install on %s', (engine) => {
  let h: PlatdeskHarness;
  let oauth: FakeOAuth;
  let plat: Sandbox | undefined;
  let db: TestDatabase | undefined;
  let seq = 0;
  afterEach(async () => {
    await h?.close();
    await plat?.close();
    await db?.dispose();
  });

  async function command(from: From, text: string) {
    const id = `e2e-${++seq}`;
    const payload = {
      ...slashCommand({
        command: '/item',
        text,
        userId: from.userId,
        teamId: from.teamId,
        responseUrl: h.fake.responseUrl(id),
      }),
      ...(from.enterpriseId ? { enterprise_id: from.enterpriseId, is_enterprise_install: 'true' } : {}),
    };
    const res = await postCommand(h.eventsUrl, SIGNING_SECRET, payload);
    expect(res.status).toBe(200);
    return id;
  }

  /** A confirmed /item lookup from `from`; its answer and the Slack tokens its calls carried. */
  async function lookup(from: From, item: string = itemId) {
    const calls = h.fake.calls.length;
    const asked = await command(from, item);
    const confirmation = confirmationOf(await h.nextResponse(asked));
    const id = `e2e-${++seq}`;
    const click = {
      ...blockAction({
        actionId: 'platdesk.confirm',
        value: confirmation.confirm.value ?? '',
        text: confirmation.confirm.label,
        userId: from.userId,
        teamId: from.teamId,
        responseUrl: h.fake.responseUrl(id),
        actionTs: `1700000002.${String(seq).padStart(6, '0')}`,
      }),
      ...interactiveFrom(from),
    };
    expect((await postAction(h.eventsUrl, SIGNING_SECRET, click)).status).toBe(200);
    await h.nextResponse(id);
    const answer = await h.nextResponse(id);
    const tokens = h.fake.calls
      .slice(calls)
      .filter((c) => c.method !== 'response_url')
      .map((c) => c.token);
    return { answer, tokens };
  }

  async function connectPlatAccount(from: From, baseUrl: string, token: string) {
    const submission = viewSubmission({
      callbackId: PLAT_ACCOUNT_FORM.callbackId,
      userId: from.userId,
      values: platAccountValues(baseUrl, token),
    });
    // The view names the workspace too (Bolt reads app_installed_team_id first).
    const view = { ...submission.view, team_id: from.teamId, app_installed_team_id: from.teamId };
    const user = { ...submission.user, team_id: from.teamId };
    const payload = { ...submission, view, user, ...interactiveFrom(from) };
    const res = await postAction(h.eventsUrl, SIGNING_SECRET, payload);
    expect(res.status).toBe(200);
  }

  it('each workspace answered with its bot token, charged to its own plat account; forged and uninstalled get nothing; a refused token is marked', async () => {
    db = await testDatabase(engine);
    h = await startPlatdeskHarness({
      signingSecret: SIGNING_SECRET,
      env: {
        ...(db.options.url ? { DATABASE_URL: db.options.url } : { DATABASE_PATH: db.options.path ?? '' }),
        ...distributedModeEnv(),
      },
    });
    oauth = installFakeOAuth(h.fake, { now: () => h.now().getTime() });
    // The workspaces' own plat service (two accounts), apart from the operator's default one.
    plat = createSandbox({ token: 'plat-a', moreTokens: ['plat-b'] });
    const platUrl = await plat.listen(0);

    expect(
      (await installThroughOAuth(h.platdesk.url, oauth, { teamId: WS.teamId, installerUserId: WS.userId }))
        .status,
    ).toBe(200);
    const org = await installThroughOAuth(h.platdesk.url, oauth, {
      enterpriseId: 'E0001',
      enterpriseName: 'Grid org',
      orgWide: true,
      installerUserId: ORG.userId,
    });
    expect(org.status).toBe(200);
    const published = h.fake.callsTo('views.publish').length;
    await connectPlatAccount(WS, platUrl, 'plat-a');
    await connectPlatAccount(ORG, platUrl, 'plat-b');
    // Each submit republishes its admin's Home, with that workspace's bot token.
    await h.fake.waitFor('views.publish', () => h.fake.callsTo('views.publish').length >= published + 2);
    expect(
      new Set(
        h.fake
          .callsTo('views.publish')
          .slice(published)
          .map((c) => c.token),
      ),
    ).toEqual(new Set([oauth.currentToken('T0001'), oauth.currentToken('E0001')]));
    const store = h.platdesk.store;
    await expect.poll(() => store.platAccounts.get('E0001').then((a) => a?.token ?? null)).toBe('plat-b');
    await expect.poll(() => store.platAccounts.get('T0001').then((a) => a?.token ?? null)).toBe('plat-a');

    const a = await lookup(WS);
    expect(textOf(a.answer)).toContain(itemId);
    const b = await lookup(ORG);
    expect(textOf(b.answer)).toContain(itemId);
    // Each workspace's Slack calls carried its own installation's bot token.
    expect(a.tokens.length).toBeGreaterThan(0);
    expect(new Set(a.tokens)).toEqual(new Set([oauth.currentToken('T0001')]));
    expect(b.tokens.length).toBeGreaterThan(0);
    expect(new Set(b.tokens)).toEqual(new Set([oauth.currentToken('E0001')]));
    // Each lookup was charged to that workspace's account; the operator's default saw nothing.
    expect(plat.stats().callsByToken).toEqual({ 'plat-a': 1, 'plat-b': 1 });
    expect(h.sandbox.stats().callsByToken).toEqual({});
    // First use checked each token.
    await expect.poll(async () => (await store.platAccounts.get('T0001'))?.verifiedAt ?? null).not.toBeNull();
    await expect.poll(async () => (await store.platAccounts.get('E0001'))?.verifiedAt ?? null).not.toBeNull();

    // The ledger export of one workspace holds its charge only.
    const exportOf = async (tenant: string) => {
      const rows = [];
      for await (const e of store.forTenant(tenant).ledger.iterate(range)) rows.push(e.pendingId);
      return rows;
    };
    const [wsRows, orgRows] = [await exportOf('T0001'), await exportOf('E0001')];
    expect(wsRows).toHaveLength(1);
    expect(orgRows).toHaveLength(1);
    expect(wsRows).not.toContain(orgRows[0]);
    expect(await exportOf('')).toEqual([]);

    // A forged team id: no answer, no plat call.
    const forgedAt = h.fake.calls.length;
    await command(FORGED, itemId);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(h.fake.calls.slice(forgedAt).filter((c) => c.method === 'response_url')).toEqual([]);
    expect(plat.stats().callsByToken).toEqual({ 'plat-a': 1, 'plat-b': 1 });

    // Uninstall: the workspace's token and account rows are gone at once (read from the tables).
    const event = eventCallback({ type: 'app_uninstalled' }, { eventId: 'EvUNINSTALL1' });
    const uninstalled = await postEvent(h.eventsUrl, SIGNING_SECRET, fromWorkspace(event, 'T0001'));
    expect(uninstalled.status).toBe(200);
    const rowsOf = async (table: 'slack_installations' | 'plat_accounts') => {
      const raw = rawDb(db as TestDatabase);
      try {
        const { rows } = await sql<{
          tenant: string;
        }>`SELECT tenant FROM ${sql.table(table)} ORDER BY tenant`.execute(raw);
        return rows.map((r) => r.tenant);
      } finally {
        await raw.destroy();
      }
    };
    await expect.poll(() => rowsOf('slack_installations')).toEqual(['E0001']);
    expect(await rowsOf('plat_accounts')).toEqual(['E0001']);
    // A later command from it is ignored: no answer, no charge, no error.
    const laterAt = h.fake.calls.length;
    await command(WS, itemId);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(h.fake.calls.slice(laterAt).filter((c) => c.method === 'response_url')).toEqual([]);
    expect(plat.stats().callsByToken).toEqual({ 'plat-a': 1, 'plat-b': 1 });
    expect(h.logs().filter((line) => (JSON.parse(line) as { level: number }).level >= 50)).toEqual([]);
    // The org still works.
    expect(textOf(await h.nextResponse(await command(ORG, itemId)))).toContain(itemId);

    // The org's admin connects a token the plat API refuses: the tenant is rebuilt on the new
    // account at once, and its first call marks the account refused with the API's code.
    await connectPlatAccount(ORG, platUrl, 'plat-wrong');
    await expect.poll(() => store.platAccounts.get('E0001').then((a) => a?.token ?? null)).toBe('plat-wrong');
    await lookup(ORG, SANDBOX_FIXTURES.items.manySkus);
    await expect.poll(async () => (await store.platAccounts.get('E0001'))?.failure ?? null).toBe('401');
    expect((await store.platAccounts.get('E0001'))?.verifiedAt).toBeNull();
    expect(plat.stats().callsByToken['plat-b']).toBe(1);
  });
});
