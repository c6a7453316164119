/**
 * The answer cache (shared by every process, so an answer paid for on one replica is free on the
 * others) and the record of alerts sent (so each alert goes out once, whichever process sees the
 * cause first).
 */
import type { StoreContext } from './schema.js';
import type { AlertsSent, AnswerCache } from './store.js';

export function createAnswerCache({ db, nowMs, tenant }: StoreContext): AnswerCache {
  return {
    async get(key, notBefore) {
      const row = await db
        .selectFrom('answer_cache')
        .select(['value_json', 'stored_at'])
        .where('tenant_id', '=', tenant)
        .where('key', '=', key)
        .where('stored_at', '>=', notBefore.getTime())
        .executeTakeFirst();
      return row ? { valueJson: row.value_json, storedAt: new Date(row.stored_at) } : null;
    },
    async set(key, valueJson) {
      await db
        .insertInto('answer_cache')
        .values({ tenant_id: tenant, key, value_json: valueJson, stored_at: nowMs() })
        .onConflict((oc) =>
          oc.columns(['tenant_id', 'key']).doUpdateSet((eb) => ({
            value_json: eb.ref('excluded.value_json'),
            stored_at: eb.ref('excluded.stored_at'),
          })),
        )
        .execute();
    },
    async prune(olderThan) {
      const result = await db
        .deleteFrom('answer_cache')
        .where('stored_at', '<', olderThan.getTime())
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    async clear() {
      await db.deleteFrom('answer_cache').where('tenant_id', '=', tenant).execute();
    },
  };
}

export function createAlertsSent({ db, nowMs, tenant }: StoreContext): AlertsSent {
  return {
    async claim(key, minIntervalMs) {
      const now = nowMs();
      // One statement: insert, or move sent_at forward only when the last one is old enough.
      // Exactly one of any number of racing callers gets a row back.
      const row = await db
        .insertInto('alerts_sent')
        .values({ tenant_id: tenant, key, sent_at: now })
        .onConflict((oc) =>
          oc
            .columns(['tenant_id', 'key'])
            .doUpdateSet({ sent_at: now })
            .where('alerts_sent.sent_at', '<=', Number.isFinite(minIntervalMs) ? now - minIntervalMs : -1),
        )
        .returning('key')
        .executeTakeFirst();
      return row !== undefined;
    },
    async recent(prefix, limit) {
      // Callers' prefixes are constants without LIKE's '%' or '_'.
      const rows = await db
        .selectFrom('alerts_sent')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where('key', 'like', `${prefix}%`)
        .orderBy('sent_at', 'desc')
        .orderBy('key', 'desc')
        .limit(limit)
        .execute();
      return rows.map((row) => ({ key: row.key, sentAt: new Date(row.sent_at) }));
    },
    async prune(olderThan) {
      const result = await db
        .deleteFrom('alerts_sent')
        .where('sent_at', '<', olderThan.getTime())
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
