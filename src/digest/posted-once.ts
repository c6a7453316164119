/**
 * Posted once (issue 19 point 3; DESIGN rule 8): a digest or ship-by alert message carries a key
 * in Slack message metadata, and its post is sent once, with no automatic retry. When Slack's
 * answer leaves it unclear whether the message was accepted (a timeout, a 5xx, a connection cut
 * after the request went out), the run is recorded 'unknown'; before anything is posted again
 * the channel's history is read for the key, and a message found there is recorded instead of a
 * second post. Only when the history cannot be read is an admin asked to look.
 *
 * This module is the rule; the Slack side (slack/scheduled-posts.ts) classifies Slack's answers
 * into these errors and reads the history.
 */
import type { CallFence } from '../plat/client.js';
import { type AlertCheck, type DigestRun, POST_SETTLE_MS, type UnknownPost } from '../store/store.js';

export { POST_SETTLE_MS };

/** The longest wait between two history checks of a post Slack keeps leaving unclear (32 min). */
const MAX_CHECK_DOUBLINGS = 6;

/**
 * Slack stamps a message with its own clock, which may differ from ours: the window read around
 * a post attempt reaches this far on either side. Both clocks are NTP-synchronised and a replica
 * off by more than the lease skew budget takes no paid work; five minutes (as before issue 33)
 * keeps a badly set clock from reading a post as absent, at the cost of ten minutes of messages.
 */
const SLACK_CLOCK_MARGIN_MS = 5 * 60_000;

/**
 * What a holder's keyed post is fenced by (issue 33 finding 5): `check()` right before the post
 * is sent (a holder paused past its lease stops there), and `signal` on the Slack request (a post
 * still in flight when the lease is lost is abandoned: its outcome is then unknown). The run's
 * fence (run-fence.ts) is one.
 */
export type PostFence = CallFence;

/** A post's key, as it goes in `metadata` (https://docs.slack.dev/messaging/message-metadata). */
export interface PostKey {
  /** `metadata.event_type`. */
  eventType: 'platdesk_digest' | 'platdesk_digest_reply' | 'platdesk_digest_chart' | 'platdesk_ship_by_alert';
  /** `metadata.event_payload.key`: unique per run (or check) of this database. */
  key: string;
  /** The oldest instant a message with this key can have (history is read from here on). */
  since: Date;
  /** The newest instant it can have (the history is read up to here); absent: up to now. */
  until?: Date;
}

/**
 * The history window a run's keyed post can be in (issue 33 finding 10): around its last post
 * attempt, from a clock margin before it to the settle delay and a margin after it (Slack has the
 * message by then, or never will). An attempt before the last one was looked for already, before
 * the last one was sent. A run with no attempt stamped (left by an older build): from its creation.
 */
function postWindow(run: Pick<DigestRun, 'createdAt' | 'postAttemptAt'>): Pick<PostKey, 'since' | 'until'> {
  const attempt = run.postAttemptAt?.getTime();
  if (attempt === undefined) return { since: new Date(run.createdAt.getTime() - SLACK_CLOCK_MARGIN_MS) };
  return {
    since: new Date(attempt - SLACK_CLOCK_MARGIN_MS),
    until: new Date(attempt + POST_SETTLE_MS + SLACK_CLOCK_MARGIN_MS),
  };
}

type KeyedRun = Pick<DigestRun, 'id' | 'createdAt'> & Partial<Pick<DigestRun, 'postAttemptAt'>>;

export function digestPostKey(run: KeyedRun): PostKey {
  return {
    eventType: 'platdesk_digest',
    // The creation time keeps a key unique across a database started afresh (ids begin again at 1).
    key: `digest-run-${run.id}-${run.createdAt.getTime()}`,
    ...postWindow({ createdAt: run.createdAt, postAttemptAt: run.postAttemptAt ?? null }),
  };
}

/**
 * The key of a threaded digest's reply number `index` (0-based, in the order they are posted):
 * a retried run posts only the replies whose keys the thread does not hold yet.
 */
export function digestReplyKey(run: KeyedRun, index: number): PostKey {
  const parent = digestPostKey(run);
  return { ...parent, eventType: 'platdesk_digest_reply', key: `${parent.key}-reply-${index}` };
}

/**
 * The key of a digest's chart reply (issue 26). The chart is posted only after the digest's post is
 * recorded, so it can never cause the digest to be posted again; its own key lets any later attempt
 * see in the digest's thread that the chart is already there.
 */
export function digestChartKey(run: KeyedRun): PostKey {
  const digest = digestPostKey(run);
  return { ...digest, eventType: 'platdesk_digest_chart', key: `${digest.key}-chart` };
}

export function alertPostKey(
  check: Pick<AlertCheck, 'id' | 'createdAt'> & Partial<Pick<AlertCheck, 'postAttemptAt'>>,
): PostKey {
  return {
    eventType: 'platdesk_ship_by_alert',
    key: `alert-check-${check.id}-${check.createdAt.getTime()}`,
    ...postWindow({ createdAt: check.createdAt, postAttemptAt: check.postAttemptAt ?? null }),
  };
}

/** Slack's answer does not say whether the message was accepted: check the history, never re-post blindly. */
export class PostOutcomeUnknownError extends Error {
  readonly code = 'post_outcome_unknown';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PostOutcomeUnknownError';
  }
}

/**
 * Why a history cannot tell: Slack refuses to show it (missing scope, not in the channel, Slack
 * failing), or the window around the post holds more messages than a check may read under Slack's
 * rate limit (issue 33 finding 10: 15 messages a request for apps not Marketplace-approved).
 */
export type HistoryUnreadableReason = 'refused' | 'too_busy';

/** The channel's history could not be read whole: nothing is posted again, the admins are told. */
export class HistoryUnreadableError extends Error {
  readonly code = 'history_unreadable';
  readonly reason: HistoryUnreadableReason;
  constructor(message: string, options?: { cause?: unknown; reason?: HistoryUnreadableReason }) {
    super(message, options);
    this.name = 'HistoryUnreadableError';
    this.reason = options?.reason ?? 'refused';
  }
}

/**
 * The history may not be read now (Slack's rate limit, shared by every replica: issue 33 finding
 * 10): the check goes on at `retryAfterMs` from `progress` (where it stopped; the Slack side's
 * words), holding no lease meanwhile. Not a failure, and nothing is posted.
 */
export class HistoryDeferredError extends Error {
  readonly code = 'history_deferred';
  constructor(
    readonly retryAfterMs: number,
    readonly progress: string | null,
    options?: { cause?: unknown },
  ) {
    super(`the history may be read again in ${Math.ceil(retryAfterMs / 1000)} s`, options);
    this.name = 'HistoryDeferredError';
  }
}

/**
 * Slack surely refused the holder's own post (`ok: false` with a definite error, a rate limit, no
 * connection): nothing of it is in the channel. The only end of a posting run that may fail it
 * (store.ts DigestStore.markRefused); every other one goes to the history check.
 */
export class PostRefusedError extends Error {
  readonly code = 'post_refused';
  constructor(options: { cause: unknown }) {
    super(`Slack refused the post: ${String(options.cause)}`, options);
    this.name = 'PostRefusedError';
  }
}

export const isPostOutcomeUnknown = (error: unknown): error is PostOutcomeUnknownError =>
  error instanceof PostOutcomeUnknownError;

export type PostOnceOutcome =
  /** Posted now, or found in the history (an earlier attempt's post reached Slack). */
  | { kind: 'posted' | 'found'; ts: string }
  /** Slack's answer was unclear: record 'unknown' and check the history after POST_SETTLE_MS. */
  | { kind: 'unknown'; error: unknown }
  /** An earlier post may have reached Slack and the history cannot tell: nothing is posted. */
  | { kind: 'unverified'; error: unknown }
  /** The history may not be read yet (rate limit): checked again later, from where it stopped. */
  | { kind: 'deferred'; error: HistoryDeferredError };

/**
 * Posts a keyed message once. `verify`: an earlier attempt may have posted it (its outcome was
 * unknown, or its holder stopped while posting), so the history is read first. `find` throws
 * HistoryUnreadableError and HistoryDeferredError (and, as it may post what the message it found
 * still lacks, PostOutcomeUnknownError); `post` throws PostOutcomeUnknownError for an unclear
 * answer and PostRefusedError for Slack's sure refusal. Any other error (the store, a lost
 * lease) is thrown: the caller sends such a run to its history check, never to a plain retry.
 */
export async function postOnce(options: {
  verify: boolean;
  find: () => Promise<string | null>;
  post: () => Promise<string>;
}): Promise<PostOnceOutcome> {
  if (options.verify) {
    try {
      const found = await options.find();
      if (found !== null) return { kind: 'found', ts: found };
    } catch (error) {
      // Found, but completing it (a threaded digest's missing reply) met an unclear answer again.
      if (isPostOutcomeUnknown(error)) return { kind: 'unknown', error };
      if (error instanceof HistoryDeferredError) return { kind: 'deferred', error };
      if (error instanceof HistoryUnreadableError) return { kind: 'unverified', error };
      throw error;
    }
  }
  try {
    return { kind: 'posted', ts: await options.post() };
  } catch (error) {
    if (isPostOutcomeUnknown(error)) return { kind: 'unknown', error };
    if (error instanceof HistoryDeferredError) return { kind: 'deferred', error };
    throw error;
  }
}

/**
 * What a run records for an unclear, unverifiable or deferred outcome: why, and when its history
 * is read next. After the first unclear post that is POST_SETTLE_MS; a Slack that keeps failing the
 * same way is asked less and less often (doubling with each attempt, up to 32 min), never given up
 * on: each check either finds the message, posts it once more, or asks the admins. A check the
 * rate limit put off goes on when Slack allows, from where it stopped.
 */
export function unknownPostOf(
  outcome: Extract<PostOnceOutcome, { kind: 'unknown' | 'unverified' | 'deferred' }>,
  attempts: number,
  nowMs: number,
): UnknownPost {
  if (outcome.kind === 'deferred')
    return {
      error: `history check put off by Slack's rate limit: ${outcome.error.message}`,
      checkAt: new Date(nowMs + Math.max(outcome.error.retryAfterMs, 1000)),
      now: new Date(nowMs),
      checkProgress: outcome.error.progress,
    };
  const wait = POST_SETTLE_MS * 2 ** Math.min(Math.max(attempts - 1, 0), MAX_CHECK_DOUBLINGS);
  return {
    error: `${outcome.kind === 'unknown' ? 'post outcome unknown' : 'history unreadable'}: ${String(outcome.error)}`,
    checkAt: outcome.kind === 'unknown' ? new Date(nowMs + wait) : null,
    now: new Date(nowMs),
  };
}

/** Why the history of an unverified post cannot tell (for the admins' message). */
export function unreadableReason(error: unknown): HistoryUnreadableReason {
  return error instanceof HistoryUnreadableError ? error.reason : 'refused';
}
