/**
 * What a message shortcut's modal offered, claimed once by the modal's Confirm.
 */
import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { ShortcutBatchesTable, StoreContext } from './schema.js';
import type { BatchClaim, ShortcutBatch, ShortcutBatches } from './store.js';

type BatchRow = Selectable<ShortcutBatchesTable>;

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
      };
      await db.insertInto('shortcut_batches').values(row).execute();
      return toBatch(row);
    },
    get,
    async claim(id, userId): Promise<BatchClaim> {
      const now = nowMs();
      // Single use (DESIGN rule 2): of any number of claims exactly one sees state = 'open'.
      const used = await db
        .updateTable('shortcut_batches')
        .set({ state: 'used', state_changed_at: now })
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
  };
}
