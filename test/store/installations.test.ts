/**
 * Slack installations and plat accounts on both engines (issue 24): Bolt's InstallationStore
 * contract (workspace installs by team id, org-wide Grid installs by enterprise id), tokens sealed
 * in the rows (read raw), a sealed value copied to another row refused, uninstall deleting the
 * tokens at once and scheduling the erasure, the refresh under the installation's lock (two
 * stores refreshing at once: one refresh), and re-sealing under a new key, idempotent.
 */
import { randomBytes } from 'node:crypto';
import type { Installation } from '@slack/bolt';
import Database from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { Schema } from '../../src/store/schema.js';
import type { EncryptionKey } from '../../src/store/secrets.js';
import type { Store } from '../../src/store/store.js';
import { ENGINES, type TestDatabase, testDatabase } from '../helpers/store-engines.js';

const key = (id: string): EncryptionKey => ({ id, key: randomBytes(32) });
const T0 = Date.parse('2026-11-26T00:00:00.000Z');

const workspaceInstall: Installation<'v2', false> = {
  team: { id: 'T0001', name: 'Shop one' },
  enterprise: undefined,
  user: { id: 'UINSTALLER1', token: undefined, scopes: undefined },
  bot: {
    token: 'xoxe.xoxb-1-workspace-token',
    refreshToken: 'xoxe-1-workspace-refresh',
    expiresAt: Math.floor(T0 / 1000) + 43_200,
    scopes: ['commands', 'chat:write'],
    id: 'B0001',
    userId: 'UBOT0001',
  },
  tokenType: 'bot',
  isEnterpriseInstall: false,
  appId: 'A1234',
  authVersion: 'v2',
};

const orgInstall: Installation<'v2', true> = {
  team: undefined,
  enterprise: { id: 'E0001', name: 'Grid org' },
  user: { id: 'UINSTALLER2', token: undefined, scopes: undefined },
  bot: { token: 'xoxb-org-token', scopes: ['commands'], id: 'B0002', userId: 'UBOT0002' },
  tokenType: 'bot',
  isEnterpriseInstall: true,
  appId: 'A1234',
  authVersion: 'v2',
};

/** A connection of its own, as another program reading the database would have. */
function rawDb(db: TestDatabase): Kysely<Schema> {
  return new Kysely<Schema>({
    dialect:
      db.engine === 'postgres'
        ? new PostgresDialect({ pool: new pg.Pool({ connectionString: db.options.url ?? '', max: 1 }) })
        : new SqliteDialect({ database: new Database(db.options.path ?? '') }),
  });
}

async function rawRows(db: TestDatabase, table: 'slack_installations' | 'plat_accounts' | 'tenant_erasures') {
  const kysely = rawDb(db);
  try {
    return (await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(table)} ORDER BY 1`.execute(kysely))
      .rows;
  } finally {
    await kysely.destroy();
  }
}

describe.each(ENGINES)('installations on %s', (engine) => {
  let db: TestDatabase;
  let t = T0;
  const clock = { now: () => t };
  const keys = [key('k1')];
  const open = () => db.open({ clock, encryptionKeys: keys });
  afterEach(async () => {
    await db?.dispose();
    t = T0;
  });

  it('keeps a workspace install by team id and an org-wide install by enterprise id (Bolt contract)', async () => {
    db = await testDatabase(engine);
    const store = await open();
    await store.installations.storeInstallation(workspaceInstall);
    await store.installations.storeInstallation(orgInstall);
    const ws = await store.installations.fetchInstallation({
      teamId: 'T0001',
      enterpriseId: undefined,
      isEnterpriseInstall: false,
    });
    expect(ws).toMatchObject({
      team: { id: 'T0001', name: 'Shop one' },
      user: { id: 'UINSTALLER1' },
      bot: {
        token: 'xoxe.xoxb-1-workspace-token',
        refreshToken: 'xoxe-1-workspace-refresh',
        expiresAt: Math.floor(T0 / 1000) + 43_200,
        id: 'B0001',
        userId: 'UBOT0001',
        scopes: ['commands', 'chat:write'],
      },
      isEnterpriseInstall: false,
    });
    // Any workspace of the org, on an org-wide install: found by the enterprise id.
    const org = await store.installations.fetchInstallation({
      teamId: 'T9999',
      enterpriseId: 'E0001',
      isEnterpriseInstall: true,
    });
    expect(org).toMatchObject({
      enterprise: { id: 'E0001' },
      bot: { token: 'xoxb-org-token' },
      isEnterpriseInstall: true,
    });
    expect(await store.installations.tenants()).toEqual(['E0001', 'T0001']);
    await expect(
      store.installations.fetchInstallation({
        teamId: 'T0404',
        enterpriseId: undefined,
        isEnterpriseInstall: false,
      }),
    ).rejects.toThrow(/no installation/);
  });

  it('stores tokens sealed: no token in the rows, and a value copied to another row does not open', async () => {
    db = await testDatabase(engine);
    const store = await open();
    await store.installations.storeInstallation(workspaceInstall);
    await store.installations.storeInstallation(orgInstall);
    await store.platAccounts.set(
      'T0001',
      { baseUrl: 'https://plat.example', token: 'plat-secret-1' },
      'UINSTALLER1',
    );
    const rows = [...(await rawRows(db, 'slack_installations')), ...(await rawRows(db, 'plat_accounts'))];
    const text = JSON.stringify(rows);
    for (const secret of ['workspace-token', 'workspace-refresh', 'org-token', 'plat-secret-1'])
      expect(text).not.toContain(secret);
    expect(String(rows[0]?.bot_token_sealed)).toMatch(/^v1:k1:/);
    expect((await store.platAccounts.get('T0001'))?.token).toBe('plat-secret-1');

    // Copy the org's sealed bot token into the workspace's row.
    const orgRow = rows.find((r) => r.tenant === 'E0001');
    const raw = rawDb(db);
    await sql`UPDATE slack_installations SET bot_token_sealed = ${String(orgRow?.bot_token_sealed)} WHERE tenant = 'T0001'`.execute(
      raw,
    );
    await raw.destroy();
    await expect(store.installations.get('T0001')).rejects.toThrow(/does not open/);
  });

  it('uninstall deletes the tokens and plat account at once and schedules the erasure; a new install cancels it', async () => {
    db = await testDatabase(engine);
    const store = await open();
    await store.installations.storeInstallation(workspaceInstall);
    await store.platAccounts.set(
      'T0001',
      { baseUrl: 'https://plat.example', token: 'plat-secret-1' },
      'UINSTALLER1',
    );
    const eraseAfter = new Date(T0 + 30 * 86_400_000);
    expect(await store.installations.uninstall('T0001', { reason: 'app_uninstalled', eraseAfter })).toBe(
      true,
    );
    expect(await rawRows(db, 'slack_installations')).toEqual([]);
    expect(await rawRows(db, 'plat_accounts')).toEqual([]);
    expect(await store.installations.get('T0001')).toBeNull();
    expect(await store.installations.erasure('T0001')).toMatchObject({
      reason: 'app_uninstalled',
      eraseAfter,
      erasedAt: null,
    });
    expect(await store.installations.dueErasures(new Date(eraseAfter.getTime() - 1))).toEqual([]);
    expect((await store.installations.dueErasures(eraseAfter)).map((e) => e.tenant)).toEqual(['T0001']);
    await store.installations.markErased('T0001');
    expect(await store.installations.dueErasures(eraseAfter)).toEqual([]);
    // Installed, uninstalled and installed again before the erasure: the data stays.
    await store.installations.storeInstallation(workspaceInstall);
    expect(await store.installations.uninstall('T0001', { reason: 'app_uninstalled', eraseAfter })).toBe(
      true,
    );
    // A second event (tokens_revoked follows app_uninstalled) finds nothing installed: it changes
    // nothing, and never moves the erasure later; an earlier one (an admin's "delete now") wins.
    const later = new Date(eraseAfter.getTime() + 86_400_000);
    expect(
      await store.installations.uninstall('T0001', { reason: 'tokens_revoked', eraseAfter: later }),
    ).toBe(false);
    expect(await store.installations.erasure('T0001')).toMatchObject({
      reason: 'app_uninstalled',
      eraseAfter,
    });
    const sooner = new Date(T0);
    await store.installations.uninstall('T0001', { reason: 'admin_request', eraseAfter: sooner });
    expect(await store.installations.erasure('T0001')).toMatchObject({
      reason: 'admin_request',
      eraseAfter: sooner,
    });
    await store.installations.storeInstallation(workspaceInstall);
    expect(await store.installations.erasure('T0001')).toBeNull();
  });

  it('two stores refreshing one installation at once: one refresh, both get the new token', async () => {
    db = await testDatabase(engine);
    const [a, b] = (await db.openMany(2, { clock, encryptionKeys: keys })) as [Store, Store];
    await a.installations.storeInstallation(workspaceInstall);
    let refreshes = 0;
    const refresh = async () => {
      refreshes++;
      // Slow enough that the other refresher is waiting on the lock meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 200));
      return {
        token: `xoxe.xoxb-1-new-${refreshes}`,
        refreshToken: `xoxe-1-new-${refreshes}`,
        expiresAt: new Date(T0 + 86_400_000),
      };
    };
    const due = (r: { botExpiresAt: Date | null }) => (r.botExpiresAt?.getTime() ?? 0) < T0 + 50_000_000;
    const [ra, rb] = await Promise.all([
      a.installations.refreshUnderLock('T0001', due, refresh),
      b.installations.refreshUnderLock('T0001', due, refresh),
    ]);
    expect(refreshes).toBe(1);
    expect(ra?.botToken).toBe('xoxe.xoxb-1-new-1');
    expect(rb?.botToken).toBe('xoxe.xoxb-1-new-1');
    expect((await a.installations.get('T0001'))?.botRefreshToken).toBe('xoxe-1-new-1');
    expect(await a.installations.refreshUnderLock('T0404', due, refresh)).toBeNull();
  });

  it('re-seals every secret under the current key, once; the old key may then go', async () => {
    db = await testDatabase(engine);
    const old = key('old');
    const before = await db.open({ clock, encryptionKeys: [old] });
    await before.installations.storeInstallation(workspaceInstall);
    await before.installations.storeInstallation(orgInstall);
    await before.platAccounts.set('T0001', { baseUrl: 'https://plat.example', token: 'plat-secret-1' }, 'U1');
    const next = key('new');
    const rotating = await db.open({ clock, encryptionKeys: [next, old] });
    expect(await rotating.installations.reseal()).toBe(2);
    expect(await rotating.platAccounts.reseal()).toBe(1);
    expect(await rotating.installations.reseal()).toBe(0);
    expect(await rotating.platAccounts.reseal()).toBe(0);
    const after = await db.open({ clock, encryptionKeys: [next] });
    expect((await after.installations.get('E0001'))?.botToken).toBe('xoxb-org-token');
    expect((await after.installations.get('T0001'))?.botRefreshToken).toBe('xoxe-1-workspace-refresh');
    expect((await after.platAccounts.get('T0001'))?.token).toBe('plat-secret-1');
  });
});
