/**
 * The spend ledger: one row per charge the plat API reported, and the mapping of a charge to its
 * row (one mapping for every caller: lookups, unfurls, digests), so the ledger always matches what
 * the service withheld. `createChargeRecorder` makes sure a charge is never lost when the store
 * cannot be written at the moment it arrives.
 */
import { type ExpressionBuilder, type Selectable, sql } from 'kysely';
import { addToCounters, consumeReservation, countersOf } from './budgets.js';
import { isStoreUnavailable } from './errors.js';
import { BUDGETS_SETTING_KEY, budgetZone, budgetZoneSetting, periodKeys } from './periods.js';
import type { Executor, LedgerTable, Schema, StoreContext } from './schema.js';
import type {
  Ledger,
  LedgerEntry,
  LedgerGroupBy,
  LedgerGroupRow,
  LedgerRange,
  LedgerSource,
  LedgerTotals,
  NewLedgerEntry,
  RecordOptions,
} from './store.js';

// ---- a charge as a ledger row ----------------------------------------------------------------

/** What the plat client reports of a charge (plat/types.ts ChargeEvent has this shape). */
export interface ChargeFacts {
  operation: string;
  edition: number | null;
  points: number;
  quotaCalls: number;
  code: number;
  requestId: string | null;
  correlationId: string | null;
  at: Date;
}

export interface ChargeContext {
  /** The id fixed before the call (store.ts LedgerEntry.chargeId; chargeIdOf below). */
  chargeId: string;
  /** null for scheduled work (digests). */
  userId: string | null;
  channelId: string | null;
  pendingId: string | null;
  source: LedgerSource;
  /** A workflow step's run: its workflow and step (ledger columns workflow_execution_id, step_id). */
  workflow?: { workflowExecutionId: string; stepId: string };
}

/**
 * A charge id: what it is a charge of (a lookup's id, `digest:<run>:<attempt>`…), the call's place
 * in it and the plat client's attempt of that call (0 first, 1 the first retry…).
 */
export function chargeIdOf(owner: string, call: number, attempt: number): string {
  return `${owner}:${call}:${attempt}`;
}

export function ledgerEntryFor(charge: ChargeFacts, context: ChargeContext): NewLedgerEntry {
  return {
    chargeId: context.chargeId,
    at: charge.at,
    userId: context.userId,
    channelId: context.channelId,
    operation: charge.operation,
    edition: charge.edition,
    points: charge.points,
    quotaCalls: charge.quotaCalls,
    code: charge.code,
    outcome: charge.code === 0 ? 'ok' : 'error',
    requestId: charge.requestId,
    correlationId: charge.correlationId,
    pendingId: context.pendingId,
    source: context.source,
    workflowExecutionId: context.workflow?.workflowExecutionId ?? null,
    stepId: context.workflow?.stepId ?? null,
  };
}

// ---- the ledger --------------------------------------------------------------------------------

type LedgerRow = Selectable<LedgerTable>;

function toLedgerEntry(row: LedgerRow): LedgerEntry {
  return {
    id: row.id,
    chargeId: row.charge_id,
    at: new Date(row.at),
    userId: row.user_id,
    channelId: row.channel_id,
    // Not checked against the operation names on read, so an export never fails on a row from
    // before an operation was renamed.
    operation: row.operation,
    edition: row.edition,
    points: row.points,
    quotaCalls: row.quota_calls,
    code: row.code,
    outcome: row.outcome,
    requestId: row.request_id,
    correlationId: row.correlation_id,
    pendingId: row.pending_id,
    source: row.source as LedgerSource,
    workflowExecutionId: row.workflow_execution_id,
    stepId: row.step_id,
  };
}

/** A row's columns but its key (tenant, charge id): what an upgrade of a placeholder rewrites. */
const rowFields = (entry: NewLedgerEntry) => ({
  at: entry.at.getTime(),
  user_id: entry.userId,
  channel_id: entry.channelId,
  operation: entry.operation,
  edition: entry.edition,
  points: entry.points,
  quota_calls: entry.quotaCalls,
  code: entry.code,
  outcome: entry.outcome,
  request_id: entry.requestId,
  correlation_id: entry.correlationId,
  pending_id: entry.pendingId,
  source: entry.source,
  workflow_execution_id: entry.workflowExecutionId ?? null,
  step_id: entry.stepId ?? null,
});

/** A stored row's workflow columns: null for a charge that is not a workflow step's. */
const stepOf = (entry: NewLedgerEntry) => ({
  workflowExecutionId: entry.workflowExecutionId ?? null,
  stepId: entry.stepId ?? null,
});

/**
 * The ledger code of a call whose charge id was written ahead but which may never have been sent
 * (its holder died between the write ahead and the send, or before the send was marked): the
 * row keeps the call in the ledger should it have reached the service, and counts in no figure
 * a person reads (docs/money.md, "What the ledger knows of a call"). plat/ never reports it.
 */
export const MAYBE_NOT_SENT_CODE = -2;

/**
 * How much a row knows of its call (store.ts Ledger.record): a row written for a call whose
 * answer was never read (a placeholder: -2 may not have been sent, -1 sent with no answer; both
 * 0 points) is upgraded by a row that knows more under the same charge id, never the reverse.
 * (-1 is plat/codes.ts NO_ANSWER_CODE.)
 */
export function certaintyOf(code: number): number {
  if (code === MAYBE_NOT_SENT_CODE) return 0;
  return code === -1 ? 1 : 2;
}

/** What platdesk_record (migrations 13 and 15) raises when the budget zone setting is not the one read. */
const ZONE_CHANGED_SQLSTATE = 'PD002';

/**
 * The calls a set of ledger rows counts: every row but those of calls that may never have been
 * sent (MAYBE_NOT_SENT_CODE), which stay in the ledger (and its export) and count in no figure.
 */
const callsOf = (eb: ExpressionBuilder<Schema, 'ledger'>) =>
  eb.fn.coalesce(
    eb.fn.sum<number>(eb.case().when('code', '=', MAYBE_NOT_SENT_CODE).then(0).else(1).end()),
    eb.lit(0),
  );

/** Rows per page of iterate(). */
const PAGE = 500;

export function createLedger({ db, engine, tenant }: StoreContext): Ledger {
  // Charge ids are unique in the whole ledger (their owners are uuids and run ids): a charge id
  // written by another tenant is still a conflict, but it is read back only within the tenant.
  const byChargeId = (executor: Executor, chargeId: string) =>
    executor
      .selectFrom('ledger')
      .selectAll()
      .where('tenant_id', '=', tenant)
      .where('charge_id', '=', chargeId)
      .executeTakeFirstOrThrow();
  const filtered = (q: LedgerRange & { userId?: string; channelId?: string; source?: LedgerSource }) => {
    let query = db
      .selectFrom('ledger')
      .where('tenant_id', '=', tenant)
      .where('at', '>=', q.from.getTime())
      .where('at', '<', q.to.getTime());
    if (q.userId !== undefined) query = query.where('user_id', '=', q.userId);
    if (q.channelId !== undefined) query = query.where('channel_id', '=', q.channelId);
    if (q.source !== undefined) query = query.where('source', '=', q.source);
    return query;
  };
  // SUM of an empty set is NULL on both engines; COUNT is a BIGINT on PostgreSQL (engine.ts
  // parses both BIGINT and NUMERIC back to number).
  const sums = filteredSums;
  function filteredSums(q: LedgerRange & { userId?: string; channelId?: string; source?: LedgerSource }) {
    return filtered(q).select((eb) => [
      eb.fn.coalesce(eb.fn.sum<number>('points'), eb.lit(0)).as('points'),
      eb.fn.coalesce(eb.fn.sum<number>('quota_calls'), eb.lit(0)).as('quota_calls'),
      callsOf(eb).as('calls'),
    ]);
  }
  const toTotals = (row: { points: number; quota_calls: number; calls: number }): LedgerTotals => ({
    points: Number(row.points),
    quotaCalls: Number(row.quota_calls),
    calls: Number(row.calls),
  });

  async function groupTotals(
    by: LedgerGroupBy,
    q: LedgerRange & { userId?: string },
  ): Promise<LedgerGroupRow<string | null>[]> {
    const column = by === 'user' ? 'user_id' : 'operation';
    const rows = await sums(q)
      .select(`${column} as key`)
      .groupBy(column)
      .orderBy('points', 'desc')
      .orderBy('key')
      .execute();
    return rows.map((row) => ({ key: row.key, ...toTotals(row) }));
  }

  /**
   * The tenant's budget zone setting as last read (PostgreSQL's platdesk_record checks it is
   * still so); this ledger is bound to one tenant, so is the setting it keeps.
   */
  let zoneSetting: { zone: string; stored: string | null } | null = null;

  /**
   * PostgreSQL: the same in one statement (migrations 13 and 15's platdesk_record), so the counter rows
   * are locked for the server's work only, not across client round trips. The periods a row
   * counts in are those of its time in the budget zone: worked out here from the zone setting as
   * last read, which the statement checks is still the stored one (else PD002: read it again).
   */
  async function recordPostgres(entry: NewLedgerEntry, options: RecordOptions): Promise<LedgerEntry> {
    for (let attempt = 0; ; attempt++) {
      zoneSetting ??= await budgetZoneSetting(db, tenant);
      const counters = countersOf(entry, periodKeys(entry.at, zoneSetting.zone));
      try {
        const { rows } = await sql<{ id: number | null }>`
          SELECT platdesk_record(
            ${tenant}, ${BUDGETS_SETTING_KEY}, ${zoneSetting.stored},
            ${entry.chargeId}, ${entry.at.getTime()}::bigint, ${entry.userId}, ${entry.channelId},
            ${entry.operation}, ${entry.edition}::bigint, ${entry.points}::double precision,
            ${entry.quotaCalls}::bigint, ${entry.code}::bigint, ${entry.outcome}, ${entry.requestId},
            ${entry.correlationId}, ${entry.pendingId}, ${entry.source}, ${options.reservationId ?? null},
            ${counters.map((c) => c.scope)}::text[], ${counters.map((c) => c.subject)}::text[],
            ${counters.map((c) => c.period)}::text[], ${counters.map((c) => c.key)}::text[],
            ${entry.workflowExecutionId ?? null}, ${entry.stepId ?? null}
          ) AS id`.execute(db);
        const id = rows[0]?.id;
        if (id === null || id === undefined) return toLedgerEntry(await byChargeId(db, entry.chargeId));
        return { ...entry, ...stepOf(entry), id: Number(id) };
      } catch (error) {
        // The zone was changed since it was read: read it again (twice at most, then fail).
        if ((error as { code?: unknown }).code !== ZONE_CHANGED_SQLSTATE || attempt >= 2) throw error;
        zoneSetting = null;
      }
    }
  }

  return {
    record: (entry: NewLedgerEntry, options: RecordOptions = {}) =>
      engine === 'postgres'
        ? recordPostgres(entry, options)
        : db.transaction().execute(async (trx) => {
            // ON CONFLICT DO NOTHING: a charge written before (a write retried after it had in fact
            // committed) inserts nothing, and so counts nothing again.
            const inserted = await trx
              .insertInto('ledger')
              .values({ tenant_id: tenant, charge_id: entry.chargeId, ...rowFields(entry) })
              .onConflict((oc) => oc.column('charge_id').doNothing())
              .returning('id')
              .executeTakeFirst();
            let id = inserted?.id;
            if (id === undefined) {
              const stored = await byChargeId(trx, entry.chargeId);
              // A placeholder (a call whose answer was never read: 0 points) is upgraded by the
              // late charge of its call; anything else was written before: nothing more counts.
              if (!(stored.points === 0 && certaintyOf(entry.code) > certaintyOf(stored.code)))
                return toLedgerEntry(stored);
              await trx
                .updateTable('ledger')
                .set(rowFields(entry))
                .where('id', '=', stored.id)
                .where('code', '=', stored.code)
                .execute();
              id = stored.id;
            }
            // The reservation row first, then the counters in their fixed order (budgets.ts). An
            // upgraded placeholder had 0 points: the counters move by the charge's points.
            const released = options.reservationId
              ? await consumeReservation(trx, tenant, options.reservationId, entry.points)
              : [];
            const keys = periodKeys(entry.at, await budgetZone(trx, tenant));
            await addToCounters(trx, tenant, [
              ...countersOf(entry, keys).map((c) => ({ ...c, spent: entry.points, reserved: 0 })),
              ...released,
            ]);
            return { ...entry, ...stepOf(entry), id: Number(id) };
          }),
    async byPending(pendingId) {
      const rows = await db
        .selectFrom('ledger')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where('pending_id', '=', pendingId)
        .orderBy('id')
        .execute();
      return rows.map(toLedgerEntry);
    },
    async lastCharge(operation, edition) {
      // Walks ledger_operation_edition backwards from the newest id to the first successful row.
      const row = await db
        .selectFrom('ledger')
        .select('points')
        .where('tenant_id', '=', tenant)
        .where('operation', '=', operation)
        .where('edition', edition === null ? 'is' : '=', edition)
        .where('code', '=', 0)
        .where('points', '>', 0)
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row ? row.points : null;
    },
    async largestCharge(operation, edition) {
      // MAX over the last column of migration 18's index, under equalities only (no edition is
      // -1 there): one index probe on both engines.
      const row = await db
        .selectFrom('ledger')
        .select((eb) => eb.fn.max<number | null>('points').as('points'))
        .where('tenant_id', '=', tenant)
        .where('operation', '=', operation)
        .where(sql`coalesce(edition, -1)`, '=', edition ?? -1)
        .where('points', '>', 0)
        .executeTakeFirst();
      return row?.points == null ? null : Number(row.points);
    },
    totals: async (q) => toTotals(await sums(q).executeTakeFirstOrThrow()),
    async chargesOf(pendingId) {
      const row = await db
        .selectFrom('ledger')
        .where('tenant_id', '=', tenant)
        .where('pending_id', '=', pendingId)
        .select((eb) => [
          eb.fn.coalesce(eb.fn.sum<number>('points'), eb.lit(0)).as('points'),
          eb.fn.coalesce(eb.fn.sum<number>('quota_calls'), eb.lit(0)).as('quota_calls'),
          callsOf(eb).as('calls'),
        ])
        .executeTakeFirstOrThrow();
      return toTotals(row);
    },
    // The overloads in Ledger narrow the key type; one implementation serves them all.
    groupTotals: groupTotals as Ledger['groupTotals'],
    async list(q) {
      let query = filtered(q).selectAll().orderBy('at', 'desc').orderBy('id', 'desc');
      if (q.limit !== undefined) query = query.limit(q.limit);
      return (await query.execute()).map(toLedgerEntry);
    },
    async *iterate(q) {
      // Keyset pages by (at, id): no cursor or connection is held between pages.
      let after: { at: number; id: number } | null = null;
      for (;;) {
        let query = filtered(q).selectAll();
        if (after) {
          const { at, id } = after;
          query = query.where((eb) =>
            eb.or([eb('at', '>', at), eb.and([eb('at', '=', at), eb('id', '>', id)])]),
          );
        }
        const rows = await query.orderBy('at').orderBy('id').limit(PAGE).execute();
        for (const row of rows) yield toLedgerEntry(row);
        const last = rows.at(-1);
        if (!last || rows.length < PAGE) return;
        after = { at: last.at, id: last.id };
      }
    },
  };
}

// ---- charges that must not be lost -------------------------------------------------------------

export interface ChargeRecorder {
  /**
   * Writes the charge now; if the store cannot be written, keeps it and writes it when the store
   * answers again (retried every `retryMs`). Never rejects: a charge is a fact, not a request.
   * Resolves once this charge is written or kept (callers that answer after a call await it, so
   * the answer comes after its ledger row). A kept charge is written with the same charge id,
   * so a write that had in fact committed is not counted twice.
   */
  record(entry: NewLedgerEntry, options?: RecordOptions): Promise<void>;
  /**
   * Runs `then` once every charge recorded before this call is durably in the ledger: now when
   * none is kept, else right after the kept ones are written (a budget reservation is held until
   * its charges are written, not merely kept in memory). Resolves when `then` ran or was queued.
   */
  afterWritten(then: () => Promise<void>): Promise<void>;
  /** Charges kept, not yet written. */
  backlog(): number;
  /** Charges set aside since start because the store refused them for good (see PARK_AFTER_REFUSALS). */
  parked(): number;
  /** Tries to write every kept charge now; resolves with how many are still kept. */
  flush(): Promise<number>;
  /** Stops retrying (after a last flush by the caller). */
  stop(): void;
}

type KeptItem =
  | { kind: 'charge'; entry: NewLedgerEntry; options: RecordOptions; refusals: number }
  | { kind: 'then'; run: () => Promise<void> };

/**
 * A kept charge the store answers with an error (not "unreachable": a constraint, a value it
 * refuses) this many times in a row is set aside (issue 33 finding 11): logged in full, counted
 * and reported (`onParked`), so that it no longer holds up every charge and reservation release
 * queued behind it. While the store cannot be reached nothing is refused: charges wait, in order.
 */
export const PARK_AFTER_REFUSALS = 5;

export function createChargeRecorder(deps: {
  ledger: Ledger;
  logger: {
    warn(o: object, msg: string): void;
    error(o: object, msg: string): void;
    info(o: object, msg: string): void;
  };
  retryMs?: number;
  /** A charge was set aside (PARK_AFTER_REFUSALS): the metric and the admins' alert. */
  onParked?: (entry: NewLedgerEntry, error: unknown) => void;
}): ChargeRecorder {
  const kept: KeptItem[] = [];
  const retryMs = deps.retryMs ?? 1000;
  let timer: NodeJS.Timeout | null = null;
  let flushing: Promise<number> | null = null;
  let parkedCount = 0;
  const charges = () => kept.filter((k) => k.kind === 'charge').length;

  const schedule = () => {
    timer ??= setTimeout(() => {
      timer = null;
      void flush();
    }, retryMs);
    timer.unref();
  };

  async function writeKept(): Promise<number> {
    while (kept.length > 0) {
      const next = kept[0] as KeptItem;
      if (next.kind === 'then') {
        kept.shift();
        await next.run().catch((err: unknown) => deps.logger.warn({ err }, 'after charges written: failed'));
        continue;
      }
      try {
        await deps.ledger.record(next.entry, next.options);
      } catch (err) {
        if (!isStoreUnavailable(err)) next.refusals += 1;
        if (next.refusals >= PARK_AFTER_REFUSALS) {
          // The store answers, and refuses this one charge whatever is retried: set aside, so the
          // charges and releases behind it are written. Its reservation, if any, is released with
          // them: the charge is in the log and the admins' alert, not in the totals.
          kept.shift();
          parkedCount += 1;
          deps.logger.error(
            { err, charge: next.entry, refusals: next.refusals },
            'charge refused by the store: set aside, not in the ledger (enter it by hand)',
          );
          try {
            deps.onParked?.(next.entry, err);
          } catch (hookErr) {
            deps.logger.warn({ err: hookErr }, 'parked charge not reported');
          }
          continue;
        }
        deps.logger.warn({ err, kept: charges() }, 'ledger not writable: charges kept for later');
        schedule();
        return charges();
      }
      kept.shift();
      if (charges() === 0) deps.logger.info({}, 'kept charges written to the ledger');
    }
    return 0;
  }

  function flush(): Promise<number> {
    flushing ??= writeKept().finally(() => {
      flushing = null;
      // A charge that arrived as this pass ended: write it now (a failed pass set the timer).
      if (kept.length > 0 && !timer) void flush();
    });
    return flushing;
  }

  return {
    async record(entry, options = {}) {
      // Order is kept: while older charges wait, a new one queues behind them.
      kept.push({ kind: 'charge', entry, options, refusals: 0 });
      await flush();
    },
    async afterWritten(then) {
      if (kept.length === 0 && flushing === null) {
        await then();
        return;
      }
      kept.push({ kind: 'then', run: then });
      await flush();
    },
    backlog: charges,
    parked: () => parkedCount,
    flush,
    stop() {
      if (timer) clearTimeout(timer);
      timer = null;
      // The last resort: each charge goes to the log in full (ledger fields only: ids, operation,
      // points, code; never order data), so an operator can enter it once the store is back.
      const left = kept.flatMap((k) => (k.kind === 'charge' ? [k.entry] : []));
      if (left.length > 0)
        deps.logger.error(
          { kept: left.length, charges: left },
          'stopping with charges not written to the ledger',
        );
    },
  };
}
