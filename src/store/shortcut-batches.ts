/**
 * What a message shortcut's modal offered, claimed once by the modal's Confirm.
 */
import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { ShortcutBatchesTable, StoreContext } from './schema.js';
import type { BatchClaim, ShortcutBatch, ShortcutBatches } from './store.js';

type BatchRow = Selectable<ShortcutBatchesTable>;

/** The most unsettled batches one sweep reads (oldest first; the next beat reads the rest). */
const UNSETTLED_PAGE = 100;

const toBatch = (row: BatchRow): ShortcutBatch => ({
  id: row.id,
  userId: row.user_id,
  kind: row.kind,
  channelId: row.channel_id,
  threadTs: row.thread_ts,
  payloadJson: row.payload_json,
  createdAt: new Date(row.created_at),
  expiresAt: new Date(row.expires_at),
  state: row.state,
  stateChangedAt: new Date(row.state_changed_at),
  usedBy: row.used_by,
  settledAt: row.settled_at === null ? null : new Date(row.settled_at),
});

export function createShortcutBatches({ db, nowMs, tenant }: StoreContext): ShortcutBatches {
  const get = async (id: string) => {
    const row = await db
      .selectFrom('shortcut_batches')
      .selectAll()
      .where('tenant_id', '=', tenant)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toBatch(row) : null;
  };
  return {
    async create(input) {
      const now = nowMs();
      const row: BatchRow = {
        tenant_id: tenant,
        id: input.id ?? randomUUID(),
        user_id: input.userId,
        kind: input.kind,
        channel_id: input.channelId,
        thread_ts: input.threadTs,
        payload_json: input.payloadJson,
        created_at: now,
        expires_at: now + input.ttlMs,
        state: 'open',
        state_changed_at: now,
        used_by: null,
        settled_at: null,
      };
      await db.insertInto('shortcut_batches').values(row).execute();
      return toBatch(row);
    },
    get,
    async claim(id, userId, usedBy): Promise<BatchClaim> {
      const now = nowMs();
      // Single use (DESIGN rule 2): of any number of claims exactly one sees state = 'open'.
      const used = await db
        .updateTable('shortcut_batches')
        .set({ state: 'used', state_changed_at: now, used_by: usedBy ?? null })
        .where('tenant_id', '=', tenant)
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .where('state', '=', 'open')
        .where('expires_at', '>', now)
        .returningAll()
        .executeTakeFirst();
      if (used) return { ok: true, batch: toBatch(used) };
      const batch = await get(id);
      if (!batch) return { ok: false, reason: 'not_found', batch: null };
      if (batch.userId !== userId) return { ok: false, reason: 'not_yours', batch };
      if (batch.state !== 'open') return { ok: false, reason: 'already_used', batch };
      return { ok: false, reason: 'expired', batch };
    },
    async unsettled(kind, usedSince) {
      // Deployment-wide (the claim sweep's reader): each row names its tenant.
      const rows = await db
        .selectFrom('shortcut_batches')
        .selectAll()
        .where('kind', '=', kind)
        .where('state', '=', 'used')
        .where('settled_at', 'is', null)
        .where('used_by', 'is not', null)
        .where('state_changed_at', '>=', usedSince.getTime())
        .orderBy('state_changed_at')
        .limit(UNSETTLED_PAGE)
        .execute();
      return rows.map((row) => ({ tenantId: row.tenant_id, batch: toBatch(row) }));
    },
    async settle(id) {
      // Once: of any number of processes settling it, exactly one sees settled_at still NULL.
      const settled = await db
        .updateTable('shortcut_batches')
        .set({ settled_at: nowMs() })
        .where('tenant_id', '=', tenant)
        .where('id', '=', id)
        .where('state', '=', 'used')
        .where('settled_at', 'is', null)
        .executeTakeFirst();
      return Number(settled.numUpdatedRows) > 0;
    },
  };
}
