/**
 * What happens to a tenant's data around its installation (distributed mode, issue 24): the
 * first install adopts the data of single-workspace mode (SINGLE_TENANT), the installer becomes
 * the tenant's first admin, an uninstall deletes its tokens at once and erases its data after the
 * retention (PLATDESK_RETENTION_DAYS), and an admin may ask for the erasure sooner. The rows
 * themselves are moved and deleted by store.tenants (store/tenants.ts).
 */
import type { Logger } from 'pino';
import type { NewInstallation, Store } from '../store/store.js';
import { SINGLE_TENANT } from '../store/tenants.js';
import { addAdmin, SETTING_KEYS } from './settings.js';

export const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * After an install: adopt single-workspace data (first install only); the installer becomes the
 * first admin only when the workspace has none (its first install, or after its data was erased).
 * Returns who installed it again when that was someone other than an admin (issue 34 H4: an
 * install is not a way to become admin): its admins are told, nobody is made one.
 */
export async function afterInstall(
  deps: { store: Store; logger: Pick<Logger, 'info' | 'warn'> },
  record: NewInstallation,
): Promise<{ reinstalledBy: string | null }> {
  const tenants = await deps.store.installations.tenants();
  if (tenants.length === 1 && tenants[0] === record.tenant) {
    const moved = await deps.store.tenants.adopt(SINGLE_TENANT, record.tenant);
    if (moved > 0) deps.logger.info({ tenant: record.tenant, rows: moved }, 'single-workspace data adopted');
  }
  const settings = deps.store.forTenant(record.tenant).settings;
  const admins = (await settings.get<string[]>(SETTING_KEYS.admins)) ?? [];
  if (admins.length === 0) {
    await addAdmin(settings, record.installerUserId, record.installerUserId);
    deps.logger.info({ tenant: record.tenant }, 'the installer is the first admin');
    return { reinstalledBy: null };
  }
  if (admins.includes(record.installerUserId)) return { reinstalledBy: null };
  deps.logger.warn(
    { tenant: record.tenant, installer: record.installerUserId },
    'platdesk installed again by someone who is not an admin: no admin added, the admins are told',
  );
  return { reinstalledBy: record.installerUserId };
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
export async function eraseDueTenants(deps: { store: Store; now: () => Date }): Promise<string[]> {
  const erased: string[] = [];
  for (const due of await deps.store.installations.dueErasures(deps.now())) {
    await deps.store.tenants.erase(due.tenant);
    await deps.store.installations.markErased(due.tenant);
    erased.push(due.tenant);
  }
  return erased;
}
