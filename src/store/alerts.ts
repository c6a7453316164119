/**
 * Ship-by alerts (issue 15): subscriptions, their checks and the orders they alerted.
 *
 * Exactly once rests on two UNIQUE keys:
 * - a check is one row per (subscription, slot): of any number of instances claiming a slot, one
 *   holds it (under a lease: the leased runs of runs.ts, shared with digests; a crashed holder's check is taken over
 *   once the lease has expired);
 * - an alerted order is one row per (subscription, order number): an order is recorded 'pending'
 *   by the check that found it before anything is posted, and becomes 'alerted' with the message
 *   that carries it. A check taken over after a crash posts the pending rows (nothing is skipped);
 *   a later check never lists an order that has a row (nothing is repeated).
 *
 * A reminder is sent once: `reminded_at` is set by one conditional UPDATE before it is sent.
 * The SQL is plain (no engine-specific upserts beyond ON CONFLICT DO NOTHING) so it ports.
 */
import type { Lease, LeasedRun } from './runs.js';

export interface AlertSubscription {
  id: number;
  /** paging-orders owner_id. */
  ownerId: string;
  /** What the admin typed (alias or owner id), for display. */
  shopLabel: string;
  channelId: string;
  /** Orders whose latest ship time falls within this many hours are alerted. */
  withinHours: number;
  everyMinutes: number;
  /** Working hours 'HH:MM'–'HH:MM' in timeZone: checks run only then. */
  hoursFrom: string;
  hoursTo: string;
  timeZone: string;
  /** Points this alert may spend a local day without an admin's approval. */
  capPoints: number;
  createdBy: string;
  createdAt: Date;
}

export type NewAlertSubscription = Omit<AlertSubscription, 'id' | 'createdAt'>;

/** A leased run (runs.ts) of an alert: one check of one slot. */
export interface AlertCheck extends LeasedRun {
  /** The slot's instant (the check's due time). */
  slotAt: Date;
  /** 'YYYY-MM-DD' of the slot in the subscription's zone (the day of the cost cap). */
  localDate: string;
  /** The alert message this check posted (null when it found nothing new). */
  messageTs: string | null;
}

export type AlertOrderState = 'pending' | 'alerted' | 'handled' | 'shipped' | 'unknown';

/** What an alert shows of an order: never receiver data (DESIGN rule 6). */
export interface AlertOrderFacts {
  orderSn: string;
  goodsName: string;
  goodsCount: number;
  amountFen: number;
  lastShipTime: Date;
}

export interface AlertOrder extends AlertOrderFacts {
  subscriptionId: number;
  checkId: number;
  state: AlertOrderState;
  messageTs: string | null;
  claimedBy: string | null;
  claimedAt: Date | null;
  /** Who pressed Handled, when it is handled. */
  doneBy: string | null;
  doneAt: Date | null;
  remindedAt: Date | null;
}

export type AlertCheckClaim =
  | { claimed: true; check: AlertCheck; how: 'new' | 'takeover' | 'retry' }
  | { claimed: false; check: AlertCheck; orphaned: boolean };

export type ClaimOrderResult =
  | { ok: true; order: AlertOrder }
  /** Someone else has it (or it is done): `order` names who. */
  | { ok: false; reason: 'taken' | 'done' | 'not_found'; order: AlertOrder | null };

export interface AlertStore {
  add(input: NewAlertSubscription): AlertSubscription;
  get(id: number): AlertSubscription | null;
  list(): AlertSubscription[];
  remove(id: number, actorId: string): boolean;

  /**
   * Claims the check of (subscription, slot): creates it, takes over a 'running' one whose lease
   * expired, or takes a 'failed' one whose retry is due. A 'posting' one whose lease expired is
   * marked 'unknown' (orphaned: exactly one claimer sees it). Creating a check gives up the
   * retries of the subscription's older failed checks (the new check reads everything anew).
   */
  claimCheck(
    input: { subscriptionId: number; slotAt: Date; localDate: string },
    lease: Lease,
  ): AlertCheckClaim;
  check(id: number): AlertCheck | null;
  checkAt(subscriptionId: number, slotAt: Date): AlertCheck | null;
  /** The newest check that fetched (posted), for the next estimate. */
  lastPosted(subscriptionId: number): AlertCheck | null;
  /** Checks that wait for a retry or a lease expiry (for the scheduler's timer). */
  openChecks(): AlertCheck[];
  /** Points charged by the subscription's checks of a local date. */
  spentOn(subscriptionId: number, localDate: string): number;
  renew(checkId: number, lease: Lease): boolean;
  release(checkId: number, owner: string, now: Date): boolean;
  addCharge(checkId: number, points: number, calls: number): void;
  /**
   * Records orders found by a check as 'pending' (an order that already has a row is left
   * alone) and adopts the subscription's pending rows left by an earlier attempt; returns every
   * pending row, most urgent first. Only the holder's call counts: false lease → null.
   */
  recordPending(checkId: number, lease: Lease, orders: readonly AlertOrderFacts[]): AlertOrder[] | null;
  /** running → posting under the lease. */
  markPosting(checkId: number, lease: Lease): boolean;
  /** posting → posted; the pending rows become 'alerted' with the message (null: nothing was new). */
  markPosted(checkId: number, owner: string, messageTs: string | null, now: Date): boolean;
  markFailed(
    checkId: number,
    owner: string,
    failure: { error: string; nextAttemptAt: Date | null; now: Date },
  ): boolean;
  awaitApproval(checkId: number, owner: string, estimatePoints: number, now: Date): boolean;
  /** awaiting_approval → running for the caller (single-use). */
  claimApproved(checkId: number, lease: Lease): AlertCheck | null;

  /**
   * Orders of the subscription in these states, most urgent first; with `shipAfter`, only those
   * whose latest ship time is at or after it (a check needs no others).
   */
  orders(subscriptionId: number, states: readonly AlertOrderState[], shipAfter?: Date): AlertOrder[];
  /**
   * Housekeeping: deletes orders whose latest ship time is before `before`, and checks created
   * before it that no order points at. Returns the rows deleted.
   */
  prune(before: Date): number;
  order(subscriptionId: number, orderSn: string): AlertOrder | null;
  /** The orders one alert message carries, in the order they were listed. */
  ordersOfMessage(subscriptionId: number, messageTs: string): AlertOrder[];
  /** Claim: only an alerted, unclaimed order (or the claimer's own again). */
  claimOrder(subscriptionId: number, orderSn: string, userId: string, now: Date): ClaimOrderResult;
  /** Handled: alerted → handled. */
  handleOrder(subscriptionId: number, orderSn: string, userId: string, now: Date): ClaimOrderResult;
  /** alerted → shipped, once; false when it was not alerted. */
  markShipped(subscriptionId: number, orderSn: string, now: Date): boolean;
  /** Sets reminded_at once; true for the one caller that set it. */
  markReminded(subscriptionId: number, orderSn: string, now: Date): boolean;

  /** The day's cap approval: who approved the subscription's spending past its cap that local day. */
  approvedOn(subscriptionId: number, localDate: string): string | null;
  approveDay(subscriptionId: number, localDate: string, userId: string, now: Date): void;
  /** Whether the admins were asked that day already; true for the first caller only. */
  markAsked(subscriptionId: number, localDate: string, now: Date): boolean;
  /** The failure notice in the channel (one per streak of failures), or null. */
  noticeTs(subscriptionId: number): string | null;
  setNoticeTs(subscriptionId: number, ts: string | null): void;
}
