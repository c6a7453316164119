/**
 * The simulator's invariant checker (sim/checker.ts) on fabricated records: a clean run passes,
 * and each kind of violation, put in alone, is reported, and only it. A checker that cannot
 * fail would make every simulated run look green (issue 33: the checker must be able to fail).
 */
import { describe, expect, it } from 'vitest';
import {
  busiestWindow,
  type CallRecord,
  check,
  type LedgerRecord,
  type Observations,
  VIOLATION_KINDS,
} from '../../sim/checker.js';

/** 2026-11-28 12:00 in Asia/Shanghai: far from midnight in the budget zone. */
const NOON = Date.UTC(2026, 10, 28, 4, 0, 0);

interface Spec {
  op: string;
  at: number;
  points: number;
  code?: number;
  user?: string | null;
  channel?: string | null;
  replica?: number;
  key?: string;
  /** The service gave no answer (an HTML 500): the app records a code -1 row. */
  unanswered?: boolean;
}

/** A run where everything held: each call answered, delivered and recorded once; totals agree. */
function clean(specs: Spec[]): Observations {
  const calls: CallRecord[] = [];
  const ledger: LedgerRecord[] = [];
  specs.forEach((s, i) => {
    const seq = i + 1;
    const answered = !s.unanswered;
    calls.push({
      seq,
      replica: s.replica ?? 0,
      operation: s.op,
      key: s.key ?? `${s.op} #${seq}`,
      at: s.at,
      answered,
      code: answered ? (s.code ?? 0) : null,
      points: answered ? s.points : 0,
      requestId: answered ? `sim-${seq}` : null,
      delivered: true,
      deliveredAt: s.at + 5,
    });
    ledger.push({
      id: seq,
      chargeId: `charge-${seq}`,
      at: NOON + s.at,
      userId: s.user === undefined ? 'U1' : s.user,
      channelId: s.channel === undefined ? 'C1' : s.channel,
      operation: s.op,
      points: answered ? s.points : 0,
      code: answered ? (s.code ?? 0) : -1,
      requestId: answered ? `sim-${seq}` : null,
      source: 'lookup',
    });
  });
  return {
    calls,
    ledger,
    counters: countersOf(ledger),
    budgetZone: 'Asia/Shanghai',
    caps: [
      { scope: 'workspace', subject: '*', period: 'daily', points: 1000 },
      { scope: 'user', subject: 'U1', period: 'daily', points: 100 },
      { scope: 'channel', subject: 'C1', period: 'daily', points: 100 },
    ],
    runs: [{ kind: 'digest', id: 1, state: 'posted', key: 'digest-run-1-1000', messageTs: '1.000001' }],
    posts: [{ key: 'digest-run-1-1000', eventType: 'platdesk_digest', channel: 'CD', ts: '1.000001' }],
    kills: [],
    outages: [],
    stalls: [],
  };
}

/** The running totals a correct store keeps for these rows. */
function countersOf(ledger: readonly LedgerRecord[]): Observations['counters'] {
  const totals = new Map<string, number>();
  const add = (scope: string, subject: string) => {
    for (const [period, key] of [
      ['daily', '2026-11-28'],
      ['monthly', '2026-11'],
    ])
      totals.set(`${scope}|${subject}|${period}|${key}`, 0);
  };
  for (const r of ledger) {
    add('workspace', '*');
    if (r.userId) add('user', r.userId);
    if (r.channelId) add('channel', r.channelId);
  }
  for (const r of ledger)
    for (const id of totals.keys()) {
      const [scope, subject] = id.split('|');
      if (
        scope === 'workspace' ||
        (scope === 'user' && subject === r.userId) ||
        (scope === 'channel' && subject === r.channelId)
      )
        totals.set(id, (totals.get(id) ?? 0) + r.points);
    }
  return [...totals].map(([id, spent]) => {
    const [scope = '', subject = '', period = 'daily', periodKey = ''] = id.split('|');
    return { scope, subject, period: period as 'daily' | 'monthly', periodKey, spent, reserved: 0 };
  });
}

const BASE: Spec[] = [
  { op: 'get-shop-id', at: 100, points: 2 },
  { op: 'platdybw', at: 1500, points: 5, user: 'U2', channel: 'C2' },
  { op: 'paging-orders', at: 3000, points: 2, user: null, channel: 'CD', replica: 1, key: 'page 0' },
  { op: 'paging-orders', at: 3100, points: 2, user: null, channel: 'CD', replica: 1, key: 'page 1' },
  { op: 'platdzmd', at: 5000, points: 0, unanswered: true },
];

const kindsOf = (obs: Observations) => check(obs).violations.map((v) => v.kind);

describe('the simulator checker on fabricated records', () => {
  it('a run where everything held: no violation', () => {
    const result = check(clean(BASE));
    expect(result.violations).toEqual([]);
    expect(result.calls).toBe(5);
    expect(result.ledgerRows).toBe(5);
  });

  it('can report every kind it names (each test below puts one in)', () => {
    expect(VIOLATION_KINDS).toHaveLength(11);
  });

  it('rate: 11 calls inside one second are reported; 10, or 11 spread over exactly a second, are not', () => {
    const burst = (n: number, step: number) =>
      Array.from({ length: n }, (_, i): Spec => ({ op: 'get-shop-id', at: 10_000 + i * step, points: 2 }));
    expect(kindsOf(clean([...BASE, ...burst(11, 90)]))).toEqual(['rate']);
    expect(kindsOf(clean([...BASE, ...burst(10, 90)]))).toEqual([]);
    // The 11th starts exactly 1000 ms after the 1st: "10 per 1000 ms" held (src/sandbox/rate-window.ts).
    expect(kindsOf(clean([...BASE, ...burst(11, 100)]))).toEqual([]);
    expect(busiestWindow([0, 100, 999, 1000, 1999])).toEqual({ count: 3, from: 0 });
  });

  it('rate: calls timed just after a stall of the recorder are not judged (their times are compressed), and counted', () => {
    const late = Array.from(
      { length: 11 },
      (_, i): Spec => ({ op: 'get-shop-id', at: 10_000 + i, points: 2 }),
    );
    const obs = clean([...BASE, ...late]);
    obs.stalls = [{ from: 9_200, to: 10_005 }];
    const result = check(obs);
    expect(result.violations).toEqual([]);
    expect(result.exemptions.rateUnmeasured).toBe(1);
    // Enough calls outside the stall's shadow still make a violation.
    const many = clean([...BASE, ...late, ...late.map((s) => ({ ...s, at: s.at + 100 }))]);
    many.stalls = obs.stalls;
    expect(kindsOf(many)).toEqual(['rate']);
  });

  it('charge-double: one answer recorded twice', () => {
    const obs = clean(BASE);
    const first = obs.ledger[0] as LedgerRecord;
    obs.ledger.push({ ...first, id: 99, chargeId: 'charge-again' });
    obs.counters = countersOf(obs.ledger);
    expect(kindsOf(obs)).toEqual(['charge-double']);
  });

  it('charge-untrue: an answer recorded with another charge', () => {
    const obs = clean(BASE);
    (obs.ledger[1] as LedgerRecord).points = 3;
    obs.counters = countersOf(obs.ledger);
    expect(kindsOf(obs)).toEqual(['charge-untrue']);
  });

  it('charge-untrue: an answer a live process read, in the ledger only as a code -1 placeholder (finding 2); killed after it arrived: allowed and counted', () => {
    const obs = clean(BASE);
    const row = obs.ledger[2] as LedgerRecord;
    Object.assign(row, { requestId: null, code: -1, points: 0 });
    obs.counters = countersOf(obs.ledger);
    expect(kindsOf(obs)).toEqual(['charge-untrue']);

    const call = obs.calls[2] as CallRecord;
    obs.kills = [{ replica: call.replica, at: (call.deliveredAt ?? 0) + 50 }];
    const result = check(obs);
    expect(result.violations).toEqual([]);
    expect(result.exemptions.answeredToKilled).toBe(1);
  });

  it('an answer written to a replica stopped (SIGSTOP) until past its call deadline: it reads the answer when it goes on (the deadline waits a turn of the loop), so a code -1 row in its place is untrue', () => {
    const stopped = clean(BASE);
    const call = stopped.calls[2] as CallRecord;
    Object.assign(stopped.ledger[2] as LedgerRecord, { requestId: null, code: -1, points: 0 });
    stopped.counters = countersOf(stopped.ledger);
    // Stopped just before the answer came, for 24 s: past the 15 s deadline.
    stopped.outages = [{ replica: call.replica, from: call.at + 2, to: call.at + 24_000 }];
    expect(kindsOf(stopped)).toEqual(['charge-untrue']);
  });

  it('an answer that never reached the app (cut after the service charged): a code -1 row is what the app can know', () => {
    const obs = clean(BASE);
    const call = obs.calls[0] as CallRecord;
    Object.assign(call, { delivered: false, deliveredAt: null });
    Object.assign(obs.ledger[0] as LedgerRecord, { requestId: null, code: -1, points: 0 });
    obs.counters = countersOf(obs.ledger);
    const result = check(obs);
    expect(result.violations).toEqual([]);
    expect(result.exemptions.unreadableAnswers).toBe(1);
  });

  it('charge-missing: a call that reached the service has no row (finding 6)', () => {
    const obs = clean(BASE);
    obs.ledger = obs.ledger.filter((r) => r.operation !== 'platdzmd');
    obs.counters = countersOf(obs.ledger);
    expect(kindsOf(obs)).toEqual(['charge-missing']);
  });

  it('charge-missing, once: an answer read by a live process with no row at all', () => {
    const obs = clean(BASE);
    obs.ledger = obs.ledger.filter((r) => r.operation !== 'platdybw');
    obs.counters = countersOf(obs.ledger);
    expect(kindsOf(obs)).toEqual(['charge-missing']);
  });

  it('charge-phantom: a row for a call that never reached the service (finding 16)', () => {
    const obs = clean(BASE);
    obs.ledger.push({
      id: 50,
      chargeId: 'digest:1:1:7:0',
      at: NOON,
      userId: null,
      channelId: 'CD',
      operation: 'paging-orders',
      points: 0,
      code: -1,
      requestId: null,
      source: 'digest',
    });
    obs.counters = countersOf(obs.ledger);
    expect(kindsOf(obs)).toEqual(['charge-phantom']);
  });

  it('a code -2 row ("may not have been sent"), for a call that never left or for one the service answered unseen: allowed and counted; a -1 row for a call never sent still is a phantom', () => {
    const maybe: LedgerRecord = {
      id: 50,
      chargeId: 'digest:1:1:7:0',
      at: NOON,
      userId: null,
      channelId: 'CD',
      operation: 'paging-orders',
      points: 0,
      code: -2,
      requestId: null,
      source: 'digest',
    };
    // The process died after writing the call ahead, before sending it.
    const neverLeft = clean(BASE);
    neverLeft.ledger.push({ ...maybe });
    neverLeft.counters = countersOf(neverLeft.ledger);
    const neverLeftResult = check(neverLeft);
    expect(neverLeftResult.violations).toEqual([]);
    expect(neverLeftResult.exemptions.maybeNotSent).toBe(1);

    // It died as the request left: the service answered (charged), the answer reached no one.
    const leftUnseen = clean(BASE);
    const call = leftUnseen.calls[2] as CallRecord;
    Object.assign(call, { delivered: false, deliveredAt: null });
    Object.assign(leftUnseen.ledger[2] as LedgerRecord, { requestId: null, code: -2, points: 0 });
    leftUnseen.counters = countersOf(leftUnseen.ledger);
    const leftUnseenResult = check(leftUnseen);
    expect(leftUnseenResult.violations).toEqual([]);
    expect(leftUnseenResult.exemptions).toMatchObject({ maybeNotSent: 1, unreadableAnswers: 1 });

    // A -2 row in place of an answer a live process read is still untrue.
    const read = clean(BASE);
    Object.assign(read.ledger[2] as LedgerRecord, { requestId: null, code: -2, points: 0 });
    read.counters = countersOf(read.ledger);
    expect(kindsOf(read)).toEqual(['charge-untrue']);
  });

  it('counters: a running total that differs from the ledger', () => {
    const obs = clean(BASE);
    const user = obs.counters.find((c) => c.scope === 'user' && c.subject === 'U1' && c.period === 'daily');
    if (!user) throw new Error('no counter');
    user.spent += 2;
    expect(kindsOf(obs)).toEqual(['counters']);
  });

  it('cap: spend over a user cap, and over a channel cap the app refused to set (finding 15)', () => {
    const obs = clean(BASE);
    obs.caps.push({ scope: 'user', subject: 'U2', period: 'daily', points: 4 });
    obs.caps.push({ scope: 'channel', subject: 'CD', period: 'daily', points: 3, note: 'refused' });
    const violations = check(obs).violations;
    expect(violations.map((v) => v.kind)).toEqual(['cap', 'cap']);
    expect(violations[1]?.detail).toContain('refused');
  });

  it('post-duplicate and post-lost: a digest in Slack twice; a run recorded as posted with no message', () => {
    const twice = clean(BASE);
    twice.posts.push({
      key: 'digest-run-1-1000',
      eventType: 'platdesk_digest',
      channel: 'CD',
      ts: '2.000002',
    });
    expect(kindsOf(twice)).toEqual(['post-duplicate']);
    const lost = clean(BASE);
    lost.posts = [];
    expect(kindsOf(lost)).toEqual(['post-lost']);
    // Two runs of one subscription and window (two "Run now" at once): one digest, posted twice.
    const again = clean(BASE);
    again.runs = [
      {
        kind: 'digest',
        id: 1,
        state: 'posted',
        key: 'digest-run-1-1000',
        messageTs: '1.1',
        digestOf: '1:0-9',
      },
      {
        kind: 'digest',
        id: 2,
        state: 'posted',
        key: 'digest-run-2-1001',
        messageTs: '1.2',
        digestOf: '1:0-9',
      },
    ];
    again.posts.push({ key: 'digest-run-2-1001', eventType: 'platdesk_digest', channel: 'CD', ts: '1.2' });
    expect(kindsOf(again)).toEqual(['post-duplicate']);
    // An alert check that had nothing to alert posted nothing, and says so (no message ts).
    const quiet = clean(BASE);
    quiet.runs.push({ kind: 'alert', id: 3, state: 'posted', key: 'alert-check-3-5', messageTs: null });
    expect(kindsOf(quiet)).toEqual([]);
  });

  it('run-stranded: a run still running after the drain (finding 12)', () => {
    const obs = clean(BASE);
    obs.runs.push({ kind: 'digest', id: 2, state: 'running', key: 'digest-run-2-2000', messageTs: null });
    expect(kindsOf(obs)).toEqual(['run-stranded']);
  });

  it('page-rebought: a page bought again by its own holder, or by two live holders (a split brain)', () => {
    const again: Spec = {
      op: 'paging-orders',
      at: 4000,
      points: 2,
      user: null,
      channel: 'CD',
      replica: 1,
      key: 'page 0',
    };
    // The holder itself buys its page again (e.g. after a store write it took for failed).
    expect(kindsOf(clean([...BASE, again]))).toEqual(['page-rebought']);
    // Another replica buys it while the first holder was alive and connected.
    expect(kindsOf(clean([...BASE, { ...again, replica: 2 }]))).toEqual(['page-rebought']);
    // The same, though the first holder's store was cut, when it is the holder that buys again.
    const own = clean([...BASE, again]);
    own.outages = [{ replica: 1, from: 3000, to: 3900 }];
    expect(kindsOf(own)).toEqual(['page-rebought']);
  });

  it('page bought again by a replica taking over from a holder that could not record it (killed, paused, cut off), or after its answer was lost: allowed and counted', () => {
    const again: Spec = {
      op: 'paging-orders',
      at: 4000,
      points: 2,
      user: null,
      channel: 'CD',
      replica: 2,
      key: 'page 0',
    };

    const killed = clean([...BASE, again]);
    const first = killed.calls[2] as CallRecord;
    Object.assign(killed.ledger[2] as LedgerRecord, { requestId: null, code: -1, points: 0 });
    killed.counters = countersOf(killed.ledger);
    killed.kills = [{ replica: first.replica, at: (first.deliveredAt ?? 0) + 10 }];
    const result = check(killed);
    expect(result.violations).toEqual([]);
    expect(result.exemptions).toMatchObject({ answeredToKilled: 1, reboughtAfterHolderLost: 1 });

    // One process: the holder killed, then the same replica started again took its run over.
    const restarted = clean([...BASE, { ...again, replica: 1 }]);
    Object.assign(restarted.ledger[2] as LedgerRecord, { requestId: null, code: -1, points: 0 });
    restarted.counters = countersOf(restarted.ledger);
    restarted.kills = [{ replica: 1, at: 3500 }];
    const restartedResult = check(restarted);
    expect(restartedResult.violations).toEqual([]);
    expect(restartedResult.exemptions).toMatchObject({ answeredToKilled: 1, reboughtAfterHolderLost: 1 });

    // Cut off from the store while the page's answer came: its charge reached the ledger later.
    const cutOff = clean([...BASE, again]);
    cutOff.outages = [{ replica: 1, from: 2900, to: 3900 }];
    const cutOffResult = check(cutOff);
    expect(cutOffResult.violations).toEqual([]);
    expect(cutOffResult.exemptions.reboughtAfterHolderLost).toBe(1);

    const cut = clean([...BASE, again]);
    Object.assign(cut.calls[2] as CallRecord, { delivered: false, deliveredAt: null });
    Object.assign(cut.ledger[2] as LedgerRecord, { requestId: null, code: -1, points: 0 });
    cut.counters = countersOf(cut.ledger);
    const cutResult = check(cut);
    expect(cutResult.violations).toEqual([]);
    expect(cutResult.exemptions).toMatchObject({ unreadableAnswers: 1, reboughtAfterLostAnswer: 1 });
  });
});
