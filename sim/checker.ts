/**
 * The invariant checker: after a schedule, what the plat API saw (the recorder's calls), what the
 * app recorded (the ledger, the running totals, its runs) and what Slack holds (the posted
 * messages) are compared. A pure function of plain records (snapshot.ts collects them), so it is
 * tested on fabricated records with one known violation of each kind (test/sim/checker.test.ts):
 * a checker that cannot fail proves nothing. Jepsen's checkers work the same way: what clients
 * and the server saw, compared after the run, never trusted during it.
 *
 * What must hold (issue 33, "What must hold" 2):
 * - `rate`: at most 10 calls arrive at the plat API in any sliding second;
 * - every call that reached the service is in the ledger exactly once with its true charge:
 *   `charge-double` (one answer recorded twice), `charge-untrue` (recorded with another charge or
 *   code, or an answer read by a live process missing from the ledger), `charge-missing` (a call
 *   that reached the service with no row), `charge-phantom` (a row for a call that never
 *   reached it; a code -2 row says only that its call may not have been sent, so it stands for
 *   either, and is counted);
 * - `counters`: the running totals equal the ledger;
 * - `cap`: no cap passed (the workspace's, a user's, a channel's: README promises all three);
 * - `post-duplicate` / `post-lost`: every digest and alert posted once;
 * - `page-rebought`: no page of orders bought twice, except by another replica taking the run
 *   over from a holder that could not record the page (killed, paused, or cut off from the store
 *   while the page's answer was on its way), or when the first answer never reached the app at
 *   all (counted, reported). A holder buying its own page again, or two live holders each buying
 *   it (a split brain), is a violation;
 * - `run-stranded`: no digest run or alert check left running or posting after the drain.
 */
import { localDateOf } from '../src/zoned-time.js';

export interface CallRecord {
  seq: number;
  replica: number;
  operation: string | null;
  key: string;
  /** performance.now() of the simulator at arrival. */
  at: number;
  answered: boolean;
  code: number | null;
  points: number;
  requestId: string | null;
  delivered: boolean;
  deliveredAt: number | null;
}

export interface LedgerRecord {
  id: number;
  chargeId: string;
  /** ms since the epoch (the app's clock). */
  at: number;
  userId: string | null;
  channelId: string | null;
  operation: string;
  points: number;
  code: number;
  requestId: string | null;
  source: string;
}

export interface CounterRecord {
  scope: string;
  subject: string;
  period: 'daily' | 'monthly';
  periodKey: string;
  spent: number;
  reserved: number;
}

export interface CapRecord {
  scope: 'workspace' | 'user' | 'channel';
  subject: string;
  period: 'daily';
  points: number;
  /** What the app answered when the cap was set (a channel cap may have been refused). */
  note?: string;
}

export interface RunRecord {
  kind: 'digest' | 'alert';
  id: number;
  state: string;
  /** The key its post carries in Slack message metadata. */
  key: string;
  /** Slack ts of its message, when the store names one. */
  messageTs: string | null;
  /**
   * What a digest run posts: its subscription and the window of orders it reads. Two runs of one
   * subscription and window post the same digest (e.g. two "Run now" at once).
   */
  digestOf?: string;
}

export interface PostRecord {
  key: string;
  eventType: string;
  channel: string;
  ts: string;
}

export interface Observations {
  calls: CallRecord[];
  ledger: LedgerRecord[];
  counters: CounterRecord[];
  /** The zone days are counted in (the budgets setting). */
  budgetZone: string;
  caps: CapRecord[];
  runs: RunRecord[];
  posts: PostRecord[];
  /** kill -9 of a replica, in the calls' clock. */
  kills: { replica: number; at: number }[];
  /**
   * Spans (the calls' clock) in which a replica could not write to the store: paused, its store
   * connections cut, dead; `replica` null when no replica could (a locked table).
   */
  outages: { replica: number | null; from: number; to: number }[];
  /** Spans (the calls' clock) in which a replica was stopped (SIGSTOP), a subset of `outages`. */
  /** Spans in which the recorder's event loop stalled (its arrival times are late after them). */
  stalls: { from: number; to: number }[];
}

export type ViolationKind =
  | 'rate'
  | 'charge-double'
  | 'charge-untrue'
  | 'charge-missing'
  | 'charge-phantom'
  | 'counters'
  | 'cap'
  | 'post-duplicate'
  | 'post-lost'
  | 'page-rebought'
  | 'run-stranded';

export const VIOLATION_KINDS: readonly ViolationKind[] = [
  'rate',
  'charge-double',
  'charge-untrue',
  'charge-missing',
  'charge-phantom',
  'counters',
  'cap',
  'post-duplicate',
  'post-lost',
  'page-rebought',
  'run-stranded',
];

export interface Violation {
  kind: ViolationKind;
  detail: string;
}

/** What is allowed but counted: the limits the issue names, reported with every run. */
export interface Exemptions {
  /** Answers that reached a replica killed before it recorded them (their row, if any, is a placeholder). */
  answeredToKilled: number;
  /** Answers the service gave that never reached the app (cut, held back): their charge is unknowable. */
  unreadableAnswers: number;
  /** Pages bought again by a replica taking over from a holder that could not record them. */
  reboughtAfterHolderLost: number;
  /** Pages bought again after their first purchase's answer never reached the app. */
  reboughtAfterLostAnswer: number;
  /**
   * Sliding seconds over 10 only when counting calls timed just after a stall of the recorder
   * (arrival times compressed): not judged.
   */
  rateUnmeasured: number;
  /**
   * Ledger rows of code -2 ("may not have been sent": the process died between writing the call
   * ahead and marking it sent): true whether or not the call reached the service.
   */
  maybeNotSent: number;
}

/** The ledger's code for a call written ahead that may not have been sent (issue 33 finding 16). */
export const MAYBE_NOT_SENT = -2;

export interface CheckResult {
  violations: Violation[];
  exemptions: Exemptions;
  /** Largest number of calls in any sliding second. */
  maxInAnySecond: number;
  calls: number;
  ledgerRows: number;
}

export const RATE_LIMIT = 10;
/** How long after a stall of the recorder its arrival times are not trusted. */
const STALL_SHADOW_MS = 20;
const WINDOW_MS = 1000;

/** The largest count in any sliding window, and where that window starts. */
export function busiestWindow(
  times: readonly number[],
  windowMs = WINDOW_MS,
): { count: number; from: number } {
  const sorted = [...times].sort((a, b) => a - b);
  let best = { count: 0, from: sorted[0] ?? 0 };
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    // An arrival exactly windowMs after another is in a new window (src/sandbox/rate-window.ts).
    while ((sorted[end] ?? 0) - (sorted[start] ?? 0) >= windowMs) start++;
    const count = end - start + 1;
    if (count > best.count) best = { count, from: sorted[start] ?? 0 };
  }
  return best;
}

const describeCall = (c: CallRecord) =>
  `#${c.seq} ${c.operation ?? '?'} from replica ${c.replica} at ${Math.round(c.at)} ms (${
    c.answered
      ? `answered code ${c.code}, ${c.points} points, ${c.delivered ? 'delivered' : 'not delivered'}`
      : 'no answer'
  })`;

/** Whether `replica` was killed after `t` (it may have had the answer, and died before recording it). */
function killedAfter(kills: Observations['kills'], replica: number, t: number): boolean {
  return kills.some((k) => k.replica === replica && k.at >= t);
}

export function check(obs: Observations): CheckResult {
  const violations: Violation[] = [];
  const add = (kind: ViolationKind, detail: string) => violations.push({ kind, detail });
  const exemptions: Exemptions = {
    answeredToKilled: 0,
    unreadableAnswers: 0,
    reboughtAfterHolderLost: 0,
    reboughtAfterLostAnswer: 0,
    rateUnmeasured: 0,
    maybeNotSent: 0,
  };

  // ---- the rate ------------------------------------------------------------------------------
  const busiest = busiestWindow(obs.calls.map((c) => c.at));
  // A call timed within STALL_SHADOW_MS after a stall may have come any time during it.
  const timedLate = (t: number) => obs.stalls.some((s) => t >= s.from && t <= s.to + STALL_SHADOW_MS);
  const measured = busiestWindow(obs.calls.filter((c) => !timedLate(c.at)).map((c) => c.at));
  if (measured.count > RATE_LIMIT)
    add('rate', `${measured.count} calls arrived within one second from ${Math.round(measured.from)} ms`);
  else if (busiest.count > RATE_LIMIT) exemptions.rateUnmeasured += 1;

  // ---- every call in the ledger once, with its true charge ----------------------------------
  const rowsById = new Map<string, LedgerRecord[]>();
  for (const row of obs.ledger)
    if (row.requestId !== null) rowsById.set(row.requestId, [...(rowsById.get(row.requestId) ?? []), row]);
  const callIds = new Set(obs.calls.flatMap((c) => (c.requestId !== null ? [c.requestId] : [])));
  const matchedRows = new Set<LedgerRecord>();
  /** Calls that reached an operation and have no row of their own answer. */
  const unmatched: CallRecord[] = [];
  /** Answered calls whose answer is not in the ledger: their fate decides exemptions. */
  const lostAnswers = new Set<CallRecord>();
  for (const call of obs.calls) {
    if (call.operation === null) continue;
    const rows = call.requestId !== null ? (rowsById.get(call.requestId) ?? []) : [];
    for (const row of rows) matchedRows.add(row);
    if (rows.length > 1)
      add(
        'charge-double',
        `${describeCall(call)} is in the ledger ${rows.length} times (${rows.map((r) => r.chargeId).join(', ')})`,
      );
    const row = rows[0];
    if (row) {
      if (row.points !== call.points || row.code !== call.code)
        add(
          'charge-untrue',
          `${describeCall(call)} is recorded as code ${row.code}, ${row.points} points (charge id ${row.chargeId})`,
        );
      continue;
    }
    unmatched.push(call);
    if (call.answered) lostAnswers.add(call);
  }
  // Rows that name no answered call: placeholders (code -1: sent, no answer read) and strays.
  const loose = obs.ledger.filter((r) => !matchedRows.has(r));
  /** Per operation, calls without a row of their own beyond the rows without an answer. */
  const deficit = new Map<string, number>();
  for (const call of unmatched) {
    const op = call.operation ?? '';
    deficit.set(op, (deficit.get(op) ?? 0) + 1);
  }
  for (const row of loose)
    if (row.requestId === null || !callIds.has(row.requestId))
      deficit.set(row.operation, (deficit.get(row.operation) ?? 0) - 1);
  for (const call of lostAnswers) {
    if (!call.delivered) exemptions.unreadableAnswers += 1;
    else if (call.deliveredAt !== null && killedAfter(obs.kills, call.replica, call.deliveredAt))
      exemptions.answeredToKilled += 1;
    else {
      // With no row at all it is reported once, as missing, below; here only when a row without
      // an answer (a placeholder) stands where its real charge should be.
      const op = call.operation ?? '';
      const short = deficit.get(op) ?? 0;
      if (short > 0) deficit.set(op, short - 1);
      else
        add(
          'charge-untrue',
          `${describeCall(call)}: its answer reached a live process, and the ledger holds a row without an answer in its place`,
        );
    }
  }
  for (const row of loose)
    if (row.requestId !== null && !callIds.has(row.requestId))
      add(
        'charge-phantom',
        `ledger row ${row.chargeId} names request ${row.requestId}, which the service never answered`,
      );
  const operations = new Set([...unmatched.map((c) => c.operation ?? ''), ...loose.map((r) => r.operation)]);
  for (const op of operations) {
    const calls = unmatched.filter((c) => c.operation === op);
    const rows = loose.filter(
      (r) => r.operation === op && (r.requestId === null || !callIds.has(r.requestId)),
    );
    // Rows that say a call reached the service (code -1: sent, no answer read) may not outnumber
    // such calls; a "may not have been sent" row may stand for one or for none.
    const certain = rows.filter((r) => r.code !== MAYBE_NOT_SENT);
    exemptions.maybeNotSent += rows.length - certain.length;
    if (certain.length > calls.length)
      add(
        'charge-phantom',
        `${op}: ${certain.length} ledger rows saying a call was sent, without an answer (${certain.map((r) => `${r.chargeId} code ${r.code}`).join(', ')}), for ${calls.length} calls that reached the service without one`,
      );
    else if (rows.length < calls.length)
      add(
        'charge-missing',
        `${op}: ${calls.length - rows.length} of these calls have no ledger row: ${calls.map(describeCall).join('; ')}`,
      );
  }

  // ---- running totals = ledger ---------------------------------------------------------------
  const fromLedger = new Map<string, number>();
  const bump = (id: string, points: number) => fromLedger.set(id, (fromLedger.get(id) ?? 0) + points);
  for (const row of obs.ledger) {
    for (const period of ['daily', 'monthly'] as const) {
      bump(`workspace/*/${period}`, row.points);
      if (row.userId !== null) bump(`user/${row.userId}/${period}`, row.points);
      if (row.channelId !== null) bump(`channel/${row.channelId}/${period}`, row.points);
    }
  }
  const fromCounters = new Map<string, number>();
  for (const c of obs.counters) {
    if (c.scope === 'step') continue;
    const id = `${c.scope}/${c.subject}/${c.period}`;
    fromCounters.set(id, (fromCounters.get(id) ?? 0) + c.spent);
  }
  for (const id of new Set([...fromLedger.keys(), ...fromCounters.keys()])) {
    const ledger = fromLedger.get(id) ?? 0;
    const counted = fromCounters.get(id) ?? 0;
    if (ledger !== counted)
      add('counters', `${id}: the running totals say ${counted} points, the ledger ${ledger}`);
  }

  // ---- no cap passed -------------------------------------------------------------------------
  for (const cap of obs.caps) {
    const byDay = new Map<string, number>();
    for (const row of obs.ledger) {
      const applies =
        cap.scope === 'workspace' ||
        (cap.scope === 'user' && row.userId === cap.subject) ||
        (cap.scope === 'channel' && row.channelId === cap.subject);
      if (!applies) continue;
      const day = localDateOf(row.at, obs.budgetZone);
      byDay.set(day, (byDay.get(day) ?? 0) + row.points);
    }
    for (const [day, spent] of byDay)
      if (spent > cap.points)
        add(
          'cap',
          `${cap.scope} ${cap.subject} spent ${spent} points on ${day}, over its daily cap of ${cap.points}${cap.note ? ` (${cap.note})` : ''}`,
        );
  }

  // ---- every digest and alert posted once ----------------------------------------------------
  const postsByKey = new Map<string, PostRecord[]>();
  for (const post of obs.posts) postsByKey.set(post.key, [...(postsByKey.get(post.key) ?? []), post]);
  for (const [key, posts] of postsByKey)
    if (posts.length > 1)
      add(
        'post-duplicate',
        `${key} (${posts[0]?.eventType}) is in Slack ${posts.length} times: ${posts.map((p) => `${p.channel} ${p.ts}`).join(', ')}`,
      );
  for (const run of obs.runs) {
    if (run.state !== 'posted') continue;
    // An alert check with nothing to alert posts nothing.
    if (run.kind === 'alert' && run.messageTs === null) continue;
    if (!postsByKey.has(run.key))
      add('post-lost', `${run.kind} ${run.id} is recorded as posted, but Slack holds no message ${run.key}`);
  }
  const postedDigests = new Map<string, RunRecord[]>();
  for (const run of obs.runs)
    if (run.kind === 'digest' && run.state === 'posted' && run.digestOf !== undefined)
      postedDigests.set(run.digestOf, [...(postedDigests.get(run.digestOf) ?? []), run]);
  for (const [digest, runs] of postedDigests)
    if (runs.length > 1)
      add(
        'post-duplicate',
        `the digest of ${digest} (subscription:window) was posted by ${runs.length} runs: ${runs.map((r) => r.key).join(', ')}`,
      );
  for (const run of obs.runs)
    if (run.state === 'running' || run.state === 'posting')
      add('run-stranded', `${run.kind} ${run.id} is still ${run.state} after the drain`);

  // ---- no page bought twice ------------------------------------------------------------------
  const bought = obs.calls.filter((c) => c.operation === 'paging-orders' && c.answered && c.code === 0);
  const byKey = new Map<string, CallRecord[]>();
  for (const c of bought) byKey.set(c.key, [...(byKey.get(c.key) ?? []), c]);
  /** The replica was killed (and so started again as a new process) between `from` and `to`. */
  const killedBetween = (replica: number, from: number, to: number) =>
    obs.kills.some((k) => k.replica === replica && k.at >= from && k.at <= to);
  /** The replica could not record what it bought between `from` and `to`. */
  const couldNotRecord = (replica: number, from: number, to: number) =>
    killedBetween(replica, from, to) ||
    obs.outages.some((o) => (o.replica === null || o.replica === replica) && o.from <= to && o.to >= from);
  for (const purchases of byKey.values()) {
    const sorted = [...purchases].sort((a, b) => a.at - b.at);
    for (let i = 1; i < sorted.length; i++) {
      const earlier = sorted.slice(0, i);
      const again = sorted[i] as CallRecord;
      if (earlier.some((c) => !c.delivered)) exemptions.reboughtAfterLostAnswer += 1;
      else if (
        earlier.every(
          (c) =>
            couldNotRecord(c.replica, c.deliveredAt ?? c.at, again.at) &&
            // Another process: another replica, or this one started again after a kill.
            (c.replica !== again.replica || killedBetween(c.replica, c.deliveredAt ?? c.at, again.at)),
        )
      )
        exemptions.reboughtAfterHolderLost += 1;
      else add('page-rebought', `${again.key} bought again: ${sorted.map(describeCall).join('; ')}`);
    }
  }

  return {
    violations,
    exemptions,
    maxInAnySecond: busiest.count,
    calls: obs.calls.length,
    ledgerRows: obs.ledger.length,
  };
}
