/**
 * Around an installation (issue 24): the first install adopts single-workspace data and makes the
 * installer the first admin; housekeeping erases, through the tenant data's `erase`, exactly the
 * tenants whose retention has passed, once.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  afterInstall,
  DAY_MS,
  eraseDueTenants,
  type TenantData,
  uninstallTenant,
} from '../../src/lookups/tenancy.js';
import { openStore } from '../../src/store/engine.js';
import type { NewInstallation, Store } from '../../src/store/store.js';

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

function recordingData(): TenantData & { log: string[] } {
  const admins = new Map<string, string[]>();
  const log: string[] = [];
  return {
    log,
    adopt: async (from, to) => void log.push(`adopt '${from}' → ${to}`),
    erase: async (tenant) => void log.push(`erase ${tenant}`),
    admins: async (tenant) => admins.get(tenant) ?? [],
    setAdmins: async (tenant, list) => void admins.set(tenant, list),
  };
}

describe('tenancy', () => {
  let store: Store | undefined;
  afterEach(async () => {
    await store?.close();
  });

  it('adopts on the first install only; each installer is the first admin of a tenant without admins', async () => {
    store = await openStore({ path: ':memory:', encryptionKeys: [{ id: 'k1', key: randomBytes(32) }] });
    const data = recordingData();
    const logger = { info: () => {} };
    await store.installations.save(record('T1', 'UA'));
    await afterInstall({ store, data, logger }, record('T1', 'UA'));
    await store.installations.save(record('T2', 'UB'));
    await afterInstall({ store, data, logger }, record('T2', 'UB'));
    await afterInstall({ store, data, logger }, record('T2', 'UC'));
    expect(data.log).toEqual(["adopt '' → T1"]);
    expect(await data.admins('T1')).toEqual(['UA']);
    expect(await data.admins('T2')).toEqual(['UB']);
  });

  it('erases the tenants whose retention has passed, once each', async () => {
    let t = Date.parse('2026-11-26T00:00:00Z');
    const now = () => new Date(t);
    store = await openStore({
      path: ':memory:',
      clock: { now: () => t },
      encryptionKeys: [{ id: 'k1', key: randomBytes(32) }],
    });
    const data = recordingData();
    for (const tenant of ['T1', 'T2']) await store.installations.save(record(tenant, 'U'));
    await uninstallTenant({ store, now }, 'T1', 'app_uninstalled', 30);
    await uninstallTenant({ store, now }, 'T2', 'admin_request', 0);
    expect(await eraseDueTenants({ store, data, now })).toEqual(['T2']);
    t += 29 * DAY_MS;
    expect(await eraseDueTenants({ store, data, now })).toEqual([]);
    t += DAY_MS;
    expect(await eraseDueTenants({ store, data, now })).toEqual(['T1']);
    expect(await eraseDueTenants({ store, data, now })).toEqual([]);
    expect(data.log).toEqual(['erase T2', 'erase T1']);
  });
});
