/**
 * Settings (key → JSON, every change audited in the same transaction), the audit log, and user
 * preferences.
 */

import { fromJson, toJson } from './json.js';
import type { Executor, StoreContext } from './schema.js';
import type { AuditLog, AuditRecord, Settings, UserPrefs } from './store.js';

export async function writeAudit(
  db: Executor,
  { nowMs, tenant }: Pick<StoreContext, 'nowMs' | 'tenant'>,
  e: Omit<AuditRecord, 'at'>,
): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({ tenant_id: tenant, at: nowMs(), actor_id: e.actorId, action: e.action, detail: e.detail })
    .execute();
}

export function createAuditLog(ctx: StoreContext): AuditLog {
  const { db, tenant } = ctx;
  return {
    record: (e) => writeAudit(db, ctx, e),
    async list(limit, filter) {
      let query = db
        .selectFrom('audit_log')
        .select(['at', 'actor_id', 'action', 'detail'])
        .where('tenant_id', '=', tenant);
      if (filter?.action !== undefined) query = query.where('action', '=', filter.action);
      const rows = await query.orderBy('id', 'desc').limit(limit).execute();
      return rows.map((row) => ({
        at: new Date(row.at),
        actorId: row.actor_id,
        action: row.action,
        detail: row.detail,
      }));
    },
  };
}

/** Audit details are for people reading a log; a huge value is cut. */
const AUDIT_DETAIL_MAX = 2000;

function auditDetail(key: string, json: string | null): string {
  const text = json === null ? key : `${key} = ${json}`;
  return text.length > AUDIT_DETAIL_MAX ? `${text.slice(0, AUDIT_DETAIL_MAX - 1)}…` : text;
}

export function createSettings(ctx: StoreContext): Settings {
  const { db, nowMs, tenant } = ctx;
  return {
    async get<T>(key: string) {
      const row = await db
        .selectFrom('settings')
        .select('value_json')
        .where('tenant_id', '=', tenant)
        .where('key', '=', key)
        .executeTakeFirst();
      return row ? fromJson<T>(row.value_json) : null;
    },
    async set(key, value, actorId) {
      // JSON.stringify returns undefined (not a string) for undefined, functions and symbols.
      const json = toJson(value) as string | undefined;
      if (json === undefined) throw new TypeError(`setting ${key}: value is not JSON-serializable`);
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto('settings')
          .values({ tenant_id: tenant, key, value_json: json, updated_at: nowMs(), updated_by: actorId })
          .onConflict((oc) =>
            oc.columns(['tenant_id', 'key']).doUpdateSet((eb) => ({
              value_json: eb.ref('excluded.value_json'),
              updated_at: eb.ref('excluded.updated_at'),
              updated_by: eb.ref('excluded.updated_by'),
            })),
          )
          .execute();
        await writeAudit(trx, ctx, { actorId, action: 'settings.set', detail: auditDetail(key, json) });
      });
    },
    delete: (key, actorId) =>
      db.transaction().execute(async (trx) => {
        const result = await trx
          .deleteFrom('settings')
          .where('tenant_id', '=', tenant)
          .where('key', '=', key)
          .executeTakeFirst();
        const deleted = result.numDeletedRows > 0n;
        if (deleted)
          await writeAudit(trx, ctx, {
            actorId,
            action: 'settings.delete',
            detail: auditDetail(key, null),
          });
        return deleted;
      }),
  };
}

export function createUserPrefs({ db, nowMs, tenant }: StoreContext): UserPrefs {
  return {
    async getConfirmThreshold(userId) {
      const row = await db
        .selectFrom('user_prefs')
        .select('confirm_threshold')
        .where('tenant_id', '=', tenant)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return row?.confirm_threshold ?? null;
    },
    async setConfirmThreshold(userId, points) {
      if (points !== null && !(Number.isFinite(points) && points >= 0)) {
        throw new RangeError(`confirm threshold must be a finite number ≥ 0 or null, got ${points}`);
      }
      await db
        .insertInto('user_prefs')
        .values({ tenant_id: tenant, user_id: userId, confirm_threshold: points, updated_at: nowMs() })
        .onConflict((oc) =>
          oc.columns(['tenant_id', 'user_id']).doUpdateSet((eb) => ({
            confirm_threshold: eb.ref('excluded.confirm_threshold'),
            updated_at: eb.ref('excluded.updated_at'),
          })),
        )
        .execute();
    },
  };
}
