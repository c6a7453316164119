/**
 * Digest subscriptions and their run records (issue 6). The run record is what makes a digest
 * exactly-once: one scheduled run per subscription per local date (a UNIQUE index), claimed
 * under a lease (owner instance + expiry) so a second instance cannot run it at the same time and
 * a crashed run can be taken over once its lease has expired. The lease and its transitions are
 * the leased runs of runs.ts, shared with alert checks.
 *
 * States of a run:
 *   running ──▶ posting ──▶ posted
 *      │  ▲        │
 *      │  └──┐     └─(lease expired: the post may or may not have reached Slack)──▶ unknown
 *      ├──▶ failed (attempts, next_attempt_at: retried until null)
 *      └──▶ awaiting_approval (over the cost cap) ──(an admin's Run anyway)──▶ running
 */
import type { Lease, LeasedRun } from './runs.js';

export interface DigestSubscription {
  id: number;
  /** paging-orders owner_id. */
  ownerId: string;
  /** What the admin typed (a shop alias or the owner id), for display. */
  shopLabel: string;
  channelId: string;
  /** 'HH:MM' in timeZone. */
  localTime: string;
  /** Canonical IANA zone name. */
  timeZone: string;
  createdBy: string;
  createdAt: Date;
  /** Every time of day it is posted, ascending ('HH:MM'); localTime is the first. */
  times: string[];
  /** Days of the week it is posted (0 Sunday … 6 Saturday, in timeZone); null: every day. */
  days: number[] | null;
  /** 'thread': a summary in the channel and the details as replies; 'single': one message. */
  layout: DigestLayout;
  /** Only orders with these remark flags (1 red … 5 purple); null: all. */
  flags: number[] | null;
  /** Only orders in these statuses (1 awaiting shipment, 2 shipped, 3 received); null: all. */
  statuses: number[] | null;
}

export type DigestLayout = 'thread' | 'single';

/** The options default to today's digest: once a day at localTime, every day, one message, no filter. */
export type NewDigestSubscription = Omit<
  DigestSubscription,
  'id' | 'createdAt' | 'times' | 'days' | 'layout' | 'flags' | 'statuses'
> &
  Partial<Pick<DigestSubscription, 'times' | 'days' | 'layout' | 'flags' | 'statuses'>>;

/** scheduled: the one run of a local date; manual: "Run now", as many as admins ask for. */
export type DigestRunKind = 'scheduled' | 'manual';

/** A leased run (runs.ts) of a digest. */
export interface DigestRun extends LeasedRun {
  kind: DigestRunKind;
  /** 'YYYY-MM-DD' in the subscription's zone. */
  localDate: string;
  /** The orders read: [windowStart, windowEnd). */
  windowStart: Date;
  windowEnd: Date;
  /** The failure notice posted in the channel (at most one per run). */
  noticeTs: string | null;
  /** The digest message (or, for "Run now", its progress message until the digest replaces it). */
  messageTs: string | null;
  /** digest/summarize.ts DigestSummary as JSON: kept from 'posting' on. */
  summaryJson: string | null;
  /** Slack user who ran it now or approved it; null for the scheduler. */
  requestedBy: string | null;
  updatedAt: Date;
}

export interface NewDigestRun {
  subscriptionId: number;
  localDate: string;
  windowStart: Date;
  windowEnd: Date;
  requestedBy: string | null;
}

export type RunClaim =
  /** The caller holds the run now. `how`: first execution, lease takeover, or a due retry. */
  | { claimed: true; run: DigestRun; how: 'new' | 'takeover' | 'retry' }
  /**
   * Someone else holds it, or it is finished, waiting for approval or for its retry. `orphaned`:
   * this claim found a post interrupted by a crash and marked it 'unknown' (exactly one claimer
   * sees this, so exactly one alert is sent).
   */
  | { claimed: false; run: DigestRun; orphaned: boolean };

export interface DigestStore {
  add(input: NewDigestSubscription): DigestSubscription;
  /** An active subscription. */
  get(id: number): DigestSubscription | null;
  /** Active subscriptions, oldest first. */
  list(): DigestSubscription[];
  /** Soft delete (run records keep pointing at it); audited. False when not found or already removed. */
  remove(id: number, actorId: string): boolean;

  /**
   * Claims the scheduled run of (subscription, local date) in one IMMEDIATE transaction: creates
   * it, takes over a 'running' one whose lease has expired, or takes a 'failed' one whose retry
   * is due. Of any number of instances claiming at once, exactly one gets `claimed: true`.
   */
  claimScheduled(input: NewDigestRun, lease: Lease): RunClaim;
  /** A "Run now" run, held by the caller. */
  createManual(input: NewDigestRun, lease: Lease): DigestRun;
  run(id: number): DigestRun | null;
  scheduledRun(subscriptionId: number, localDate: string): DigestRun | null;
  /** The newest run of any kind. */
  lastRun(subscriptionId: number): DigestRun | null;
  /** The newest posted scheduled run with local_date < beforeLocalDate (the comparison base). */
  previousPosted(subscriptionId: number, beforeLocalDate: string): DigestRun | null;

  /** Extends the caller's lease; false when the caller no longer holds the run. */
  renew(runId: number, lease: Lease): boolean;
  /** Gives the lease up at once (shutdown), so another instance may take the run over now. */
  release(runId: number, owner: string, now: Date): boolean;
  /** Adds calls and their charges; unconditional, since they happened whoever holds the run. */
  addCharge(runId: number, points: number, calls: number): void;
  /** running → posting, storing the summary, if the caller still holds it. */
  markPosting(runId: number, lease: Lease, summaryJson: string): boolean;
  /** posting → posted. */
  markPosted(runId: number, owner: string, messageTs: string, now: Date): boolean;
  /** running | posting → failed, releasing the lease. */
  markFailed(
    runId: number,
    owner: string,
    failure: { error: string; nextAttemptAt: Date | null; now: Date },
  ): boolean;
  /** running → awaiting_approval, releasing the lease. */
  awaitApproval(runId: number, owner: string, estimatePoints: number, now: Date): boolean;
  /** awaiting_approval → running under the caller's lease (single-use: a second click gets null). */
  claimApproved(runId: number, lease: Lease, approvedBy: string): DigestRun | null;
  setNoticeTs(runId: number, ts: string): void;
  setMessageTs(runId: number, ts: string): void;
}
