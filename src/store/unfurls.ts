/**
 * What item-link unfurls and message shortcuts keep between Slack requests (issue 5):
 *
 * - Events API ids already handled, so a Slack retry (`x-slack-retry-num`) is never processed
 *   twice, even across a restart (Bolt does not de-duplicate, spec/notes.md "Slack").
 * - Unfurl records: which item was looked up in which channel and when, so the same link
 *   unfurled again within the window is answered from the earlier result.
 * - The per-channel daily count of automatic lookups (the admins' cap).
 * - Shortcut batches: the lookups a shortcut's modal offered, claimed once by its Confirm.
 */

export type UnfurlState = 'offered' | 'running' | 'done' | 'failed';

export interface UnfurlRecord {
  id: number;
  channelId: string;
  itemId: string;
  /** Who posted the link (automatic lookups) or clicked Look up (offered ones). */
  userId: string;
  createdAt: Date;
  /**
   * offered: a Look up click was offered a confirmation (`pendingId`: its pending lookup, whose
   * result is the earlier result once done); running → done | failed: an automatic lookup.
   */
  state: UnfurlState;
  auto: boolean;
  pendingId: string | null;
  /** The item outcome (lookups/types.ts LookupOutcome of kind 'item') as JSON, once done. */
  outcomeJson: string | null;
}

export type BeginAutoResult =
  /** This caller runs the automatic lookup; `used` counts it. */
  | { started: true; record: UnfurlRecord; used: number }
  /** An automatic lookup of this item in this channel is running, done or failed within the window. */
  | { started: false; reason: 'busy'; record: UnfurlRecord }
  /** The channel's cap is used up for the day: nothing recorded, nothing taken. */
  | { started: false; reason: 'capped'; used: number };

export interface UnfurlStore {
  /**
   * Records an Events API event id and answers whether it was new (false: a retry or a
   * duplicate delivery). Ids older than `keepMs` are forgotten on the way.
   */
  firstSeen(eventId: string, keepMs: number): boolean;
  /** Records of (channel, item) created at or after `since`, newest first. */
  recent(channelId: string, itemId: string, since: Date): UnfurlRecord[];
  /**
   * In one IMMEDIATE transaction: unless an automatic lookup of (channel, item) is running, done
   * or failed since `since`, and unless `cap` automatic lookups of the channel were already
   * counted on `day`, takes one of the day's lookups and records a running one.
   */
  beginAuto(input: {
    channelId: string;
    itemId: string;
    userId: string;
    since: Date;
    day: string;
    cap: number;
  }): BeginAutoResult;
  /**
   * An automatic lookup that did not call after all (refused, or answered from the cache): its
   * record is removed when `keep` is false, and the day's count is given back.
   */
  abandonAuto(id: number, day: string, keep?: { outcomeJson: string }): void;
  /** running → done | failed. */
  finishAuto(
    id: number,
    state: 'done' | 'failed',
    outcomeJson: string | null,
    pendingId: string | null,
  ): void;
  /** A Look up click that was offered a lookup (its pending id). */
  recordOffered(input: {
    channelId: string;
    itemId: string;
    userId: string;
    pendingId: string;
  }): UnfurlRecord;
  /** Automatic lookups counted for a channel on a day. */
  autoUsed(channelId: string, day: string): number;
  /** Housekeeping: unfurl records, day counts and expired shortcut batches older than `olderThan`. */
  prune(olderThan: Date): number;
  /** Housekeeping: forgets event ids handled before `olderThan`; returns how many. */
  forgetEvents(olderThan: Date): number;
}

export type BatchState = 'open' | 'used';

/** The lookups a shortcut's modal offers; claimed once by the modal's Confirm. */
export interface ShortcutBatch {
  /** crypto.randomUUID(). */
  id: string;
  userId: string;
  /** Which shortcut: items | waybills | shops | any (the global shortcut). */
  kind: string;
  /** Where the message was (null for the global shortcut). */
  channelId: string | null;
  /** The thread to answer in (the message's thread, or the message itself). */
  threadTs: string | null;
  /** What was found (lookups/message-refs.ts), as JSON. */
  payloadJson: string;
  createdAt: Date;
  expiresAt: Date;
  state: BatchState;
}

export type BatchClaim =
  | { ok: true; batch: ShortcutBatch }
  | {
      ok: false;
      reason: 'not_found' | 'not_yours' | 'already_used' | 'expired';
      batch: ShortcutBatch | null;
    };

export interface ShortcutBatches {
  create(input: {
    userId: string;
    kind: string;
    channelId: string | null;
    threadTs: string | null;
    payloadJson: string;
    ttlMs: number;
  }): ShortcutBatch;
  get(id: string): ShortcutBatch | null;
  /** open → used, for its user, before expiry: one conditional UPDATE, so exactly one claim wins. */
  claim(id: string, userId: string): BatchClaim;
}
