/**
 * AlertStore on SQLite (migration 4). Every state change is one conditional UPDATE or runs in an
 * IMMEDIATE transaction; the lease SQL is sqlite-runs.ts, shared with digests. So two instances never both hold a check or
 * both alert an order.
 */
import type Database from 'better-sqlite3';
import type {
  AlertCheck,
  AlertCheckClaim,
  AlertOrder,
  AlertOrderState,
  AlertStore,
  AlertSubscription,
  ClaimOrderResult,
  NewAlertSubscription,
} from './alerts.js';
import { createSqliteLeasedRuns, type LeasedRunRow, toLeasedRun } from './sqlite-runs.js';
import type { AuditLog } from './store.js';

interface SubscriptionRow {
  id: number;
  owner_id: string;
  shop_label: string;
  channel_id: string;
  within_hours: number;
  every_minutes: number;
  hours_from: string;
  hours_to: string;
  time_zone: string;
  cap_points: number;
  created_by: string;
  created_at: number;
}

interface CheckRow extends LeasedRunRow {
  slot_at: number;
  local_date: string;
}

interface OrderRow {
  subscription_id: number;
  order_sn: string;
  check_id: number;
  state: AlertOrderState;
  message_ts: string | null;
  goods_name: string;
  goods_count: number;
  amount_fen: number;
  last_ship_time: number;
  claimed_by: string | null;
  claimed_at: number | null;
  done_by: string | null;
  done_at: number | null;
  reminded_at: number | null;
}

const date = (ms: number | null): Date | null => (ms === null ? null : new Date(ms));

const toSubscription = (r: SubscriptionRow): AlertSubscription => ({
  id: r.id,
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

export function createSqliteAlerts(
  db: Database.Database,
  nowMs: () => number,
  audit: AuditLog,
  transaction: <T>(fn: () => T) => T,
): AlertStore {
  const insertSub = db.prepare<[Omit<SubscriptionRow, 'id'>]>(
    `INSERT INTO alert_subscriptions (owner_id, shop_label, channel_id, within_hours, every_minutes, hours_from,
       hours_to, time_zone, cap_points, created_by, created_at)
     VALUES (@owner_id, @shop_label, @channel_id, @within_hours, @every_minutes, @hours_from, @hours_to,
       @time_zone, @cap_points, @created_by, @created_at)`,
  );
  const selectSub = db.prepare<[number], SubscriptionRow>(
    'SELECT * FROM alert_subscriptions WHERE id = ? AND removed_at IS NULL',
  );
  const selectSubs = db.prepare<[], SubscriptionRow>(
    'SELECT * FROM alert_subscriptions WHERE removed_at IS NULL ORDER BY id',
  );
  const removeSub = db.prepare<[number, string, number]>(
    'UPDATE alert_subscriptions SET removed_at = ?, removed_by = ? WHERE id = ? AND removed_at IS NULL',
  );
  const selectNotice = db.prepare<[number], { notice_ts: string | null }>(
    'SELECT notice_ts FROM alert_subscriptions WHERE id = ?',
  );
  const updateNotice = db.prepare<[string | null, number]>(
    'UPDATE alert_subscriptions SET notice_ts = ? WHERE id = ?',
  );

  const selectCheck = db.prepare<[number], CheckRow>('SELECT * FROM alert_checks WHERE id = ?');
  const selectCheckAt = db.prepare<[number, number], CheckRow>(
    'SELECT * FROM alert_checks WHERE subscription_id = ? AND slot_at = ?',
  );
  const selectLastPosted = db.prepare<[number], CheckRow>(
    `SELECT * FROM alert_checks WHERE subscription_id = ? AND state = 'posted' ORDER BY slot_at DESC LIMIT 1`,
  );
  const selectOpen = db.prepare<[], CheckRow>(
    `SELECT * FROM alert_checks WHERE (state = 'failed' AND next_attempt_at IS NOT NULL)
       OR state IN ('running', 'posting')`,
  );
  const selectSpent = db.prepare<[number, string], { points: number | null }>(
    'SELECT SUM(charged_points) AS points FROM alert_checks WHERE subscription_id = ? AND local_date = ?',
  );
  const insertCheck = db.prepare<{
    subscription_id: number;
    slot_at: number;
    local_date: string;
    owner: string;
    expires: number;
    now: number;
  }>(
    `INSERT INTO alert_checks (subscription_id, slot_at, local_date, state, attempts, lease_owner,
       lease_expires_at, created_at, updated_at)
     VALUES (@subscription_id, @slot_at, @local_date, 'running', 1, @owner, @expires, @now, @now)`,
  );
  const giveUpOlder = db.prepare<[number, number, number]>(
    `UPDATE alert_checks SET next_attempt_at = NULL, updated_at = ?
     WHERE subscription_id = ? AND state = 'failed' AND slot_at < ?`,
  );
  const runs = createSqliteLeasedRuns(
    db,
    'alert_checks',
    'platdesk stopped while posting: the alert may or may not have been posted',
  );
  // The orders such a post carried are not posted again (a double alert is worse than an admin alert).
  const orphanOrders = db.prepare<[number]>(
    `UPDATE alert_orders SET state = 'unknown' WHERE check_id = ? AND state = 'pending'`,
  );
  const insertOrder = db.prepare<{
    subscription_id: number;
    order_sn: string;
    check_id: number;
    seq: number;
    goods_name: string;
    goods_count: number;
    amount_fen: number;
    last_ship_time: number;
  }>(
    `INSERT INTO alert_orders (subscription_id, order_sn, check_id, seq, state, goods_name, goods_count,
       amount_fen, last_ship_time)
     VALUES (@subscription_id, @order_sn, @check_id, @seq, 'pending', @goods_name, @goods_count, @amount_fen,
       @last_ship_time)
     ON CONFLICT (subscription_id, order_sn) DO NOTHING`,
  );
  const adoptPending = db.prepare<[number, number]>(
    `UPDATE alert_orders SET check_id = ? WHERE subscription_id = ? AND state = 'pending'`,
  );
  const selectPending = db.prepare<[number], OrderRow>(
    `SELECT * FROM alert_orders WHERE check_id = ? AND state = 'pending' ORDER BY last_ship_time, seq`,
  );
  const ordersPosted = db.prepare<[string, number]>(
    `UPDATE alert_orders SET state = 'alerted', message_ts = ? WHERE check_id = ? AND state = 'pending'`,
  );

  const selectOrders = db.prepare<[number, number], OrderRow>(
    'SELECT * FROM alert_orders WHERE subscription_id = ? AND last_ship_time >= ? ORDER BY last_ship_time, seq',
  );
  const pruneOrders = db.prepare<[number]>('DELETE FROM alert_orders WHERE last_ship_time < ?');
  const pruneChecks = db.prepare<[number]>(
    `DELETE FROM alert_checks WHERE created_at < ? AND state NOT IN ('running', 'posting')
       AND NOT EXISTS (SELECT 1 FROM alert_orders o WHERE o.check_id = alert_checks.id)`,
  );
  const selectOrder = db.prepare<[number, string], OrderRow>(
    'SELECT * FROM alert_orders WHERE subscription_id = ? AND order_sn = ?',
  );
  const selectOfMessage = db.prepare<[number, string], OrderRow>(
    'SELECT * FROM alert_orders WHERE subscription_id = ? AND message_ts = ? ORDER BY last_ship_time, seq',
  );
  const claimOrder = db.prepare<{ sub: number; sn: string; user: string; now: number }>(
    `UPDATE alert_orders SET claimed_by = @user, claimed_at = @now
     WHERE subscription_id = @sub AND order_sn = @sn AND state = 'alerted' AND claimed_by IS NULL`,
  );
  const handleOrder = db.prepare<{ sub: number; sn: string; user: string; now: number }>(
    `UPDATE alert_orders SET state = 'handled', done_by = @user, done_at = @now
     WHERE subscription_id = @sub AND order_sn = @sn AND state = 'alerted'
       AND (claimed_by IS NULL OR claimed_by = @user)`,
  );
  const shipOrder = db.prepare<{ sub: number; sn: string; now: number }>(
    `UPDATE alert_orders SET state = 'shipped', done_at = @now
     WHERE subscription_id = @sub AND order_sn = @sn AND state = 'alerted'`,
  );
  const remindOrder = db.prepare<{ sub: number; sn: string; now: number }>(
    `UPDATE alert_orders SET reminded_at = @now
     WHERE subscription_id = @sub AND order_sn = @sn AND state = 'alerted' AND reminded_at IS NULL`,
  );

  const selectDay = db.prepare<[number, string], { asked_at: number | null; approved_by: string | null }>(
    'SELECT asked_at, approved_by FROM alert_cap_days WHERE subscription_id = ? AND local_date = ?',
  );
  const insertDay = db.prepare<[number, string]>(
    `INSERT INTO alert_cap_days (subscription_id, local_date) VALUES (?, ?)
     ON CONFLICT (subscription_id, local_date) DO NOTHING`,
  );
  const askDay = db.prepare<[number, number, string]>(
    'UPDATE alert_cap_days SET asked_at = ? WHERE subscription_id = ? AND local_date = ? AND asked_at IS NULL',
  );
  const approveDay = db.prepare<[string, number, number, string]>(
    `UPDATE alert_cap_days SET approved_by = ?, approved_at = ?
     WHERE subscription_id = ? AND local_date = ? AND approved_by IS NULL`,
  );

  const checkOf = (id: number): AlertCheck | null => {
    const row = selectCheck.get(id);
    return row ? toCheck(row) : null;
  };
  const mustCheck = (id: number): AlertCheck => {
    const check = checkOf(id);
    if (!check) throw new Error(`alert check ${id} vanished`);
    return check;
  };
  const orderOf = (sub: number, sn: string): AlertOrder | null => {
    const row = selectOrder.get(sub, sn);
    return row ? toOrder(row) : null;
  };
  const orderChange = (changed: boolean, sub: number, sn: string): ClaimOrderResult => {
    const order = orderOf(sub, sn);
    if (changed && order) return { ok: true, order };
    if (!order) return { ok: false, reason: 'not_found', order: null };
    return { ok: false, reason: order.state === 'alerted' ? 'taken' : 'done', order };
  };

  return {
    add(input: NewAlertSubscription) {
      const row: Omit<SubscriptionRow, 'id'> = {
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
      };
      return transaction(() => {
        const id = Number(insertSub.run(row).lastInsertRowid);
        audit.record({
          actorId: input.createdBy,
          action: 'alert.add',
          detail:
            `#${id}: owner ${input.ownerId} → ${input.channelId} within ${input.withinHours} h every ` +
            `${input.everyMinutes} min ${input.hoursFrom}-${input.hoursTo} ${input.timeZone} cap ${input.capPoints}`,
        });
        return toSubscription({ id, ...row });
      });
    },
    get: (id) => {
      const row = selectSub.get(id);
      return row ? toSubscription(row) : null;
    },
    list: () => selectSubs.all().map(toSubscription),
    remove: (id, actorId) =>
      transaction(() => {
        const removed = removeSub.run(nowMs(), actorId, id).changes === 1;
        if (removed) audit.record({ actorId, action: 'alert.remove', detail: `#${id}` });
        return removed;
      }),

    claimCheck: (input, lease) =>
      transaction((): AlertCheckClaim => {
        const row = selectCheckAt.get(input.subscriptionId, input.slotAt.getTime());
        const now = lease.now.getTime();
        if (!row) {
          giveUpOlder.run(now, input.subscriptionId, input.slotAt.getTime());
          const id = Number(
            insertCheck.run({
              subscription_id: input.subscriptionId,
              slot_at: input.slotAt.getTime(),
              local_date: input.localDate,
              owner: lease.owner,
              expires: now + lease.ms,
              now,
            }).lastInsertRowid,
          );
          return { claimed: true, check: mustCheck(id), how: 'new' };
        }
        const how = runs.claimExisting(row.id, lease);
        if (how === 'takeover' || how === 'retry') return { claimed: true, check: mustCheck(row.id), how };
        const orphaned = how === 'orphaned';
        if (orphaned) orphanOrders.run(row.id);
        return { claimed: false, check: orphaned ? mustCheck(row.id) : toCheck(row), orphaned };
      }),
    check: checkOf,
    checkAt: (sub, slotAt) => {
      const row = selectCheckAt.get(sub, slotAt.getTime());
      return row ? toCheck(row) : null;
    },
    lastPosted: (sub) => {
      const row = selectLastPosted.get(sub);
      return row ? toCheck(row) : null;
    },
    openChecks: () => selectOpen.all().map(toCheck),
    spentOn: (sub, localDate) => selectSpent.get(sub, localDate)?.points ?? 0,
    renew: runs.renew,
    release: runs.release,
    addCharge: runs.addCharge,
    recordPending: (checkId, lease, orders) =>
      transaction(() => {
        if (!runs.holdRunning(checkId, lease)) return null;
        const check = mustCheck(checkId);
        adoptPending.run(checkId, check.subscriptionId);
        orders.forEach((o, seq) => {
          insertOrder.run({
            subscription_id: check.subscriptionId,
            order_sn: o.orderSn,
            check_id: checkId,
            seq,
            goods_name: o.goodsName,
            goods_count: o.goodsCount,
            amount_fen: o.amountFen,
            last_ship_time: o.lastShipTime.getTime(),
          });
        });
        return selectPending.all(checkId).map(toOrder);
      }),
    markPosting: runs.markPosting,
    markPosted: (id, owner, ts, now) =>
      transaction(() => {
        if (!runs.markPosted(id, owner, ts, now)) return false;
        if (ts !== null) ordersPosted.run(ts, id);
        return true;
      }),
    markFailed: runs.markFailed,
    awaitApproval: runs.awaitApproval,
    claimApproved: (id, lease) => (runs.claimApproved(id, lease) ? checkOf(id) : null),

    orders: (sub, states, shipAfter) =>
      selectOrders
        .all(sub, shipAfter?.getTime() ?? Number.MIN_SAFE_INTEGER)
        .filter((r) => states.includes(r.state))
        .map(toOrder),
    order: orderOf,
    prune: (before) =>
      transaction(
        () => pruneOrders.run(before.getTime()).changes + pruneChecks.run(before.getTime()).changes,
      ),
    ordersOfMessage: (sub, ts) => selectOfMessage.all(sub, ts).map(toOrder),
    claimOrder: (sub, sn, user, now) => {
      const changed = claimOrder.run({ sub, sn, user, now: now.getTime() }).changes === 1;
      const result = orderChange(changed, sub, sn);
      // Claiming one's own order again is not a refusal.
      if (!result.ok && result.reason === 'taken' && result.order?.claimedBy === user)
        return { ok: true, order: result.order };
      return result;
    },
    handleOrder: (sub, sn, user, now) =>
      orderChange(handleOrder.run({ sub, sn, user, now: now.getTime() }).changes === 1, sub, sn),
    markShipped: (sub, sn, now) => shipOrder.run({ sub, sn, now: now.getTime() }).changes === 1,
    markReminded: (sub, sn, now) => remindOrder.run({ sub, sn, now: now.getTime() }).changes === 1,

    approvedOn: (sub, localDate) => selectDay.get(sub, localDate)?.approved_by ?? null,
    approveDay: (sub, localDate, user, now) =>
      transaction(() => {
        insertDay.run(sub, localDate);
        if (approveDay.run(user, now.getTime(), sub, localDate).changes === 1)
          audit.record({ actorId: user, action: 'alert.approve', detail: `#${sub} ${localDate}` });
      }),
    markAsked: (sub, localDate, now) =>
      transaction(() => {
        insertDay.run(sub, localDate);
        return askDay.run(now.getTime(), sub, localDate).changes === 1;
      }),
    noticeTs: (sub) => selectNotice.get(sub)?.notice_ts ?? null,
    setNoticeTs: (sub, ts) => {
      updateNotice.run(ts, sub);
    },
  };
}
