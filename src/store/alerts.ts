/**
 * Ship-by alerts (store.ts AlertStore): subscriptions, their checks and the orders they alerted.
 * Every state change is one conditional UPDATE or one transaction under its alert's lock (schema.ts
 * lockSubscription); the
 * lease SQL is runs.ts, shared with digests. So two processes never both hold a check or both
 * alert an order.
 */

import { type Selectable, sql } from 'kysely';
import { createLeasedRuns, toLeasedRun } from './runs.js';
import { wakeNow } from './schedule-wakes.js';
import type {
  AlertChecksTable,
  AlertOrdersTable,
  AlertSubscriptionsTable,
  Executor,
  StoreContext,
} from './schema.js';
import { lockSubscription } from './schema.js';
import { writeAudit } from './settings.js';
import type {
  AlertCheck,
  AlertCheckClaim,
  AlertOrder,
  AlertStore,
  AlertSubscription,
  ClaimOrderResult,
  NewAlertSubscription,
} from './store.js';

type SubscriptionRow = Selectable<AlertSubscriptionsTable>;
type CheckRow = Selectable<AlertChecksTable>;
type OrderRow = Selectable<AlertOrdersTable>;

const date = (ms: number | null): Date | null => (ms === null ? null : new Date(ms));

const toSubscription = (r: SubscriptionRow): AlertSubscription => ({
  id: r.id,
  tenantId: r.tenant_id,
  ownerId: r.owner_id,
  shopLabel: r.shop_label,
  channelId: r.channel_id,
  withinHours: r.within_hours,
  everyMinutes: r.every_minutes,
  hoursFrom: r.hours_from,
  hoursTo: r.hours_to,
  timeZone: r.time_zone,
  capPoints: r.cap_points,
  createdBy: r.created_by,
  createdAt: new Date(r.created_at),
});

const toCheck = (r: CheckRow): AlertCheck => ({
  ...toLeasedRun(r),
  slotAt: new Date(r.slot_at),
  localDate: r.local_date,
});

const toOrder = (r: OrderRow): AlertOrder => ({
  subscriptionId: r.subscription_id,
  orderSn: r.order_sn,
  checkId: r.check_id,
  state: r.state,
  messageTs: r.message_ts,
  goodsName: r.goods_name,
  goodsCount: r.goods_count,
  amountFen: r.amount_fen,
  lastShipTime: new Date(r.last_ship_time),
  claimedBy: r.claimed_by,
  claimedAt: date(r.claimed_at),
  doneBy: r.done_by,
  doneAt: date(r.done_at),
  remindedAt: date(r.reminded_at),
});

const one = (result: { numUpdatedRows: bigint }) => result.numUpdatedRows === 1n;

export function createAlerts(ctx: StoreContext): AlertStore {
  const { db, nowMs, tenant } = ctx;
  const runs = createLeasedRuns(
    ctx,
    'alert_checks',
    'platdesk stopped while posting: the alert may or may not have been posted',
  );
  const checkOf = async (ex: Executor, id: number): Promise<AlertCheck | null> => {
    const row = await ex
      .selectFrom('alert_checks')
      .selectAll()
      .where('tenant_id', '=', tenant)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toCheck(row) : null;
  };
  const mustCheck = async (ex: Executor, id: number): Promise<AlertCheck> => {
    const check = await checkOf(ex, id);
    if (!check) throw new Error(`alert check ${id} vanished`);
    return check;
  };
  const checkAtRow = (ex: Executor, sub: number, slotAt: number) =>
    ex
      .selectFrom('alert_checks')
      .selectAll()
      .where('tenant_id', '=', tenant)
      .where('subscription_id', '=', sub)
      .where('slot_at', '=', slotAt)
      .executeTakeFirst();
  const orderOf = async (sub: number, sn: string): Promise<AlertOrder | null> => {
    const row = await db
      .selectFrom('alert_orders')
      .selectAll()
      .where('tenant_id', '=', tenant)
      .where('subscription_id', '=', sub)
      .where('order_sn', '=', sn)
      .executeTakeFirst();
    return row ? toOrder(row) : null;
  };
  const orderChange = async (changed: boolean, sub: number, sn: string): Promise<ClaimOrderResult> => {
    const order = await orderOf(sub, sn);
    if (changed && order) return { ok: true, order };
    if (!order) return { ok: false, reason: 'not_found', order: null };
    return { ok: false, reason: order.state === 'alerted' ? 'taken' : 'done', order };
  };
  // Only for a subscription of this tenant: a forged id of another tenant's subscription must not
  // create its day row (the key is the subscription's, so that row would block its own tenant).
  const ensureDay = (ex: Executor, sub: number, localDate: string) =>
    ex
      .insertInto('alert_cap_days')
      .columns(['tenant_id', 'subscription_id', 'local_date'])
      .expression((eb) =>
        eb
          .selectFrom('alert_subscriptions')
          // The other columns are NULL; the subscription's own id and tenant, as found.
          .select((s) => ['tenant_id', s.ref('id').as('subscription_id'), s.val(localDate).as('local_date')])
          .where('tenant_id', '=', tenant)
          .where('id', '=', sub),
      )
      .onConflict((oc) => oc.columns(['subscription_id', 'local_date']).doNothing())
      .execute();

  return {
    add: (input: NewAlertSubscription) =>
      db.transaction().execute(async (trx) => {
        const row = await trx
          .insertInto('alert_subscriptions')
          .values({
            tenant_id: tenant,
            owner_id: input.ownerId,
            shop_label: input.shopLabel,
            channel_id: input.channelId,
            within_hours: input.withinHours,
            every_minutes: input.everyMinutes,
            hours_from: input.hoursFrom,
            hours_to: input.hoursTo,
            time_zone: input.timeZone,
            cap_points: input.capPoints,
            created_by: input.createdBy,
            created_at: nowMs(),
            notice_ts: null,
            removed_at: null,
            removed_by: null,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        await writeAudit(trx, ctx, {
          actorId: input.createdBy,
          action: 'alert.add',
          detail:
            `#${row.id}: owner ${input.ownerId} → ${input.channelId} within ${input.withinHours} h every ` +
            `${input.everyMinutes} min ${input.hoursFrom}-${input.hoursTo} ${input.timeZone} cap ${input.capPoints}`,
        });
        await wakeNow(trx, tenant, 'alert');
        return toSubscription(row);
      }),
    async get(id) {
      const row = await db
        .selectFrom('alert_subscriptions')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where('id', '=', id)
        .where('removed_at', 'is', null)
        .executeTakeFirst();
      return row ? toSubscription(row) : null;
    },
    async list() {
      const rows = await db
        .selectFrom('alert_subscriptions')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where('removed_at', 'is', null)
        .orderBy('id')
        .execute();
      return rows.map(toSubscription);
    },
    remove: (id, actorId) =>
      db.transaction().execute(async (trx) => {
        const removed = one(
          await trx
            .updateTable('alert_subscriptions')
            .set({ removed_at: nowMs(), removed_by: actorId })
            .where('tenant_id', '=', tenant)
            .where('id', '=', id)
            .where('removed_at', 'is', null)
            .executeTakeFirst(),
        );
        if (removed) await writeAudit(trx, ctx, { actorId, action: 'alert.remove', detail: `#${id}` });
        return removed;
      }),

    claimCheck: (input, lease) =>
      db.transaction().execute(async (trx): Promise<AlertCheckClaim> => {
        await lockSubscription(trx, 'alert_subscriptions', input.subscriptionId);
        const slotAt = input.slotAt.getTime();
        const row = await checkAtRow(trx, input.subscriptionId, slotAt);
        const now = nowMs();
        if (!row) {
          // The new check reads everything anew: older failed checks give up their retries.
          await trx
            .updateTable('alert_checks')
            .set({ next_attempt_at: null, updated_at: now })
            .where('tenant_id', '=', tenant)
            .where('subscription_id', '=', input.subscriptionId)
            .where('state', '=', 'failed')
            .where('slot_at', '<', slotAt)
            .execute();
          const created = await trx
            .insertInto('alert_checks')
            .values({
              tenant_id: tenant,
              subscription_id: input.subscriptionId,
              slot_at: slotAt,
              local_date: input.localDate,
              state: 'running',
              attempts: 1,
              lease_owner: lease.owner,
              lease_expires_at: sql<number>`${ctx.leaseNow()} + ${lease.ms}`,
              next_attempt_at: null,
              last_error: null,
              message_ts: null,
              estimate_points: null,
              created_at: now,
              updated_at: now,
              epoch: 1,
              post_attempt_at: null,
              check_progress: null,
            })
            .returningAll()
            .executeTakeFirstOrThrow();
          return { claimed: true, check: toCheck(created), how: 'new' };
        }
        const how = await runs.claimExisting(trx, row.id, lease);
        return how === null
          ? { claimed: false, check: await mustCheck(trx, row.id) }
          : { claimed: true, check: await mustCheck(trx, row.id), how };
      }),
    check: (id) => checkOf(db, id),
    async checkAt(sub, slotAt) {
      const row = await checkAtRow(db, sub, slotAt.getTime());
      return row ? toCheck(row) : null;
    },
    async lastPosted(sub) {
      const row = await db
        .selectFrom('alert_checks')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where('subscription_id', '=', sub)
        .where('state', '=', 'posted')
        .orderBy('slot_at', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row ? toCheck(row) : null;
    },
    async openChecks() {
      const rows = await db
        .selectFrom('alert_checks')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where((eb) =>
          eb.or([
            eb.and([eb('state', 'in', ['failed', 'unknown']), eb('next_attempt_at', 'is not', null)]),
            eb('state', 'in', ['running', 'posting']),
          ]),
        )
        .execute();
      return rows.map(toCheck);
    },
    async spentOn(sub, localDate) {
      const row = await db
        .selectFrom('alert_checks')
        .select((eb) => eb.fn.sum<number | null>('charged_points').as('points'))
        .where('tenant_id', '=', tenant)
        .where('subscription_id', '=', sub)
        .where('local_date', '=', localDate)
        .executeTakeFirst();
      return Number(row?.points ?? 0);
    },
    renew: runs.renew,
    release: runs.release,
    addCharge: runs.addCharge,
    recordPending: (checkId, lease, orders) =>
      db.transaction().execute(async (trx) => {
        if (!(await runs.holdRunning(trx, checkId, lease))) return null;
        const check = await mustCheck(trx, checkId);
        // Adopt the subscription's pending rows left by an earlier attempt, but not those of a
        // check whose post is in doubt: that check posts them, or finds them posted.
        await trx
          .updateTable('alert_orders')
          .set({ check_id: checkId })
          .where('tenant_id', '=', tenant)
          .where('subscription_id', '=', check.subscriptionId)
          .where('state', '=', 'pending')
          .where('check_id', 'not in', (eb) =>
            eb
              .selectFrom('alert_checks')
              .select('id')
              .where('tenant_id', '=', tenant)
              .where('subscription_id', '=', check.subscriptionId)
              .where('state', 'in', ['posting', 'unknown']),
          )
          .execute();
        for (const [seq, o] of orders.entries()) {
          await trx
            .insertInto('alert_orders')
            .values({
              tenant_id: tenant,
              subscription_id: check.subscriptionId,
              order_sn: o.orderSn,
              check_id: checkId,
              seq,
              state: 'pending',
              message_ts: null,
              goods_name: o.goodsName,
              goods_count: o.goodsCount,
              amount_fen: o.amountFen,
              last_ship_time: o.lastShipTime.getTime(),
              claimed_by: null,
              claimed_at: null,
              done_by: null,
              done_at: null,
              reminded_at: null,
            })
            .onConflict((oc) => oc.columns(['subscription_id', 'order_sn']).doNothing())
            .execute();
        }
        const rows = await trx
          .selectFrom('alert_orders')
          .selectAll()
          .where('tenant_id', '=', tenant)
          .where('check_id', '=', checkId)
          .where('state', '=', 'pending')
          .orderBy('last_ship_time')
          .orderBy('seq')
          .execute();
        return rows.map(toOrder);
      }),
    markPosting: (checkId, lease) => runs.markPosting(db, checkId, lease),
    markPosted: (id, holder, ts, now) =>
      db.transaction().execute(async (trx) => {
        if (!(await runs.markPosted(trx, id, holder, ts, now))) return false;
        if (ts !== null)
          await trx
            .updateTable('alert_orders')
            .set({ state: 'alerted', message_ts: ts })
            .where('tenant_id', '=', tenant)
            .where('check_id', '=', id)
            .where('state', '=', 'pending')
            .execute();
        return true;
      }),
    markUnknown: (id, holder, unknown) =>
      db.transaction().execute(async (trx) => {
        if (!(await runs.markUnknown(trx, id, holder, unknown))) return false;
        // Given up: the orders it carried are never posted again (a double alert is worse than an
        // admin asked to look).
        if (unknown.checkAt === null)
          await trx
            .updateTable('alert_orders')
            .set({ state: 'unknown' })
            .where('tenant_id', '=', tenant)
            .where('check_id', '=', id)
            .where('state', '=', 'pending')
            .execute();
        return true;
      }),
    markPostAttempt: runs.markPostAttempt,
    markFailed: runs.markFailed,
    markRefused: runs.markRefused,
    awaitApproval: runs.awaitApproval,
    claimApproved: async (id, lease) => ((await runs.claimApproved(db, id, lease)) ? checkOf(db, id) : null),

    async orders(sub, states, shipAfter) {
      let query = db
        .selectFrom('alert_orders')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where('subscription_id', '=', sub);
      if (shipAfter) query = query.where('last_ship_time', '>=', shipAfter.getTime());
      const rows = await query.orderBy('last_ship_time').orderBy('seq').execute();
      return rows.filter((r) => states.includes(r.state)).map(toOrder);
    },
    order: orderOf,
    prune: (before) =>
      db.transaction().execute(async (trx) => {
        const at = before.getTime();
        const orders = await trx
          .deleteFrom('alert_orders')
          .where('last_ship_time', '<', at)
          .executeTakeFirst();
        const checks = await trx
          .deleteFrom('alert_checks')
          .where('created_at', '<', at)
          .where('state', 'not in', ['running', 'posting'])
          .where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom('alert_orders as o')
                  .select('o.order_sn')
                  .whereRef('o.check_id', '=', 'alert_checks.id'),
              ),
            ),
          )
          .executeTakeFirst();
        return Number(orders.numDeletedRows) + Number(checks.numDeletedRows);
      }),
    async ordersOfMessage(sub, ts) {
      const rows = await db
        .selectFrom('alert_orders')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where('subscription_id', '=', sub)
        .where('message_ts', '=', ts)
        .orderBy('last_ship_time')
        .orderBy('seq')
        .execute();
      return rows.map(toOrder);
    },
    async claimOrder(sub, sn, user, now) {
      const changed = one(
        await db
          .updateTable('alert_orders')
          .set({ claimed_by: user, claimed_at: now.getTime() })
          .where('tenant_id', '=', tenant)
          .where('subscription_id', '=', sub)
          .where('order_sn', '=', sn)
          .where('state', '=', 'alerted')
          .where('claimed_by', 'is', null)
          .executeTakeFirst(),
      );
      const result = await orderChange(changed, sub, sn);
      // Claiming one's own order again is not a refusal.
      if (!result.ok && result.reason === 'taken' && result.order?.claimedBy === user)
        return { ok: true, order: result.order };
      return result;
    },
    async handleOrder(sub, sn, user, now) {
      const changed = one(
        await db
          .updateTable('alert_orders')
          .set({ state: 'handled', done_by: user, done_at: now.getTime() })
          .where('tenant_id', '=', tenant)
          .where('subscription_id', '=', sub)
          .where('order_sn', '=', sn)
          .where('state', '=', 'alerted')
          .where((eb) => eb.or([eb('claimed_by', 'is', null), eb('claimed_by', '=', user)]))
          .executeTakeFirst(),
      );
      return orderChange(changed, sub, sn);
    },
    async markShipped(sub, sn, now) {
      return one(
        await db
          .updateTable('alert_orders')
          .set({ state: 'shipped', done_at: now.getTime() })
          .where('tenant_id', '=', tenant)
          .where('subscription_id', '=', sub)
          .where('order_sn', '=', sn)
          .where('state', '=', 'alerted')
          .executeTakeFirst(),
      );
    },
    async markReminded(sub, sn, now) {
      return one(
        await db
          .updateTable('alert_orders')
          .set({ reminded_at: now.getTime() })
          .where('tenant_id', '=', tenant)
          .where('subscription_id', '=', sub)
          .where('order_sn', '=', sn)
          .where('state', '=', 'alerted')
          .where('reminded_at', 'is', null)
          .executeTakeFirst(),
      );
    },

    async approvedOn(sub, localDate) {
      const row = await db
        .selectFrom('alert_cap_days')
        .select('approved_by')
        .where('tenant_id', '=', tenant)
        .where('subscription_id', '=', sub)
        .where('local_date', '=', localDate)
        .executeTakeFirst();
      return row?.approved_by ?? null;
    },
    approveDay: (sub, localDate, user, now) =>
      db.transaction().execute(async (trx) => {
        await ensureDay(trx, sub, localDate);
        const approved = one(
          await trx
            .updateTable('alert_cap_days')
            .set({ approved_by: user, approved_at: now.getTime() })
            .where('tenant_id', '=', tenant)
            .where('subscription_id', '=', sub)
            .where('local_date', '=', localDate)
            .where('approved_by', 'is', null)
            .executeTakeFirst(),
        );
        if (approved)
          await writeAudit(trx, ctx, {
            actorId: user,
            action: 'alert.approve',
            detail: `#${sub} ${localDate}`,
          });
      }),
    markAsked: (sub, localDate, now) =>
      db.transaction().execute(async (trx) => {
        await ensureDay(trx, sub, localDate);
        return one(
          await trx
            .updateTable('alert_cap_days')
            .set({ asked_at: now.getTime() })
            .where('tenant_id', '=', tenant)
            .where('subscription_id', '=', sub)
            .where('local_date', '=', localDate)
            .where('asked_at', 'is', null)
            .executeTakeFirst(),
        );
      }),
    async noticeTs(sub) {
      const row = await db
        .selectFrom('alert_subscriptions')
        .select('notice_ts')
        .where('tenant_id', '=', tenant)
        .where('id', '=', sub)
        .executeTakeFirst();
      return row?.notice_ts ?? null;
    },
    async setNoticeTs(sub, ts) {
      await db
        .updateTable('alert_subscriptions')
        .set({ notice_ts: ts })
        .where('tenant_id', '=', tenant)
        .where('id', '=', sub)
        .execute();
    },
  };
}
