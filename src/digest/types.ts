/**
 * What the digest layer needs from the outside world, as interfaces: the Slack side implements
 * the publisher (slack/digest/publisher.ts), so digest/ imports only plat/ and store/ (DESIGN.md).
 */
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { PlatClient } from '../plat/client.js';
import type { Operation } from '../plat/operations.js';
import type { ChargeRecorder } from '../store/ledger.js';
import type { DigestRun, DigestSubscription, Store } from '../store/store.js';
import type { FetchPlan } from './fetch-orders.js';
import type { HistoryUnreadableReason, PostFence } from './posted-once.js';
import type { DigestSummary } from './summarize.js';

export interface DigestCost {
  points: number;
  calls: number;
}

/** A digest ready to post. */
export interface DigestPost {
  subscription: DigestSubscription;
  run: DigestRun;
  summary: DigestSummary;
  /** The day before's digest, when one was posted (the comparison). */
  previous: { localDate: string; summary: DigestSummary } | null;
  /** What this digest cost, every attempt included. */
  cost: DigestCost;
}

/** The short notice a channel gets instead of silence. */
export type DigestNotice =
  | {
      kind: 'failed';
      subscription: DigestSubscription;
      run: DigestRun;
      /** A PlatError (its code, title and remedy are shown) or anything else. */
      error: unknown;
      /** When it is tried again; null when it is not (given up for the day). */
      nextAttemptAt: Date | null;
    }
  /** A retry posted the digest: the notice says so instead of promising another retry. */
  | { kind: 'resolved'; subscription: DigestSubscription; run: DigestRun }
  /** "Run now" stopped at the cost cap: its progress message says it waits for an admin. */
  | { kind: 'awaiting_approval'; subscription: DigestSubscription; run: DigestRun; estimatePoints: number };

export type DigestAlert =
  | {
      kind: 'failed';
      subscription: DigestSubscription;
      run: DigestRun;
      error: unknown;
      nextAttemptAt: Date | null;
    }
  /**
   * Slack's answer to the digest's post was unclear (or platdesk stopped while posting) and the
   * channel's history, which would tell, cannot be read (`reason`: Slack refuses it, or the window
   * holds more than a check may read under Slack's rate limit): it is not posted again.
   */
  | { kind: 'unverified'; subscription: DigestSubscription; run: DigestRun; reason: HistoryUnreadableReason };

/**
 * The cost cap's estimate of a run (runner.ts): what its calls already cost and what remains.
 * `estimatePoints` (what is compared with the cap) is chargedPoints + leftPoints.
 */
export interface DigestEstimate {
  /** Points already charged by the run's calls, every attempt included. */
  chargedPoints: number;
  /** Pages already bought (not fetched again). */
  pagesDone: number;
  /** Pages still to buy (a lower bound while a window's first page is not in). */
  pagesLeft: number;
  /** pagesLeft × the price of a page. */
  leftPoints: number;
}

export interface DigestApprovalRequest {
  subscription: DigestSubscription;
  run: DigestRun;
  estimatePoints: number;
  capPoints: number;
  estimate: DigestEstimate;
}

/** How a keyed post of a held run goes out (posted-once.ts). */
export interface KeyedPostOptions {
  /** Checked right before each keyed post; its signal goes with the Slack request. */
  fence?: PostFence;
  /**
   * Where a history check cut short by Slack's rate limit goes on from (the run's
   * checkProgress); null or absent: from the start.
   */
  progress?: string | null;
}

export interface DigestPublisher {
  /**
   * Posts the digest in the subscription's channel with its key (posted-once.ts digestPostKey) in
   * the message metadata, or replaces message `replaceTs`; returns its ts. A new post is sent
   * once: an unclear answer throws PostOutcomeUnknownError, Slack's sure refusal
   * PostRefusedError, a thread that may not be read yet (its replies are keyed) HistoryDeferredError.
   */
  postDigest(post: DigestPost, replaceTs: string | null, options?: KeyedPostOptions): Promise<string>;
  /**
   * The ts of the digest's message if the channel's history holds its key (an earlier post
   * reached Slack), else null; HistoryUnreadableError when the history cannot be read,
   * HistoryDeferredError when it may not be read yet (Slack's rate limit).
   */
  findDigest(post: DigestPost, options?: KeyedPostOptions): Promise<string | null>;
  /**
   * Posts the digest's chart in its thread (issue 26), once the digest's post is recorded: never
   * before, so a chart can never cause a second digest. Posted once under its own key; never
   * throws (a chart not posted is logged, the digest stands).
   */
  postChart(post: DigestPost, messageTs: string): Promise<void>;
  /** "Run now": posts or updates the progress message (page k of n; null before the first page). */
  postProgress(
    subscription: DigestSubscription,
    run: DigestRun,
    plan: FetchPlan | null,
    replaceTs: string | null,
  ): Promise<string>;
  /** Posts the failure notice, or updates it (`replaceTs`): one notice per run. */
  postNotice(notice: DigestNotice, replaceTs: string | null): Promise<string>;
  alertAdmins(alert: DigestAlert): Promise<void>;
  /** Over the cost cap: asks the admins, with a Run anyway button carrying the run id. */
  askApproval(request: DigestApprovalRequest): Promise<void>;
}

/** Points per call: PLAT_PRICES first, else the last charge seen (wired in main.ts). */
export type PriceOf = (operation: Operation, edition: number | null) => Promise<number | null>;

/** The schedulers' clock: platdesk's one Clock type (src/clock.ts). */
export type DigestClock = Clock;

export interface DigestDeps {
  client: PlatClient;
  store: Store;
  /** Where charges go: written to the ledger, or kept until it can be written. */
  charges: ChargeRecorder;
  publisher: DigestPublisher;
  priceOf: PriceOf;
  logger?: Pick<Logger, 'info' | 'warn' | 'error'>;
}
