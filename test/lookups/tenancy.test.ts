/**
 * Around an installation (issue 24), on both engines with store.tenants: the first install adopts
 * single-workspace data and every installer is an admin of its tenant; housekeeping erases
 * exactly the tenants whose retention has passed, once, their rows (settings, ledger, plat
 * account) gone and another tenant's kept.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { SETTING_KEYS } from '../../src/lookups/settings.js';
import { afterInstall, DAY_MS, eraseDueTenants, uninstallTenant } from '../../src/lookups/tenancy.js';
import type { NewInstallation, Store } from '../../src/store/store.js';
import { ENGINES, type TestDatabase, testDatabase } from '../helpers/store-engines.js';

const record = (tenant: string, installerUserId: string): NewInstallation => ({
  tenant,
  enterpriseId: null,
  enterpriseName: null,
  teamId: tenant,
  teamName: null,
  isEnterpriseInstall: false,
  appId: null,
  botId: 'B1',
  botUserId: 'UB1',
  botScopes: ['commands'],
  botToken: `xoxb-${tenant}`,
  botRefreshToken: null,
  botExpiresAt: null,
  installerUserId,
});

const keys = [{ id: 'k1', key: randomBytes(32) }];
const admins = (store: Store, tenant: string) =>
  store.forTenant(tenant).settings.get<string[]>(SETTING_KEYS.admins);

describe.each(ENGINES)('tenancy on %s', (engine) => {
  let db: TestDatabase | undefined;
  afterEach(async () => {
    await db?.dispose();
    db = undefined;
  });

  it('adopts single-workspace data on the first install only; each first installer is an admin of its tenant, a reinstall by another adds none (issue 34 H4)', async () => {
    db = await testDatabase(engine);
    const store = await db.open({ encryptionKeys: keys });
    const logger = { info: () => {}, warn: () => {} };
    await store.settings.set('locale', 'zh-CN', 'UOLD');
    await store.installations.save(record('T1', 'UA'));
    await afterInstall({ store, logger }, record('T1', 'UA'));
    await store.installations.save(record('T2', 'UB'));
    expect(await afterInstall({ store, logger }, record('T2', 'UB'))).toEqual({ reinstalledBy: null });
    expect(await afterInstall({ store, logger }, record('T2', 'UC'))).toEqual({ reinstalledBy: 'UC' });
    expect(await afterInstall({ store, logger }, record('T2', 'UB'))).toEqual({ reinstalledBy: null });
    expect(await store.forTenant('T1').settings.get('locale')).toBe('zh-CN');
    expect(await store.settings.get('locale')).toBeNull();
    expect(await store.forTenant('T2').settings.get('locale')).toBeNull();
    expect(await admins(store, 'T1')).toEqual(['UA']);
    expect(await admins(store, 'T2')).toEqual(['UB']);
  });

  it('erases the tenants whose retention has passed, once each, and only theirs', async () => {
    let t = Date.parse('2026-11-26T00:00:00Z');
    const now = () => new Date(t);
    db = await testDatabase(engine);
    const store = await db.open({ clock: { now: () => t }, encryptionKeys: keys });
    for (const tenant of ['T1', 'T2', 'T3']) {
      await store.installations.save(record(tenant, 'U'));
      await store.forTenant(tenant).settings.set('locale', 'en', 'U');
      await store.platAccounts.set(tenant, { baseUrl: 'https://plat.example', token: `tok-${tenant}` }, 'U');
    }
    await uninstallTenant({ store, now }, 'T1', 'app_uninstalled', 30);
    await uninstallTenant({ store, now }, 'T2', 'admin_request', 0);
    expect(await store.installations.get('T1')).toBeNull();
    expect(await eraseDueTenants({ store, now })).toEqual(['T2']);
    expect(await store.forTenant('T2').settings.get('locale')).toBeNull();
    expect(await store.forTenant('T1').settings.get('locale')).toBe('en');
    t += 29 * DAY_MS;
    expect(await eraseDueTenants({ store, now })).toEqual([]);
    t += DAY_MS;
    expect(await eraseDueTenants({ store, now })).toEqual(['T1']);
    expect(await eraseDueTenants({ store, now })).toEqual([]);
    expect(await store.forTenant('T1').settings.get('locale')).toBeNull();
    // The tenant that stayed keeps everything.
    expect(await store.forTenant('T3').settings.get('locale')).toBe('en');
    expect(await store.platAccounts.get('T3')).not.toBeNull();
    expect(await store.installations.get('T3')).not.toBeNull();
  });

  it('tenants.erase deletes the tenant-keyed rows of distributed mode too', async () => {
    db = await testDatabase(engine);
    const store = await db.open({ encryptionKeys: keys });
    await store.installations.save(record('T9', 'U'));
    await store.platAccounts.set('T9', { baseUrl: 'https://plat.example', token: 'tok' }, 'U');
    expect(await store.tenants.erase('T9')).toBeGreaterThanOrEqual(2);
    expect(await store.installations.get('T9')).toBeNull();
    expect(await store.platAccounts.get('T9')).toBeNull();
  });
});
