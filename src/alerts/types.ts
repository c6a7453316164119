/**
 * What the alert layer needs from outside, as interfaces: the Slack side implements the
 * publisher (slack/alerts/publisher.ts), so alerts/ imports only digest/, plat/ and store/.
 */
import type { Logger } from 'pino';
import type { HistoryUnreadableReason } from '../digest/posted-once.js';
import type { DigestClock, KeyedPostOptions, PriceOf } from '../digest/types.js';
import type { PlatClient } from '../plat/client.js';
import type { ChargeRecorder } from '../store/ledger.js';
import type { AlertCheck, AlertOrder, AlertSubscription, Store } from '../store/store.js';
import type { CheckCost } from './cost.js';

export interface AlertPublisher {
  /**
   * One compact message per check in the subscription's channel, keyed in its metadata
   * (digest/posted-once.ts alertPostKey) and sent once: an unclear answer throws
   * PostOutcomeUnknownError, Slack's sure refusal PostRefusedError. Returns its ts.
   */
  postAlert(
    sub: AlertSubscription,
    check: AlertCheck,
    orders: readonly AlertOrder[],
    at: number,
    deferred: number,
    options?: KeyedPostOptions,
  ): Promise<string>;
  /**
   * The ts of the check's message if the channel's history holds its key, else null
   * (HistoryUnreadableError, or HistoryDeferredError under Slack's rate limit).
   */
  findAlert(sub: AlertSubscription, check: AlertCheck, options?: KeyedPostOptions): Promise<string | null>;
  /**
   * Re-renders an alert message from its orders' current state (claimed, handled, shipped), still
   * saying what the check that posted it charged.
   */
  updateAlert(
    sub: AlertSubscription,
    messageTs: string,
    orders: readonly AlertOrder[],
    at: number,
    cost: CheckCost | null,
  ): Promise<void>;
  /** One hour before the deadline: a DM to the claimer, else the channel. */
  remind(sub: AlertSubscription, order: AlertOrder, at: number): Promise<void>;
  /** The failure notice (posted once per streak of failures, then updated); returns its ts. */
  postFailure(
    sub: AlertSubscription,
    failure: { error: unknown; nextAttemptAt: Date | null; resolved: boolean },
    replaceTs: string | null,
  ): Promise<string>;
  /** Over the day's cap: asks every admin, with a button carrying the check id. */
  askApproval(request: AlertApprovalRequest): Promise<void>;
  /** The post's outcome is unknown and the history cannot be read: not re-posted, the admins look. */
  alertUnverified(sub: AlertSubscription, check: AlertCheck, reason: HistoryUnreadableReason): Promise<void>;
}

export interface AlertApprovalRequest {
  subscription: AlertSubscription;
  check: AlertCheck;
  estimatePoints: number;
  spentPoints: number;
  capPoints: number;
}

export interface AlertDeps {
  client: PlatClient;
  store: Store;
  /** Where charges go: written to the ledger, or kept until it can be written. */
  charges: ChargeRecorder;
  publisher: AlertPublisher;
  priceOf: PriceOf;
  logger?: Pick<Logger, 'info' | 'warn' | 'error'>;
}

export type { DigestClock as AlertClock };
