/**
 * Slack installations (distributed mode, issue 24) on platdesk's own store, both engines: Bolt's
 * InstallationStore contract (storeInstallation, fetchInstallation, deleteInstallation) plus what
 * platdesk needs around it: the token refresh under a per-installation lock, uninstall with a
 * retention before the tenant's data is erased, and re-sealing under a new key.
 *
 * A tenant is the enterprise id of an org-wide Grid install, else the team id. Tokens are sealed
 * (store/secrets.ts) with their tenant and purpose as associated data.
 *
 * The refresh lock (node-slack-sdk #2504: two processes that both spend one refresh token leave
 * one of them with a token Slack has already replaced): the transaction opens with an UPDATE of
 * the installation's own row, which holds the row lock on PostgreSQL and the write lock on SQLite
 * until COMMIT; the row is read again after it, so a second refresher waiting on the lock finds
 * the token already renewed and does not call Slack.
 */
import type { Installation, InstallationQuery, InstallationStore } from '@slack/bolt';
import type { Selectable } from 'kysely';
import { wakeUnserved } from './schedule-wakes.js';
import type { Executor, SlackInstallationsTable, StoreContext } from './schema.js';
import { type SecretBox, SecretError } from './secrets.js';
import type {
  InstallationRecord,
  Installations,
  NewInstallation,
  TenantErasure,
  TokenRefresh,
} from './store.js';

/** The tenant an installation or an incoming request belongs to. */
export function tenantOf(query: {
  enterpriseId?: string | undefined;
  teamId?: string | undefined;
  isEnterpriseInstall?: boolean | undefined;
}): string {
  if (query.isEnterpriseInstall && query.enterpriseId) return query.enterpriseId;
  return query.teamId ?? query.enterpriseId ?? '';
}

const BOT_TOKEN = 'slack.bot_token';
const BOT_REFRESH = 'slack.bot_refresh_token';

function box(secrets: SecretBox | null): SecretBox {
  if (!secrets) throw new SecretError('PLATDESK_ENCRYPTION_KEY is not set: installations cannot be stored');
  return secrets;
}

function fromRow(row: Selectable<SlackInstallationsTable>, secrets: SecretBox): InstallationRecord {
  const tenant = row.tenant;
  return {
    tenant,
    enterpriseId: row.enterprise_id,
    enterpriseName: row.enterprise_name,
    teamId: row.team_id,
    teamName: row.team_name,
    isEnterpriseInstall: row.is_enterprise_install === 1,
    appId: row.app_id,
    botId: row.bot_id,
    botUserId: row.bot_user_id,
    botScopes: row.bot_scopes.split(',').filter(Boolean),
    botToken: secrets.open(row.bot_token_sealed, { tenant, purpose: BOT_TOKEN }),
    botRefreshToken:
      row.bot_refresh_sealed === null
        ? null
        : secrets.open(row.bot_refresh_sealed, { tenant, purpose: BOT_REFRESH }),
    botExpiresAt: row.bot_expires_at === null ? null : new Date(row.bot_expires_at),
    installerUserId: row.installer_user_id,
    installedAt: new Date(row.installed_at),
    updatedAt: new Date(row.updated_at),
  };
}

/** Bolt's Installation (as @slack/oauth hands it to storeInstallation) → platdesk's record. */
export function recordOf(installation: Installation): NewInstallation {
  const bot = installation.bot;
  if (!bot) throw new Error('an installation without a bot token: platdesk asks for bot scopes only');
  const enterpriseId = installation.enterprise?.id ?? null;
  const teamId = installation.team?.id ?? null;
  const isEnterpriseInstall = installation.isEnterpriseInstall === true;
  return {
    tenant: tenantOf({
      enterpriseId: enterpriseId ?? undefined,
      teamId: teamId ?? undefined,
      isEnterpriseInstall,
    }),
    enterpriseId,
    enterpriseName: installation.enterprise?.name ?? null,
    teamId,
    teamName: installation.team?.name ?? null,
    isEnterpriseInstall,
    appId: installation.appId ?? null,
    botId: bot.id,
    botUserId: bot.userId,
    botScopes: bot.scopes,
    botToken: bot.token,
    botRefreshToken: bot.refreshToken ?? null,
    // @slack/oauth counts in seconds since the epoch; platdesk stores milliseconds.
    botExpiresAt: bot.expiresAt === undefined ? null : new Date(bot.expiresAt * 1000),
    installerUserId: installation.user.id,
  };
}

/** platdesk's record → Bolt's Installation (what fetchInstallation answers). */
export function installationOf(record: InstallationRecord): Installation {
  const bot = {
    token: record.botToken,
    scopes: record.botScopes,
    id: record.botId,
    userId: record.botUserId,
    ...(record.botRefreshToken ? { refreshToken: record.botRefreshToken } : {}),
    ...(record.botExpiresAt ? { expiresAt: Math.floor(record.botExpiresAt.getTime() / 1000) } : {}),
  };
  return {
    team: record.teamId
      ? { id: record.teamId, ...(record.teamName ? { name: record.teamName } : {}) }
      : undefined,
    enterprise: record.enterpriseId
      ? { id: record.enterpriseId, ...(record.enterpriseName ? { name: record.enterpriseName } : {}) }
      : undefined,
    user: { id: record.installerUserId, token: undefined, scopes: undefined },
    bot,
    tokenType: 'bot',
    isEnterpriseInstall: record.isEnterpriseInstall,
    authVersion: 'v2',
    ...(record.appId ? { appId: record.appId } : {}),
  } as Installation;
}

export function createInstallations(ctx: StoreContext): Installations {
  const { db, nowMs } = ctx;
  const read = async (executor: Executor, tenant: string) => {
    const row = await executor
      .selectFrom('slack_installations')
      .selectAll()
      .where('tenant', '=', tenant)
      .executeTakeFirst();
    return row ? fromRow(row, box(ctx.secrets)) : null;
  };

  const installations: Installations = {
    async save(record) {
      const secrets = box(ctx.secrets);
      const { tenant } = record;
      const now = nowMs();
      const sealed = {
        enterprise_id: record.enterpriseId,
        enterprise_name: record.enterpriseName,
        team_id: record.teamId,
        team_name: record.teamName,
        is_enterprise_install: record.isEnterpriseInstall ? 1 : 0,
        app_id: record.appId,
        bot_id: record.botId,
        bot_user_id: record.botUserId,
        bot_scopes: record.botScopes.join(','),
        bot_token_sealed: secrets.seal(record.botToken, { tenant, purpose: BOT_TOKEN }),
        bot_refresh_sealed: record.botRefreshToken
          ? secrets.seal(record.botRefreshToken, { tenant, purpose: BOT_REFRESH })
          : null,
        bot_expires_at: record.botExpiresAt ? record.botExpiresAt.getTime() : null,
        installer_user_id: record.installerUserId,
        updated_at: now,
      };
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto('slack_installations')
          .values({ tenant, ...sealed, installed_at: now })
          .onConflict((oc) => oc.column('tenant').doUpdateSet(sealed))
          .execute();
        // Installed again before its data was erased: the data stays.
        await trx
          .deleteFrom('tenant_erasures')
          .where('tenant', '=', tenant)
          .where('erased_at', 'is', null)
          .execute();
        // Its schedules, set aside while it could not be served (schedule-wakes.ts), are looked at now.
        await wakeUnserved(trx, tenant);
      });
    },
    get: (tenant) => read(db, tenant),
    async refreshUnderLock(tenant, due, refresh) {
      return db.transaction().execute(async (trx) => {
        // The lock: this UPDATE waits for any other refresher of the row until it commits.
        const locked = await trx
          .updateTable('slack_installations')
          .set((eb) => ({ refreshes: eb('refreshes', '+', 1) }))
          .where('tenant', '=', tenant)
          .executeTakeFirst();
        if (Number(locked.numUpdatedRows) === 0) return null;
        const current = await read(trx, tenant);
        if (!current?.botRefreshToken || !due(current)) return current;
        const renewed: TokenRefresh = await refresh(current);
        const secrets = box(ctx.secrets);
        await trx
          .updateTable('slack_installations')
          .set({
            bot_token_sealed: secrets.seal(renewed.token, { tenant, purpose: BOT_TOKEN }),
            bot_refresh_sealed: secrets.seal(renewed.refreshToken, { tenant, purpose: BOT_REFRESH }),
            bot_expires_at: renewed.expiresAt.getTime(),
            updated_at: nowMs(),
          })
          .where('tenant', '=', tenant)
          .execute();
        return {
          ...current,
          botToken: renewed.token,
          botRefreshToken: renewed.refreshToken,
          botExpiresAt: renewed.expiresAt,
          updatedAt: new Date(nowMs()),
        };
      });
    },
    async uninstall(tenant, { reason, eraseAfter }) {
      return db.transaction().execute(async (trx) => {
        const removed = await trx
          .deleteFrom('slack_installations')
          .where('tenant', '=', tenant)
          .executeTakeFirst();
        await trx.deleteFrom('plat_accounts').where('tenant', '=', tenant).execute();
        if (Number(removed.numDeletedRows) === 0) {
          // Not installed (uninstalled already: Slack sends app_uninstalled and tokens_revoked,
          // and redelivers): its erasure is never moved later by another event; only brought
          // forward (an admin's "delete now" whose own apps.uninstall event came first).
          await trx
            .updateTable('tenant_erasures')
            .set({ reason, erase_after: eraseAfter.getTime() })
            .where('tenant', '=', tenant)
            .where('erased_at', 'is', null)
            .where('erase_after', '>', eraseAfter.getTime())
            .execute();
          return false;
        }
        await trx
          .insertInto('tenant_erasures')
          .values({
            tenant,
            reason,
            uninstalled_at: nowMs(),
            erase_after: eraseAfter.getTime(),
            erased_at: null,
          })
          .onConflict((oc) =>
            oc.column('tenant').doUpdateSet({
              reason,
              uninstalled_at: nowMs(),
              erase_after: eraseAfter.getTime(),
              erased_at: null,
            }),
          )
          .execute();
        return true;
      });
    },
    async erasure(tenant) {
      const row = await db
        .selectFrom('tenant_erasures')
        .selectAll()
        .where('tenant', '=', tenant)
        .executeTakeFirst();
      return row ? erasureOf(row) : null;
    },
    async dueErasures(now) {
      const rows = await db
        .selectFrom('tenant_erasures')
        .selectAll()
        .where('erased_at', 'is', null)
        .where('erase_after', '<=', now.getTime())
        .orderBy('erase_after')
        .execute();
      return rows.map(erasureOf);
    },
    async markErased(tenant) {
      await db
        .updateTable('tenant_erasures')
        .set({ erased_at: nowMs() })
        .where('tenant', '=', tenant)
        .execute();
    },
    async tenants() {
      const rows = await db.selectFrom('slack_installations').select('tenant').orderBy('tenant').execute();
      return rows.map((r) => r.tenant);
    },
    async reseal() {
      const secrets = box(ctx.secrets);
      let resealed = 0;
      const stale = (v: string | null) => v !== null && secrets.keyIdOf(v) !== secrets.currentKeyId;
      const rows = await db.selectFrom('slack_installations').selectAll().execute();
      for (const row of rows) {
        if (!stale(row.bot_token_sealed) && !stale(row.bot_refresh_sealed)) continue;
        const { tenant } = row;
        const again = (v: string | null, purpose: string) =>
          v === null ? null : secrets.seal(secrets.open(v, { tenant, purpose }), { tenant, purpose });
        const updated = await db
          .updateTable('slack_installations')
          .set({
            bot_token_sealed: again(row.bot_token_sealed, BOT_TOKEN) ?? row.bot_token_sealed,
            bot_refresh_sealed: again(row.bot_refresh_sealed, BOT_REFRESH),
          })
          .where('tenant', '=', tenant)
          // Only if nothing (a refresh) changed it meanwhile; the next run re-seals it otherwise.
          .where('bot_token_sealed', '=', row.bot_token_sealed)
          .executeTakeFirst();
        // Counted only when the row was written: "N re-sealed" is what the database holds.
        resealed += Number(updated.numUpdatedRows);
      }
      return resealed;
    },
    // ---- Bolt's InstallationStore --------------------------------------------------------------
    async storeInstallation(installation: Installation) {
      await installations.save(recordOf(installation));
    },
    async fetchInstallation(query: InstallationQuery<boolean>) {
      const record = await installations.get(tenantOf(query));
      if (!record) throw new Error('no installation for this workspace');
      return installationOf(record);
    },
    async deleteInstallation(query: InstallationQuery<boolean>) {
      await db.deleteFrom('slack_installations').where('tenant', '=', tenantOf(query)).execute();
    },
  };
  return installations;
}

function erasureOf(row: {
  tenant: string;
  reason: string;
  uninstalled_at: number;
  erase_after: number;
  erased_at: number | null;
}): TenantErasure {
  return {
    tenant: row.tenant,
    reason: row.reason,
    uninstalledAt: new Date(row.uninstalled_at),
    eraseAfter: new Date(row.erase_after),
    erasedAt: row.erased_at === null ? null : new Date(row.erased_at),
  };
}

export type { InstallationStore };
