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
import { type AlertCheck, type DigestRun, POST_SETTLE_MS, type UnknownPost } from '../store/store.js';

export { POST_SETTLE_MS };

/** The longest wait between two history checks of a post Slack keeps leaving unclear (32 min). */
const MAX_CHECK_DOUBLINGS = 6;

/** Slack may stamp a message a little before our clock says we sent it. */
const CLOCK_SKEW_MS = 5 * 60_000;

/** A post's key, as it goes in `metadata` (https://docs.slack.dev/messaging/message-metadata). */
export interface PostKey {
  /** `metadata.event_type`. */
  eventType: 'platdesk_digest' | 'platdesk_digest_reply' | 'platdesk_digest_chart' | 'platdesk_ship_by_alert';
  /** `metadata.event_payload.key`: unique per run (or check) of this database. */
  key: string;
  /** The oldest instant a message with this key can have (history is read from here on). */
  since: Date;
}

export function digestPostKey(run: Pick<DigestRun, 'id' | 'createdAt'>): PostKey {
  return {
    eventType: 'platdesk_digest',
    // The creation time keeps a key unique across a database started afresh (ids begin again at 1).
    key: `digest-run-${run.id}-${run.createdAt.getTime()}`,
    since: new Date(run.createdAt.getTime() - CLOCK_SKEW_MS),
  };
}

/**
 * The key of a threaded digest's reply number `index` (0-based, in the order they are posted):
 * a retried run posts only the replies whose keys the thread does not hold yet.
 */
export function digestReplyKey(run: Pick<DigestRun, 'id' | 'createdAt'>, index: number): PostKey {
  const parent = digestPostKey(run);
  return { ...parent, eventType: 'platdesk_digest_reply', key: `${parent.key}-reply-${index}` };
}

/**
 * The key of a digest's chart reply (issue 26). The chart is posted only after the digest's post is
 * recorded, so it can never cause the digest to be posted again; its own key lets any later attempt
 * see in the digest's thread that the chart is already there.
 */
export function digestChartKey(run: Pick<DigestRun, 'id' | 'createdAt'>): PostKey {
  const digest = digestPostKey(run);
  return { ...digest, eventType: 'platdesk_digest_chart', key: `${digest.key}-chart` };
}

export function alertPostKey(check: Pick<AlertCheck, 'id' | 'createdAt'>): PostKey {
  return {
    eventType: 'platdesk_ship_by_alert',
    key: `alert-check-${check.id}-${check.createdAt.getTime()}`,
    since: new Date(check.createdAt.getTime() - CLOCK_SKEW_MS),
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

/** The channel's history could not be read (missing scope, not in the channel, Slack failing). */
export class HistoryUnreadableError extends Error {
  readonly code = 'history_unreadable';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'HistoryUnreadableError';
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
  | { kind: 'unverified'; error: unknown };

/**
 * Posts a keyed message once. `verify`: an earlier attempt may have posted it (its outcome was
 * unknown, or its holder stopped while posting), so the history is read first. `post` and `find`
 * throw PostOutcomeUnknownError and HistoryUnreadableError (`find` may post what the message it
 * found still lacks, so it may throw PostOutcomeUnknownError too); any other error is a post Slack
 * surely refused, and is the caller's to retry.
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
      return { kind: 'unverified', error };
    }
  }
  try {
    return { kind: 'posted', ts: await options.post() };
  } catch (error) {
    if (isPostOutcomeUnknown(error)) return { kind: 'unknown', error };
    throw error;
  }
}

/**
 * What a run records for an unclear or unverifiable outcome: why, and when its history is read
 * next. After the first unclear post that is POST_SETTLE_MS; a Slack that keeps failing the same
 * way is asked less and less often (doubling with each attempt, up to 32 min), never given up on:
 * each check either finds the message, posts it once more, or asks the admins.
 */
export function unknownPostOf(
  outcome: Extract<PostOnceOutcome, { kind: 'unknown' | 'unverified' }>,
  attempts: number,
  nowMs: number,
): UnknownPost {
  const wait = POST_SETTLE_MS * 2 ** Math.min(Math.max(attempts - 1, 0), MAX_CHECK_DOUBLINGS);
  return {
    error: `${outcome.kind === 'unknown' ? 'post outcome unknown' : 'history unreadable'}: ${String(outcome.error)}`,
    checkAt: outcome.kind === 'unknown' ? new Date(nowMs + wait) : null,
    now: new Date(nowMs),
  };
}
