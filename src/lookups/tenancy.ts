/**
 * What happens to a tenant's data around its installation (distributed mode, issue 24): the
 * first install adopts the data of single-workspace mode (tenant ''), the installer becomes the
 * tenant's first admin, an uninstall deletes its tokens at once and erases its data after the
 * retention (PLATDESK_RETENTION_DAYS), and an admin may ask for the erasure sooner.
 *
 * The per-tenant data itself (a tenant on every row, store.tenants.adopt/erase, settings per
 * tenant) is built on the `tenants` branch. Until it is merged, `TenantData` below is the one
 * place that calls it, and `singleTenantData` stands in: every row is still shared, so adopting
 * moves nothing and erasing erases nothing but is recorded as done. Replace it with
 * `store.tenants` when merging.
 */
import type { Logger } from 'pino';
import type { NewInstallation, Store } from '../store/store.js';
import { SETTING_KEYS } from './settings.js';

export const DAY_MS = 24 * 60 * 60 * 1000;

/** The data half of issue 24 (store.tenants on the tenants branch). */
export interface TenantData {
  /** Moves single-workspace data (tenant '') to the first installed tenant. */
  adopt(fromTenant: string, toTenant: string): Promise<void>;
  /** Deletes every row of a tenant. */
  erase(tenant: string): Promise<void>;
  /** The tenant's admins set from the app. */
  admins(tenant: string): Promise<string[]>;
  setAdmins(tenant: string, admins: string[], actorId: string): Promise<void>;
}

/** STAND-IN until the tenants branch lands (see the file comment): one shared set of rows. */
export function singleTenantData(store: Store): TenantData {
  return {
    async adopt() {},
    async erase() {},
    admins: async () => (await store.settings.get<string[]>(SETTING_KEYS.admins)) ?? [],
    setAdmins: (_tenant, admins, actorId) => store.settings.set(SETTING_KEYS.admins, admins, actorId),
  };
}

/** After an install: adopt single-workspace data (first install only), the installer as first admin. */
export async function afterInstall(
  deps: { store: Store; data: TenantData; logger: Pick<Logger, 'info'> },
  record: NewInstallation,
): Promise<void> {
  const tenants = await deps.store.installations.tenants();
  if (tenants.length === 1 && tenants[0] === record.tenant) await deps.data.adopt('', record.tenant);
  const admins = await deps.data.admins(record.tenant);
  if (admins.length === 0) {
    await deps.data.setAdmins(record.tenant, [record.installerUserId], record.installerUserId);
    deps.logger.info({ tenant: record.tenant }, 'the installer is the first admin');
  }
}

/**
 * The tenant uninstalled platdesk (or revoked its bot token, or an admin asked): its tokens
 * and plat account go now; its data after `retentionDays` (0: at the next housekeeping).
 */
export async function uninstallTenant(
  deps: { store: Store; now: () => Date },
  tenant: string,
  reason: string,
  retentionDays: number,
): Promise<boolean> {
  const eraseAfter = new Date(deps.now().getTime() + retentionDays * DAY_MS);
  return deps.store.installations.uninstall(tenant, { reason, eraseAfter });
}

/** Erases the data of every tenant whose retention has passed; returns their ids. */
export async function eraseDueTenants(deps: {
  store: Store;
  data: TenantData;
  now: () => Date;
}): Promise<string[]> {
  const erased: string[] = [];
  for (const due of await deps.store.installations.dueErasures(deps.now())) {
    await deps.data.erase(due.tenant);
    await deps.store.installations.markErased(due.tenant);
    erased.push(due.tenant);
  }
  return erased;
}
