/**
 * Digest subscriptions and their run records (store.ts DigestStore). Every state change is one
 * conditional UPDATE (it wins or changes nothing; the lease SQL is runs.ts, shared with alert
 * checks) or one transaction under its digest's lock (schema.ts lockSubscription), so two
 * processes on one database can never both hold a run.
 */

import { type Selectable, sql } from 'kysely';
import { createLeasedRuns, toLeasedRun } from './runs.js';
import { wakeNow } from './schedule-wakes.js';
import type { DigestRunsTable, DigestSubscriptionsTable, Executor, StoreContext } from './schema.js';
import { lockSubscription, takeLock } from './schema.js';
import { writeAudit } from './settings.js';
import type {
  DigestRun,
  DigestRunKind,
  DigestStore,
  DigestSubscription,
  Lease,
  NewDigestRun,
  NewDigestSubscription,
  RunClaim,
} from './store.js';

type SubscriptionRow = Selectable<DigestSubscriptionsTable>;
type RunRow = Selectable<DigestRunsTable>;

const csv = (list: readonly (string | number)[] | null | undefined): string | null =>
  list && list.length > 0 ? list.join(',') : null;
const numbers = (text: string | null): number[] | null => (text ? text.split(',').map(Number) : null);

function toSubscription(row: SubscriptionRow): DigestSubscription {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    ownerId: row.owner_id,
    shopLabel: row.shop_label,
    channelId: row.channel_id,
    localTime: row.local_time,
    timeZone: row.time_zone,
    createdBy: row.created_by,
    createdAt: new Date(row.created_at),
    times: row.times ? row.times.split(',') : [row.local_time],
    days: numbers(row.days),
    layout: row.layout,
    flags: numbers(row.flags),
    statuses: numbers(row.statuses),
  };
}

export function toRun(row: RunRow): DigestRun {
  return {
    ...toLeasedRun(row),
    kind: row.kind,
    localDate: row.local_date,
    windowStart: new Date(row.window_start),
    windowEnd: new Date(row.window_end),
    noticeTs: row.notice_ts,
    summaryJson: row.summary_json,
    requestedBy: row.requested_by,
    updatedAt: new Date(row.updated_at),
  };
}

export function createDigests(ctx: StoreContext): DigestStore {
  const { db, nowMs, tenant } = ctx;
  const runs = createLeasedRuns(
    ctx,
    'digest_runs',
    'platdesk stopped while posting: the digest may or may not have been posted',
  );
  const runOf = async (ex: Executor, id: number): Promise<DigestRun | null> => {
    const row = await ex
      .selectFrom('digest_runs')
      .selectAll()
      .where('tenant_id', '=', tenant)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toRun(row) : null;
  };
  const mustRun = async (ex: Executor, id: number): Promise<DigestRun> => {
    const run = await runOf(ex, id);
    if (!run) throw new Error(`digest run ${id} vanished`);
    return run;
  };
  const scheduledRow = (ex: Executor, subscriptionId: number, localDate: string) =>
    ex
      .selectFrom('digest_runs')
      .selectAll()
      .where('tenant_id', '=', tenant)
      .where('subscription_id', '=', subscriptionId)
      .where('local_date', '=', localDate)
      .where('kind', '=', 'scheduled')
      .executeTakeFirst();
  const newRunRow = (ex: Executor, kind: DigestRunKind, input: NewDigestRun, lease: Lease) => {
    const now = nowMs();
    return ex.insertInto('digest_runs').values({
      tenant_id: tenant,
      subscription_id: input.subscriptionId,
      kind,
      local_date: input.localDate,
      window_start: input.windowStart.getTime(),
      window_end: input.windowEnd.getTime(),
      state: 'running',
      attempts: 1,
      lease_owner: lease.owner,
      lease_expires_at: sql<number>`${ctx.leaseNow()} + ${lease.ms}`,
      next_attempt_at: null,
      last_error: null,
      notice_ts: null,
      message_ts: null,
      summary_json: null,
      estimate_points: null,
      requested_by: input.requestedBy,
      created_at: now,
      updated_at: now,
      epoch: 1,
      post_attempt_at: null,
      check_progress: null,
    });
  };
  const newRun = async (ex: Executor, kind: DigestRunKind, input: NewDigestRun, lease: Lease) =>
    toRun(await newRunRow(ex, kind, input, lease).returningAll().executeTakeFirstOrThrow());

  return {
    add: (input: NewDigestSubscription) =>
      db.transaction().execute(async (trx) => {
        const values = {
          tenant_id: tenant,
          owner_id: input.ownerId,
          shop_label: input.shopLabel,
          channel_id: input.channelId,
          local_time: input.localTime,
          time_zone: input.timeZone,
          created_by: input.createdBy,
          created_at: nowMs(),
          removed_at: null,
          removed_by: null,
          times: csv(input.times),
          days: csv(input.days),
          layout: input.layout ?? 'single',
          flags: csv(input.flags),
          statuses: csv(input.statuses),
        } as const;
        const row = await trx
          .insertInto('digest_subscriptions')
          .values(values)
          .returningAll()
          .executeTakeFirstOrThrow();
        await writeAudit(trx, ctx, {
          actorId: input.createdBy,
          action: 'digest.add',
          detail:
            `#${row.id}: owner ${input.ownerId} → ${input.channelId} at ${values.times ?? input.localTime} ` +
            `${input.timeZone}${values.days ? ` days ${values.days}` : ''} ${values.layout}` +
            `${values.flags ? ` flags ${values.flags}` : ''}${values.statuses ? ` statuses ${values.statuses}` : ''}`,
        });
        await wakeNow(trx, tenant, 'digest');
        return toSubscription(row);
      }),
    async get(id) {
      const row = await db
        .selectFrom('digest_subscriptions')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where('id', '=', id)
        .where('removed_at', 'is', null)
        .executeTakeFirst();
      return row ? toSubscription(row) : null;
    },
    async list() {
      const rows = await db
        .selectFrom('digest_subscriptions')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where('removed_at', 'is', null)
        .orderBy('id')
        .execute();
      return rows.map(toSubscription);
    },
    remove: (id, actorId) =>
      db.transaction().execute(async (trx) => {
        const result = await trx
          .updateTable('digest_subscriptions')
          .set({ removed_at: nowMs(), removed_by: actorId })
          .where('tenant_id', '=', tenant)
          .where('id', '=', id)
          .where('removed_at', 'is', null)
          .executeTakeFirst();
        const removed = result.numUpdatedRows === 1n;
        if (removed) await writeAudit(trx, ctx, { actorId, action: 'digest.remove', detail: `#${id}` });
        return removed;
      }),

    claimRun: (runId, lease) =>
      db.transaction().execute(async (trx): Promise<RunClaim> => {
        await lockSubscription(
          trx,
          'digest_subscriptions',
          sql`(SELECT subscription_id FROM digest_runs WHERE tenant_id = ${tenant} AND id = ${runId})`,
        );
        const how = await runs.claimExisting(trx, runId, lease);
        const run = await mustRun(trx, runId);
        return how === null ? { claimed: false, run } : { claimed: true, run, how };
      }),
    async openRuns() {
      const rows = await db
        .selectFrom('digest_runs')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where((eb) =>
          eb.or([
            eb.and([eb('state', 'in', ['failed', 'unknown']), eb('next_attempt_at', 'is not', null)]),
            eb('state', 'in', ['running', 'posting']),
          ]),
        )
        .orderBy('id')
        .execute();
      return rows.map(toRun);
    },
    async claimScheduled(input, lease): Promise<RunClaim> {
      // Its first claim, the common one: one statement, no transaction. The UNIQUE index of a
      // digest's scheduled run of a local date lets one of any number of claimers insert it.
      const created = await newRunRow(db, 'scheduled', input, lease)
        .onConflict((oc) =>
          oc.columns(['subscription_id', 'local_date']).where(sql<boolean>`kind = 'scheduled'`).doNothing(),
        )
        .returningAll()
        .executeTakeFirst();
      if (created) return { claimed: true, run: toRun(created), how: 'new' };
      return db.transaction().execute(async (trx): Promise<RunClaim> => {
        await lockSubscription(trx, 'digest_subscriptions', input.subscriptionId);
        const row = await scheduledRow(trx, input.subscriptionId, input.localDate);
        if (!row) return { claimed: true, run: await newRun(trx, 'scheduled', input, lease), how: 'new' };
        const how = await runs.claimExisting(trx, row.id, lease);
        return how === null
          ? { claimed: false, run: await mustRun(trx, row.id) }
          : { claimed: true, run: await mustRun(trx, row.id), how };
      });
    },
    createManual: (input, lease, newestRunId) =>
      db.transaction().execute(async (trx) => {
        await lockSubscription(trx, 'digest_subscriptions', input.subscriptionId);
        const newest = await trx
          .selectFrom('digest_runs')
          .select(['id', 'state'])
          .where('tenant_id', '=', tenant)
          .where('subscription_id', '=', input.subscriptionId)
          .orderBy('id', 'desc')
          .limit(1)
          .executeTakeFirst();
        if (newestRunId !== undefined && newest?.id !== newestRunId) return null;
        // Another "Run now" of it still open (fetching, posting, or its post being looked for)
        // would buy the same pages again and post a second digest: this one runs nothing.
        const open = await trx
          .selectFrom('digest_runs')
          .select('id')
          .where('tenant_id', '=', tenant)
          .where('subscription_id', '=', input.subscriptionId)
          .where('kind', '=', 'manual')
          .where('state', 'in', ['running', 'posting', 'unknown'])
          .limit(1)
          .executeTakeFirst();
        if (open) return null;
        return newRun(trx, 'manual', input, lease);
      }),
    run: (id) => runOf(db, id),
    async scheduledRun(subscriptionId, localDate) {
      const row = await scheduledRow(db, subscriptionId, localDate);
      return row ? toRun(row) : null;
    },
    async lastRun(subscriptionId) {
      const row = await db
        .selectFrom('digest_runs')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where('subscription_id', '=', subscriptionId)
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row ? toRun(row) : null;
    },
    async previousPosted(subscriptionId, beforeLocalDate) {
      const row = await db
        .selectFrom('digest_runs')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where('subscription_id', '=', subscriptionId)
        .where('kind', '=', 'scheduled')
        .where('state', '=', 'posted')
        .where('local_date', '<', beforeLocalDate)
        .orderBy('local_date', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row ? toRun(row) : null;
    },
    renew: runs.renew,
    release: runs.release,
    addCharge: runs.addCharge,
    // The summary is stored with the move to 'posting', in one transaction (a post needs it).
    markPosting: (runId, lease, summaryJson) =>
      db.transaction().execute(async (trx) => {
        if (!(await runs.markPosting(trx, runId, lease))) return false;
        await trx
          .updateTable('digest_runs')
          .set({ summary_json: summaryJson })
          .where('tenant_id', '=', tenant)
          .where('id', '=', runId)
          .execute();
        return true;
      }),
    markPosted: (runId, holder, messageTs, now) => runs.markPosted(db, runId, holder, messageTs, now),
    markUnknown: (runId, holder, unknown) => runs.markUnknown(db, runId, holder, unknown),
    markPostAttempt: runs.markPostAttempt,
    markFailed: runs.markFailed,
    markRefused: runs.markRefused,
    awaitApproval: runs.awaitApproval,
    claimApproved: (runId, lease, approvedBy) =>
      db.transaction().execute(async (trx) => {
        if (!(await runs.claimApproved(trx, runId, lease))) return null;
        await trx
          .updateTable('digest_runs')
          .set({ requested_by: approvedBy })
          .where('tenant_id', '=', tenant)
          .where('id', '=', runId)
          .execute();
        return runOf(trx, runId);
      }),
    async setNoticeTs(runId, ts) {
      await db
        .updateTable('digest_runs')
        .set({ notice_ts: ts })
        .where('tenant_id', '=', tenant)
        .where('id', '=', runId)
        .execute();
    },
    async setMessageTs(runId, ts) {
      await db
        .updateTable('digest_runs')
        .set({ message_ts: ts })
        .where('tenant_id', '=', tenant)
        .where('id', '=', runId)
        .execute();
    },
    async pruneRuns(olderThan) {
      let pruned = 0;
      // In batches, each its own short transaction under the locks of the batch's digests (a
      // claim of one of them waits for one batch, not for the whole prune; others do not wait).
      for (;;) {
        const deleted = await db.transaction().execute(async (trx) => {
          // SQLite: the database write lock before anything is read (schema.ts takeLock).
          await takeLock(trx, 'digests');
          const now = ctx.leaseNow();
          // A run still held is never removed under its holder.
          const old = (ids?: number[]) => {
            let q = trx
              .selectFrom('digest_runs')
              .select(['id', 'subscription_id'])
              .where('created_at', '<', olderThan.getTime())
              .where((eb) =>
                eb.not(eb.and([eb('state', 'in', ['running', 'posting']), eb('lease_expires_at', '>', now)])),
              );
            if (ids) q = q.where('id', 'in', ids);
            return q.orderBy('id').limit(PRUNE_BATCH).execute();
          };
          const candidates = await old();
          if (candidates.length === 0) return 0;
          // Their digests' locks (as a claim takes them: lockSubscription), then only the runs
          // still not held: none can be claimed from here to COMMIT.
          const subs = [...new Set(candidates.map((r) => Number(r.subscription_id)))].sort((a, b) => a - b);
          await sql`UPDATE digest_subscriptions SET id = id WHERE id IN (${sql.join(subs)})`.execute(trx);
          const ids = (await old(candidates.map((r) => Number(r.id)))).map((r) => Number(r.id));
          if (ids.length === 0) return 0;
          await deleteRunChildren(trx, ids);
          const result = await trx.deleteFrom('digest_runs').where('id', 'in', ids).executeTakeFirst();
          return Number(result.numDeletedRows);
        });
        pruned += deleted;
        if (deleted < PRUNE_BATCH) return pruned;
      }
    },
  };
}

/** Runs deleted per transaction by pruneRuns (well under either engine's bound-parameter limit). */
const PRUNE_BATCH = 500;

/**
 * The rows that belong to runs, deleted in the same transaction before their runs: there is no
 * ON DELETE CASCADE (the migrations are shared by both engines, and SQLite enforces foreign keys
 * only when asked). A table of rows per run (such as a digest's page records) deletes its rows
 * of `runIds` here, so they go with their run.
 */
async function deleteRunChildren(trx: Executor, runIds: readonly number[]): Promise<void> {
  // digest_pages.run_id references digest_runs: a run's pages go first.
  await trx.deleteFrom('digest_pages').where('run_id', 'in', runIds).execute();
}
