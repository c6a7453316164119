/**
 * Events API ids already handled, item-link unfurl records and the per-channel daily count of
 * automatic lookups (store.ts UnfurlStore; shortcut batches are shortcut-batches.ts). Every check-then-write is one statement or one
 * transaction under the 'unfurls' lock, so two Slack deliveries handled at once (the composer
 * and the posted link_shared, a retry, another process) cannot both win.
 */
import type { Selectable } from 'kysely';
import type { Executor, StoreContext, UnfurlRecordsTable } from './schema.js';
import { takeLock } from './schema.js';
import type { BeginAutoResult, UnfurlRecord, UnfurlStore } from './store.js';

type RecordRow = Selectable<UnfurlRecordsTable>;

const toRecord = (row: RecordRow): UnfurlRecord => ({
  id: row.id,
  channelId: row.channel_id,
  itemId: row.item_id,
  userId: row.user_id,
  createdAt: new Date(row.created_at),
  state: row.state,
  auto: row.auto === 1,
  pendingId: row.pending_id,
  outcomeJson: row.outcome_json,
});

async function usedOn(db: Executor, tenant: string, channelId: string, day: string): Promise<number> {
  const row = await db
    .selectFrom('auto_lookup_counts')
    .select('used')
    .where('tenant_id', '=', tenant)
    .where('channel_id', '=', channelId)
    .where('day', '=', day)
    .executeTakeFirst();
  return row?.used ?? 0;
}

async function finishRecord(
  db: Executor,
  tenant: string,
  id: number,
  state: UnfurlRecord['state'],
  outcomeJson: string | null,
  pendingId: string | null,
): Promise<void> {
  await db
    .updateTable('unfurl_records')
    .set((eb) => ({
      state,
      outcome_json: outcomeJson,
      pending_id: eb.fn.coalesce(eb.val(pendingId), eb.ref('pending_id')),
    }))
    .where('tenant_id', '=', tenant)
    .where('id', '=', id)
    .execute();
}

export function createUnfurls({ db, nowMs, tenant }: StoreContext): UnfurlStore {
  return {
    async firstSeen(eventId, keepMs) {
      const now = nowMs();
      await db
        .deleteFrom('processed_events')
        .where('at', '<', now - keepMs)
        .execute();
      const row = await db
        .insertInto('processed_events')
        .values({ tenant_id: tenant, event_id: eventId, at: now })
        .onConflict((oc) => oc.column('event_id').doNothing())
        .returning('event_id')
        .executeTakeFirst();
      return row !== undefined;
    },
    async recent(channelId, itemId, since) {
      const rows = await db
        .selectFrom('unfurl_records')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where('channel_id', '=', channelId)
        .where('item_id', '=', itemId)
        .where('created_at', '>=', since.getTime())
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute();
      return rows.map(toRecord);
    },
    beginAuto: (input) =>
      db.transaction().execute(async (trx): Promise<BeginAutoResult> => {
        await takeLock(trx, 'unfurls');
        const busy = await trx
          .selectFrom('unfurl_records')
          .selectAll()
          .where('tenant_id', '=', tenant)
          .where('channel_id', '=', input.channelId)
          .where('item_id', '=', input.itemId)
          .where('created_at', '>=', input.since.getTime())
          .where('auto', '=', 1)
          .orderBy('created_at', 'desc')
          .orderBy('id', 'desc')
          .limit(1)
          .executeTakeFirst();
        if (busy) return { started: false, reason: 'busy', record: toRecord(busy) };
        const already = await usedOn(trx, tenant, input.channelId, input.day);
        if (already >= input.cap) return { started: false, reason: 'capped', used: already };
        const now = nowMs();
        await trx
          .insertInto('auto_lookup_counts')
          .values({
            tenant_id: tenant,
            channel_id: input.channelId,
            day: input.day,
            used: 1,
            updated_at: now,
          })
          .onConflict((oc) =>
            oc.columns(['tenant_id', 'channel_id', 'day']).doUpdateSet((eb) => ({
              used: eb('auto_lookup_counts.used', '+', 1),
              updated_at: eb.ref('excluded.updated_at'),
            })),
          )
          .execute();
        const row = await trx
          .insertInto('unfurl_records')
          .values({
            tenant_id: tenant,
            channel_id: input.channelId,
            item_id: input.itemId,
            user_id: input.userId,
            created_at: now,
            state: 'running',
            auto: 1,
            pending_id: null,
            outcome_json: null,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        return { started: true, record: toRecord(row), used: already + 1 };
      }),
    abandonAuto: (id, day, keep) =>
      db.transaction().execute(async (trx) => {
        const row = await trx
          .selectFrom('unfurl_records')
          .select('channel_id')
          .where('tenant_id', '=', tenant)
          .where('id', '=', id)
          .executeTakeFirst();
        if (!row) return;
        if (keep) await finishRecord(trx, tenant, id, 'done', keep.outcomeJson, null);
        else
          await trx
            .deleteFrom('unfurl_records')
            .where('tenant_id', '=', tenant)
            .where('id', '=', id)
            .execute();
        await trx
          .updateTable('auto_lookup_counts')
          .set((eb) => ({
            // CASE rather than MAX()/GREATEST(): the same expression on both engines.
            used: eb
              .case()
              .when('used', '>', 0)
              .then(eb('used', '-', 1))
              .else(0)
              .end(),
            updated_at: nowMs(),
          }))
          .where('tenant_id', '=', tenant)
          .where('channel_id', '=', row.channel_id)
          .where('day', '=', day)
          .execute();
      }),
    finishAuto: (id, state, outcomeJson, pendingId) =>
      finishRecord(db, tenant, id, state, outcomeJson, pendingId),
    async recordOffered(input) {
      const row = await db
        .insertInto('unfurl_records')
        .values({
          tenant_id: tenant,
          channel_id: input.channelId,
          item_id: input.itemId,
          user_id: input.userId,
          created_at: nowMs(),
          state: 'offered',
          auto: 0,
          pending_id: input.pendingId,
          outcome_json: null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toRecord(row);
    },
    autoUsed: (channelId, day) => usedOn(db, tenant, channelId, day),
    async forgetEvents(olderThan) {
      const result = await db
        .deleteFrom('processed_events')
        .where('at', '<', olderThan.getTime())
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    prune: (olderThan) =>
      db.transaction().execute(async (trx) => {
        const before = olderThan.getTime();
        const counts = await Promise.all([
          trx.deleteFrom('unfurl_records').where('created_at', '<', before).executeTakeFirst(),
          trx.deleteFrom('auto_lookup_counts').where('updated_at', '<', before).executeTakeFirst(),
          trx.deleteFrom('shortcut_batches').where('expires_at', '<', before).executeTakeFirst(),
        ]);
        return counts.reduce((sum, r) => sum + Number(r.numDeletedRows), 0);
      }),
  };
}
