/**
 * The in-process engine's slot model (src/plat/local-limiter.ts, header comment; the contract both
 * engines share is tested in limiter-contract.ts): `maxCalls` slots; a call
 * holds its slot from start until its task reports its answer (`progress.answered()`, the
 * response's headers) or else settles, and the slot is free again `windowMs + safetyMarginMs` (the
 * gap) after that. The rig's margin is 10 ms (the default is 1) so the gap stands out in figures. Bulk jobs start only while more than
 * `interactiveReserve` slots are free.
 *
 * The invariant checked on every schedule below (`maxCallsMeetingAnyWindow`): a request reaches the
 * server at some instant of its call's [start, settle] interval, nothing more is known, so the most
 * arrivals the server can see in one window is the most intervals that meet one window. The slot
 * rule bounds that by maxCalls for windows as long as the gap: two calls on one slot are a gap
 * apart (the later starts ≥ gap after the earlier settled), so such a window meets at most one call
 * per slot. For bulk calls alone the bound is maxCalls − interactiveReserve: every interval meeting
 * [t, t + gap) keeps its slot unavailable at t + gap − ε, and a bulk start always leaves
 * `interactiveReserve` slots available.
 *
 * Time is a fake clock; tasks settle through its timers and `…Async` advances let promise reactions
 * (a task settling, its slot being released) run at the time they happen.
 */
import { describe, expect, it, vi } from 'vitest';
import type { Clock } from '../../src/clock.js';
import { PlatAbortedError, PlatBusyError } from '../../src/plat/errors.js';
import type {
  CallProgress,
  LimiterOptions,
  Priority,
  QueueTicket,
  ScheduleOptions,
} from '../../src/plat/limiter.js';
import { restingAtStart } from '../../src/plat/limiter.js';
import { createLocalLimiter as createLimiter } from '../../src/plat/local-limiter.js';
import { createFakeClock, flushMicrotasks } from '../helpers/fake-clock.js';

interface Call {
  label: string;
  priority: Priority;
  start: number;
  /** NaN until the task settles. */
  settle: number;
}

/**
 * The most calls whose [start, settle] interval meets one half-open window [t, t + spanMs).
 * Counting only drops as t passes a settle, so the maximum is reached at t = some call's settle.
 */
function maxCallsMeetingAnyWindow(calls: readonly Call[], spanMs: number): number {
  if (calls.some((c) => Number.isNaN(c.settle))) throw new Error('every call must have settled');
  let max = 0;
  for (const { settle: t } of calls) {
    max = Math.max(max, calls.filter((c) => c.settle >= t && c.start < t + spanMs).length);
  }
  return max;
}

/** Deterministic pseudo-random numbers in [0, 1) (a small LCG). */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

interface RunOptions extends ScheduleOptions {
  /** How long the task takes on the fake clock; 0: settles at once; null: only via `finish`. */
  latencyMs?: number | null;
  /** Reject instead of resolving. */
  fail?: boolean;
}

/** A limiter on a fake clock, with tasks that record when they start and settle. */
function rig(options: LimiterOptions = {}) {
  const clock = createFakeClock();
  const limiter = createLimiter({ clock, safetyMarginMs: 10, ...options });
  const calls: Call[] = [];
  const held = new Map<string, () => void>();

  function run(
    label: string,
    { latencyMs = 0, fail = false, ...schedule }: RunOptions = {},
  ): Promise<string> {
    const priority = schedule.priority ?? 'interactive';
    return limiter.schedule(
      () =>
        new Promise<string>((resolve, reject) => {
          const call: Call = { label, priority, start: clock.now(), settle: Number.NaN };
          calls.push(call);
          const settle = () => {
            call.settle = clock.now();
            if (fail) reject(new Error(`${label} failed`));
            else resolve(label);
          };
          if (latencyMs === null) held.set(label, settle);
          else if (latencyMs === 0) settle();
          else clock.setTimeout(settle, latencyMs);
        }),
      schedule,
    );
  }

  return {
    clock,
    limiter,
    calls,
    run,
    /** Settles a task started with `latencyMs: null`. */
    finish(label: string): void {
      const settle = held.get(label);
      if (!settle) throw new Error(`${label} is not running`);
      held.delete(label);
      settle();
    },
    labels: () => calls.map((c) => c.label),
    starts: () => calls.map((c) => c.start),
    startOf: (label: string) => calls.find((c) => c.label === label)?.start,
  };
}

const labels = (prefix: string, count: number, from = 0) =>
  Array.from({ length: count }, (_, i) => `${prefix}${i + from}`);

describe('createLimiter: slots (spec §8)', () => {
  it('starts maxCalls at once; a slot is free again windowMs + margin after its call settled', async () => {
    const r = rig(); // defaults: 10 calls, 1000 ms; the rig's margin 10
    const results = labels('j', 12).map((label) => r.run(label));

    expect(r.calls).toHaveLength(10);
    expect(r.limiter.stats()).toMatchObject({
      started: 10,
      startedInWindow: 10,
      queued: { bulk: 0, interactive: 2 },
    });
    await r.clock.advanceAsync(1000);
    expect(r.calls).toHaveLength(10); // a plain 1000 ms window would admit #11 here
    await r.clock.advanceAsync(9);
    expect(r.calls).toHaveLength(10);
    await r.clock.advanceAsync(1);
    expect(r.starts().slice(10)).toEqual([1010, 1010]);
    expect(await Promise.all(results)).toEqual(labels('j', 12));
    expect(r.clock.pending()).toBe(0);
  });

  it('counts the gap from the settle, not the start', async () => {
    const r = rig({ maxCalls: 2 });
    const results = ['a', 'b', 'c', 'd'].map((label) => r.run(label, { latencyMs: 300 }));
    await r.clock.runAllAsync();
    await Promise.all(results);
    expect(r.calls.map(({ label, start, settle }) => ({ label, start, settle }))).toEqual([
      { label: 'a', start: 0, settle: 300 },
      { label: 'b', start: 0, settle: 300 },
      { label: 'c', start: 1310, settle: 1610 },
      { label: 'd', start: 1310, settle: 1610 },
    ]);
  });

  it('a call that never settles keeps its slot; the next starts windowMs + margin after one settles', async () => {
    const r = rig({ maxCalls: 3, windowMs: 100, safetyMarginMs: 10, maxQueued: 1 });
    for (const label of ['a', 'b', 'c']) void r.run(label, { latencyMs: null });
    const tickets: QueueTicket[] = [];
    const fourth = r.run('d', { onQueued: (t) => tickets.push(t) });
    expect(tickets).toEqual([{ position: 1, estimatedWaitMs: 110 }]);
    expect(r.clock.pending()).toBe(0); // every slot in flight: no timer, no polling

    // Refused at once, with a wait estimate, while every slot is held.
    await expect(r.run('e')).rejects.toMatchObject({ code: 'busy', estimatedWaitMs: 110 });

    await r.clock.advanceAsync(10_000);
    expect(r.labels()).toEqual(['a', 'b', 'c']);

    r.finish('b');
    await r.clock.advanceAsync(109);
    expect(r.labels()).toEqual(['a', 'b', 'c']);
    await r.clock.advanceAsync(1);
    expect(r.startOf('d')).toBe(10_110);
    expect(r.limiter.stats()).toMatchObject({ started: 4, refused: 1, queued: { interactive: 0, bulk: 0 } });
    expect(await fourth).toBe('d');
  });

  it('keeps the bound after a slow cold start (the start-spacing model put 17 calls in one server second)', async () => {
    const r = rig();
    // Cold sockets: the first ten calls take 50 ms; warm ones 2 ms.
    const results = labels('c', 20).map((label, i) => r.run(label, { latencyMs: i < 10 ? 50 : 2 }));
    await r.clock.runAllAsync();
    await Promise.all(results);
    // Spacing starts alone would start #11 at 1010 while the first burst may have arrived at 49.
    expect(r.starts()).toEqual([...Array(10).fill(0), ...Array(10).fill(50 + 1010)]);
    expect(maxCallsMeetingAnyWindow(r.calls, 1010)).toBe(10);
  });

  it('never lets 11 calls meet one window, with 50 callers arriving at random with random latencies', async () => {
    const r = rig();
    const random = seeded(42);
    const results: Promise<string>[] = [];
    for (let i = 0; i < 50; i++) {
      // half arrive in one burst, the rest spread over 3 s, each with its own priority and latency
      const arrival = i < 25 ? 0 : Math.floor(random() * 3000);
      const priority: Priority = random() < 0.3 ? 'interactive' : 'bulk';
      const latencyMs = Math.floor(random() * 400);
      r.clock.setTimeout(() => results.push(r.run(`c${i}`, { priority, latencyMs })), arrival);
    }
    await r.clock.runAllAsync();

    expect(await Promise.all(results)).toHaveLength(50);
    expect(r.calls).toHaveLength(50);
    // Tight: the bursts fill every slot.
    expect(maxCallsMeetingAnyWindow(r.calls, 1010)).toBe(10);
    const bulk = r.calls.filter((c) => c.priority === 'bulk');
    expect(bulk.length).toBeGreaterThan(20);
    expect(maxCallsMeetingAnyWindow(bulk, 1010)).toBeLessThanOrEqual(8);
  });

  it('a slot rests from the answer (response headers), not from the settle: the body and parsing hold nothing', async () => {
    const r = rig({ maxCalls: 2 });
    /** [start, answered] per call: where its arrival lies. */
    const spans: Call[] = [];
    const answeredAfter = 40;
    const settledAfter = 400;
    const run = (label: string) =>
      r.limiter.schedule(
        (progress) =>
          new Promise<string>((resolve) => {
            const span: Call = { label, priority: 'interactive', start: r.clock.now(), settle: Number.NaN };
            spans.push(span);
            r.clock.setTimeout(() => {
              span.settle = r.clock.now();
              progress.answered();
              progress.answered(); // a second report changes nothing
            }, answeredAfter);
            r.clock.setTimeout(() => resolve(label), settledAfter);
          }),
      );
    const results = labels('j', 6).map(run);
    await r.clock.runAllAsync();
    expect(await Promise.all(results)).toEqual(labels('j', 6));
    // Each pair starts a gap (1010) after the previous pair's answers at +40, not after its settles
    // at +400: 1050 and 2100, where resting from the settle would start them at 1410 and 2820.
    expect(spans.map((s) => s.start)).toEqual([0, 0, 1050, 1050, 2100, 2100]);
    expect(maxCallsMeetingAnyWindow(spans, 1010)).toBe(2);
  });

  /**
   * 100 calls offered one every 100 ms, each answered 2 ms after it starts (its body read 5 ms
   * later), each with a preparation of `prepareMs` if given; what each waited from its offer to
   * its start, and from its offer to its preparation.
   */
  async function offerTenPerSecond(prepareMs: number | null) {
    const r = rig({ safetyMarginMs: 1 });
    const waits: number[] = [];
    const prepared: number[] = [];
    const spans: Call[] = [];
    const results: Promise<string>[] = [];
    const offer = (i: number) => {
      const offered = r.clock.now();
      const task = (progress: CallProgress) =>
        new Promise<string>((resolve) => {
          const start = r.clock.now();
          waits.push(start - offered);
          const span: Call = { label: `c${i}`, priority: 'interactive', start, settle: Number.NaN };
          spans.push(span);
          r.clock.setTimeout(() => {
            span.settle = r.clock.now();
            progress.answered();
            r.clock.setTimeout(() => resolve(span.label), 5); // reading the body
          }, 2);
        });
      const prepare = () =>
        new Promise<void>((resolve) => {
          prepared.push(r.clock.now() - offered);
          r.clock.setTimeout(resolve, prepareMs ?? 0);
        });
      results.push(r.limiter.schedule(task, prepareMs === null ? {} : { prepare }));
    };
    for (let i = 0; i < 100; i++) r.clock.setTimeout(() => offer(i), (i + 1) * 100);
    await r.clock.runAllAsync();
    await Promise.all(results);
    return { waits, prepared, spans };
  }

  it('an offered 10 calls/s answered at once waits only by the answer latency per window', async () => {
    const { waits, spans } = await offerTenPerSecond(null);
    // A call waits for the one 10 before it: answered at its start + 2, free 1001 later, so the
    // queue grows by 3 ms a window: 27 ms by the tenth second (from the settle + 10 ms it was 17 ms
    // a window: 153 ms).
    expect(Math.max(...waits)).toBe(27);
    expect(maxCallsMeetingAnyWindow(spans, 1000)).toBe(10);
  });

  it('grants a job with a prepare prepareLeadMs early: its preparation adds nothing to each window', async () => {
    // As above, but each call first writes its fence (1 ms, less than the 2 ms lead). Granted at
    // the slot's opening, that write would delay every call on the slot by 1 ms more per window.
    const { waits, prepared, spans } = await offerTenPerSecond(1);
    // The first second's calls wait for their preparation only (1 ms); from then on each call's
    // slot opens 3 ms later a window (answered 2 ms after its start, free 1001 ms after that),
    // and its preparation began 2 ms before the opening: 1 + 3 = 4 ms in the second second, 28 ms
    // in the tenth (without the lead: 37).
    expect(waits.slice(0, 10)).toEqual(Array(10).fill(1));
    expect(Math.max(...waits)).toBe(28);
    expect(prepared.slice(10).every((p, i) => p === (waits[i + 10] ?? 0) - 2)).toBe(true);
    expect(maxCallsMeetingAnyWindow(spans, 1000)).toBe(10);
  });

  it('sustains the limit: 100 instant calls have all started after (100/10 − 1) × (windowMs + margin)', async () => {
    const r = rig();
    const results = labels('j', 100).map((label) => r.run(label));
    await r.clock.runAllAsync();

    expect(await Promise.all(results)).toEqual(labels('j', 100));
    // Ten at a time, each burst 1010 ms after the previous one settled: 9.9 calls/s sustained.
    expect(r.starts()).toEqual(Array.from({ length: 100 }, (_, i) => Math.floor(i / 10) * 1010));
    const sustained = (r.calls.length - 10) / (Math.max(...r.starts()) / 1000);
    expect(sustained).toBeGreaterThanOrEqual(9.5);
    expect(maxCallsMeetingAnyWindow(r.calls, 1010)).toBe(10);
  });

  it('arms one timer for the moment the next slot frees, even when starts are spread out', async () => {
    const r = rig({ maxCalls: 2 });
    void r.run('a');
    await r.clock.advanceAsync(300);
    void r.run('b');
    void r.run('c');
    void r.run('d');
    expect(r.clock.pending()).toBe(1); // one timer, not one per job or a poll
    await r.clock.runAllAsync();
    expect(r.calls.map(({ label, start }) => ({ label, start }))).toEqual([
      { label: 'a', start: 0 },
      { label: 'b', start: 300 },
      { label: 'c', start: 1010 },
      { label: 'd', start: 1310 },
    ]);
  });

  it('admits nothing early when a timer fires before its time', async () => {
    const fake = createFakeClock();
    // Node timers have millisecond resolution; model one that fires 1 ms early.
    const earlyClock: Clock = {
      now: fake.now,
      setTimeout: (fn, ms) => fake.setTimeout(fn, ms - 1),
      clearTimeout: fake.clearTimeout,
    };
    const limiter = createLimiter({ clock: earlyClock, maxCalls: 1, windowMs: 100, safetyMarginMs: 0 });
    const starts: number[] = [];
    for (let i = 0; i < 4; i++) void limiter.schedule(async () => starts.push(fake.now()));
    await fake.runAllAsync();
    expect(starts).toEqual([0, 100, 200, 300]);
  });

  it('rejects with the task; a failed call, even one that throws synchronously, holds and frees its slot the same way', async () => {
    const r = rig({ maxCalls: 1, windowMs: 100, safetyMarginMs: 0 });
    const failure = new Error('boom');
    const failed = r.run('slow-failure', { latencyMs: 30, fail: true });
    const thrown = r.limiter.schedule(() => {
      throw failure;
    });
    const after = r.run('after');
    // Handlers attached now, so the rejections are never unhandled while the clock runs.
    const outcomes = Promise.all([
      expect(failed).rejects.toThrow('slow-failure failed'),
      expect(thrown).rejects.toBe(failure),
      expect(after).resolves.toBe('after'),
    ]);
    await r.clock.runAllAsync();
    await outcomes;
    // the failure settled at 30 → the throwing task at 130 (settled at once) → 'after' at 230
    expect(r.startOf('after')).toBe(230);
    expect(r.limiter.stats().started).toBe(3); // all were sent, so all count
  });

  it('lets a running task schedule more work (the task keeps its own slot meanwhile)', async () => {
    const r = rig({ maxCalls: 2, windowMs: 100, safetyMarginMs: 0 });
    const outer = r.limiter.schedule(async () => {
      r.calls.push({ label: 'outer', priority: 'interactive', start: r.clock.now(), settle: Number.NaN });
      return Promise.all([r.run('inner1'), r.run('inner2')]);
    });
    await r.clock.runAllAsync();
    expect(await outer).toEqual(['inner1', 'inner2']);
    expect(r.calls.map(({ label, start }) => ({ label, start }))).toEqual([
      { label: 'outer', start: 0 },
      { label: 'inner1', start: 0 },
      { label: 'inner2', start: 100 }, // outer still holds the other slot
    ]);
  });
});

describe('createLimiter: priorities and the interactive reserve', () => {
  it('starts interactive jobs at once while 30 bulk jobs wait on the reserve, and the next one ahead of them', async () => {
    const r = rig(); // reserve: 2 of 10
    const bulkPositions: number[] = [];
    const bulk = labels('b', 38).map((label) =>
      r.run(label, { priority: 'bulk', onQueued: (t) => bulkPositions.push(t.position) }),
    );
    expect(r.calls).toHaveLength(8);
    expect(r.limiter.stats().queued).toEqual({ interactive: 0, bulk: 30 });
    expect(bulkPositions).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));

    await r.clock.advanceAsync(500);
    const onQueued = vi.fn();
    const now = [r.run('i1', { onQueued }), r.run('i2', { onQueued })];
    expect(onQueued).not.toHaveBeenCalled();
    expect([r.startOf('i1'), r.startOf('i2')]).toEqual([500, 500]);

    // Every slot is now taken; the third waits for the first to free, ahead of all the bulk jobs.
    const tickets: QueueTicket[] = [];
    const third = r.run('i3', { onQueued: (t) => tickets.push(t) });
    expect(tickets).toEqual([{ position: 1, estimatedWaitMs: 510 }]);

    await r.clock.runAllAsync();
    expect(await Promise.all([...now, third, ...bulk])).toHaveLength(41);
    expect(r.startOf('i3')).toBe(1010);
    // FIFO within bulk; the interactive jobs before every queued bulk job
    expect(r.labels()).toEqual([...labels('b', 8), 'i1', 'i2', 'i3', ...labels('b', 30, 8)]);
    expect(maxCallsMeetingAnyWindow(r.calls, 1010)).toBe(10);
    expect(
      maxCallsMeetingAnyWindow(
        r.calls.filter((c) => c.priority === 'bulk'),
        1010,
      ),
    ).toBe(8);
  });

  it('keeps FIFO order within each priority, interactive first', async () => {
    const r = rig({ maxCalls: 1, windowMs: 100, safetyMarginMs: 0 });
    void r.run('first', { priority: 'bulk' });
    for (const [label, priority] of [
      ['b1', 'bulk'],
      ['i1', 'interactive'],
      ['b2', 'bulk'],
      ['i2', 'interactive'],
      ['b3', 'bulk'],
    ] as const) {
      void r.run(label, { priority });
    }
    await r.clock.runAllAsync();
    expect(r.labels()).toEqual(['first', 'i1', 'i2', 'b1', 'b2', 'b3']);
  });

  it('uses at most maxCalls − interactiveReserve slots for bulk work alone', async () => {
    const r = rig();
    const results = labels('b', 100).map((label) => r.run(label, { priority: 'bulk' }));
    await r.clock.runAllAsync();
    await Promise.all(results);
    expect(r.starts()).toEqual(Array.from({ length: 100 }, (_, i) => Math.floor(i / 8) * 1010));
    expect(maxCallsMeetingAnyWindow(r.calls, 1010)).toBe(8);
    expect(r.labels()).toEqual(labels('b', 100));
  });

  it('gives bulk work every slot with interactiveReserve 0', async () => {
    const r = rig({ interactiveReserve: 0 });
    const results = labels('b', 30).map((label) => r.run(label, { priority: 'bulk' }));
    await r.clock.runAllAsync();
    await Promise.all(results);
    expect(r.starts()).toEqual(Array.from({ length: 30 }, (_, i) => Math.floor(i / 10) * 1010));
  });

  it('defaults to interactive', async () => {
    const r = rig({ maxCalls: 1 });
    void r.limiter.schedule(async () => 0);
    void r.limiter.schedule(async () => 1);
    expect(r.limiter.stats().queued).toEqual({ interactive: 1, bulk: 0 });
    await r.clock.runAllAsync();
  });
});

describe('createLimiter: bounded queue', () => {
  it('refuses at once with PlatBusyError past maxQueued and never runs the refused task', async () => {
    const r = rig({ maxCalls: 2, windowMs: 1000, safetyMarginMs: 0, interactiveReserve: 0, maxQueued: 3 });
    const accepted = labels('b', 5).map((label) => r.run(label, { priority: 'bulk' }));
    const refusedTask = vi.fn(async () => 'never');

    const refused = r.limiter.schedule(refusedTask, { priority: 'bulk', operation: 'get-shop-info' });
    const error = await refused.catch((e: unknown) => e); // settled without moving the clock
    expect(error).toBeInstanceOf(PlatBusyError);
    // 3 queued ahead on 2 slots free at 1000: it would start in the second round, at 2000.
    expect(error).toMatchObject({ code: 'busy', operation: 'get-shop-info', estimatedWaitMs: 2000 });

    // An interactive job evicts nothing: it is refused too, with its own (shorter) estimate.
    await expect(r.limiter.schedule(refusedTask, { priority: 'interactive' })).rejects.toMatchObject({
      code: 'busy',
      estimatedWaitMs: 1000,
    });
    expect(r.limiter.stats()).toMatchObject({ refused: 2, started: 2, queued: { interactive: 0, bulk: 3 } });

    await r.clock.runAllAsync();
    expect(await Promise.all(accepted)).toEqual(labels('b', 5));
    expect(refusedTask).not.toHaveBeenCalled();
    expect(r.limiter.stats().started).toBe(5);
  });

  it('takes work again once queued jobs have started', async () => {
    const r = rig({ maxCalls: 1, windowMs: 100, safetyMarginMs: 0, maxQueued: 1 });
    void r.run('1');
    void r.run('2');
    await expect(r.run('3')).rejects.toBeInstanceOf(PlatBusyError);
    await r.clock.advanceAsync(100);
    expect(r.labels()).toEqual(['1', '2']);
    const later = r.run('4');
    await r.clock.advanceAsync(100);
    expect(await later).toBe('4');
    expect(r.startOf('4')).toBe(200);
  });

  it('can cap bulk work lower so interactive lookups still find room', async () => {
    const r = rig({ maxCalls: 1, maxQueued: 4, maxQueuedBulk: 2 });
    void r.run('0');
    void r.run('1', { priority: 'bulk' });
    void r.run('2', { priority: 'bulk' });
    await expect(r.run('3', { priority: 'bulk' })).rejects.toBeInstanceOf(PlatBusyError);
    void r.run('4', { priority: 'interactive' });
    expect(r.limiter.stats().queued).toEqual({ interactive: 1, bulk: 2 });
    await r.clock.runAllAsync();
    expect(r.labels()).toEqual(['0', '4', '1', '2']);
  });
});

describe('createLimiter: estimates', () => {
  it('estimates position and start from the slots and the queue', async () => {
    const r = rig({ maxCalls: 2, windowMs: 1000, safetyMarginMs: 0, interactiveReserve: 0 });
    expect(r.limiter.estimate()).toEqual({ position: 1, estimatedWaitMs: 0, estimatedStartMs: 0 });

    void r.run('a');
    await r.clock.advanceAsync(300);
    void r.run('b');
    await flushMicrotasks();
    // Both settled at once: the slots free at 1000 and 1300, then 2000, 2300, 3000…
    const tickets: Record<string, QueueTicket> = {};
    for (const [label, priority] of [
      ['b1', 'bulk'],
      ['b2', 'bulk'],
      ['b3', 'bulk'],
      ['i1', 'interactive'],
    ] as const) {
      void r.run(label, { priority, onQueued: (t) => (tickets[label] = t) });
    }
    expect(tickets).toEqual({
      b1: { position: 1, estimatedWaitMs: 700 },
      b2: { position: 2, estimatedWaitMs: 1000 },
      b3: { position: 3, estimatedWaitMs: 1700 },
      i1: { position: 1, estimatedWaitMs: 700 },
    });
    expect(r.limiter.estimate('interactive')).toEqual({
      position: 2,
      estimatedWaitMs: 1000,
      estimatedStartMs: 1300,
    });
    expect(r.limiter.estimate('bulk')).toEqual({
      position: 5,
      estimatedWaitMs: 2700,
      estimatedStartMs: 3000,
    });

    await r.clock.runAllAsync();
    expect(r.calls.slice(2).map(({ label, start }) => ({ label, start }))).toEqual([
      { label: 'i1', start: 1000 },
      { label: 'b1', start: 1300 },
      { label: 'b2', start: 2000 },
      { label: 'b3', start: 2300 },
    ]);
  });

  it('leaves the reserved slots out of a bulk estimate', async () => {
    const r = rig();
    for (const label of labels('b', 8)) void r.run(label, { priority: 'bulk' });
    await flushMicrotasks();
    expect(r.limiter.estimate('bulk')).toEqual({
      position: 1,
      estimatedWaitMs: 1010,
      estimatedStartMs: 1010,
    });
    expect(r.limiter.estimate('interactive')).toEqual({
      position: 1,
      estimatedWaitMs: 0,
      estimatedStartMs: 0,
    });
  });

  it('projects a busy slot to free after the smoothed latency plus windowMs + margin', async () => {
    const r = rig({ maxCalls: 1, windowMs: 1000, safetyMarginMs: 10 });
    void r.run('a', { latencyMs: 200 });
    const tickets: QueueTicket[] = [];
    void r.run('b', { latencyMs: 200, onQueued: (t) => tickets.push(t) });
    // No latency measured yet: the busy slot is assumed to settle now.
    expect(tickets).toEqual([{ position: 1, estimatedWaitMs: 1010 }]);

    await r.clock.advanceAsync(1210); // a settled at 200 (200 ms measured), b started at 1210
    expect(r.startOf('b')).toBe(1210);
    expect(r.limiter.estimate()).toEqual({ position: 1, estimatedWaitMs: 1210, estimatedStartMs: 2420 });
    await r.clock.runAllAsync();
    // b settled at 1410, again after 200 ms: its slot frees at 2420, as estimated.
    expect(r.clock.now()).toBe(1410);
    expect(r.limiter.estimate()).toEqual({ position: 1, estimatedWaitMs: 1010, estimatedStartMs: 2420 });
  });

  it('includes the safety margin in its estimates', async () => {
    const r = rig({ maxCalls: 1, windowMs: 1000, safetyMarginMs: 25 });
    void r.run('a');
    await flushMicrotasks();
    expect(r.limiter.estimate('bulk')).toEqual({
      position: 1,
      estimatedWaitMs: 1025,
      estimatedStartMs: 1025,
    });
  });

  it('does not call onQueued for a job that starts at once', async () => {
    const limiter = createLimiter({ clock: createFakeClock() });
    const onQueued = vi.fn();
    expect(await limiter.schedule(async () => 'now', { onQueued })).toBe('now');
    expect(onQueued).not.toHaveBeenCalled();
  });

  it('withdraws a job whose onQueued throws and rejects with that error', async () => {
    const r = rig({ maxCalls: 1 });
    void r.run('a');
    const broken = new Error('broken callback');
    await expect(
      r.run('b', {
        onQueued: () => {
          throw broken;
        },
      }),
    ).rejects.toBe(broken);
    expect(r.limiter.stats().queued).toEqual({ interactive: 0, bulk: 0 });
    await r.clock.runAllAsync();
    expect(r.labels()).toEqual(['a']);
  });

  it('reports each start to onStarted with the time waited', async () => {
    const clock = createFakeClock();
    const onStarted = vi.fn(() => {
      throw new Error('a broken metrics hook must not matter');
    });
    const limiter = createLimiter({ clock, maxCalls: 1, windowMs: 100, safetyMarginMs: 0, onStarted });
    const task = vi.fn(async () => 'x');
    void limiter.schedule(task, { operation: 'platdzmd' });
    await clock.advanceAsync(40);
    void limiter.schedule(task, { operation: 'paging-orders', priority: 'bulk' });
    await clock.runAllAsync();
    expect(task).toHaveBeenCalledTimes(2);
    expect(onStarted.mock.calls).toEqual([
      [{ priority: 'interactive', waitedMs: 0, operation: 'platdzmd' }],
      [{ priority: 'bulk', waitedMs: 60, operation: 'paging-orders' }],
    ]);
  });
});

describe('createLimiter: cancellation and stop', () => {
  it('removes a queued job whose signal aborts, frees its place and never runs it', async () => {
    const r = rig({ maxCalls: 1, windowMs: 100, safetyMarginMs: 0 });
    void r.run('running');
    const controller = new AbortController();
    const a = r.run('a', { priority: 'bulk' });
    const cancelled = r.run('cancelled', {
      priority: 'bulk',
      signal: controller.signal,
      operation: 'platiteminfo',
    });
    const c = r.run('c', { priority: 'bulk' });
    expect(r.limiter.estimate('bulk').position).toBe(4);

    const reason = new Error('user pressed Cancel');
    controller.abort(reason);
    await expect(cancelled).rejects.toBeInstanceOf(PlatAbortedError);
    await expect(cancelled).rejects.toMatchObject({
      code: 'aborted',
      operation: 'platiteminfo',
      cause: reason,
    });
    expect(r.limiter.stats().queued.bulk).toBe(2);
    expect(r.limiter.estimate('bulk')).toMatchObject({ position: 3, estimatedWaitMs: 300 });

    await r.clock.runAllAsync();
    expect(await Promise.all([a, c])).toEqual(['a', 'c']);
    expect(r.calls.map(({ label, start }) => ({ label, start }))).toEqual([
      { label: 'running', start: 0 },
      { label: 'a', start: 100 },
      { label: 'c', start: 200 },
    ]);
  });

  it('refuses a job whose signal is already aborted and clears the timer when the queue empties', async () => {
    const r = rig({ maxCalls: 1 });
    const task = vi.fn(async () => 'x');
    await expect(r.limiter.schedule(task, { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(
      PlatAbortedError,
    );
    expect(task).not.toHaveBeenCalled();

    void r.limiter.schedule(task);
    const controller = new AbortController();
    const queued = r.limiter.schedule(task, { signal: controller.signal });
    await flushMicrotasks(); // the first call settles: its slot's timer is armed
    expect(r.clock.pending()).toBe(1);
    controller.abort();
    await expect(queued).rejects.toBeInstanceOf(PlatAbortedError);
    expect(r.clock.pending()).toBe(0);
  });

  it('leaves a started job alone when its signal aborts', async () => {
    const limiter = createLimiter({ clock: createFakeClock() });
    const controller = new AbortController();
    const running = limiter.schedule(async () => 'sent', { signal: controller.signal });
    controller.abort();
    expect(await running).toBe('sent');
  });

  it('stop() rejects queued jobs, keeps started ones and refuses new work', async () => {
    const r = rig({ maxCalls: 2 });
    const started = [r.run('s1', { latencyMs: 50 }), r.run('s2', { latencyMs: 50 })];
    const queued = [r.run('q1'), r.run('q2', { priority: 'bulk', operation: 'platdybw' })];

    r.limiter.stop();
    await expect(queued[0]).rejects.toBeInstanceOf(PlatAbortedError);
    await expect(queued[1]).rejects.toMatchObject({ code: 'aborted', operation: 'platdybw' });
    await expect(r.run('late')).rejects.toBeInstanceOf(PlatAbortedError);
    await r.clock.runAllAsync(); // the started calls settle after stop(): no timer is armed for them
    expect(await Promise.all(started)).toEqual(['s1', 's2']);
    expect(r.clock.pending()).toBe(0);
    expect(r.labels()).toEqual(['s1', 's2']);
    expect(r.limiter.stats().queued).toEqual({ interactive: 0, bulk: 0 });
  });
});

describe('createLimiter: options', () => {
  it.each([
    { maxCalls: 0 },
    { maxCalls: 1.5 },
    { windowMs: 0 },
    { safetyMarginMs: -1 },
    { prepareLeadMs: -1 },
    { interactiveReserve: -1 },
    { interactiveReserve: 1.5 },
    { interactiveReserve: Number.NaN },
    { maxQueued: -1 },
    { maxQueuedBulk: Number.NaN },
  ])('rejects %o', (options) => {
    expect(() => createLimiter(options)).toThrow(RangeError);
  });

  it('caps interactiveReserve at maxCalls − 1, so bulk work always has a slot', async () => {
    const r = rig({ maxCalls: 3, interactiveReserve: 5, windowMs: 100, safetyMarginMs: 0 });
    const results = labels('b', 3).map((label) => r.run(label, { priority: 'bulk' }));
    await r.clock.runAllAsync();
    await Promise.all(results);
    expect(r.starts()).toEqual([0, 100, 200]);
  });
});

describe('createLimiter: real clock', () => {
  it('starts a prepared job’s task at its slot’s opening, never before, its preparation done earlier', async () => {
    const windowMs = 40;
    const limiter = createLimiter({ maxCalls: 1, windowMs, safetyMarginMs: 0, prepareLeadMs: 5 });
    const answeredAt: number[] = [];
    const times: { prepared: number; start: number }[] = [];
    const job = () => {
      const entry = { prepared: Number.NaN, start: Number.NaN };
      times.push(entry);
      return limiter.schedule(
        async (progress) => {
          entry.start = performance.now();
          // Read before the limiter reads its clock: the slot opens a window after a later time.
          answeredAt.push(performance.now());
          progress.answered();
        },
        {
          prepare: async () => {
            entry.prepared = performance.now();
          },
        },
      );
    };
    await Promise.all(Array.from({ length: 8 }, job));
    for (let i = 1; i < 8; i++) {
      const opens = (answeredAt[i - 1] ?? 0) + windowMs;
      const { prepared, start } = times[i] ?? { prepared: Number.NaN, start: Number.NaN };
      expect(start).toBeGreaterThanOrEqual(opens);
      expect(prepared).toBeLessThan(start);
      expect(prepared).toBeGreaterThanOrEqual(opens - 5);
    }
  });

  it('keeps the bound on actual start and settle times', async () => {
    const maxCalls = 4;
    const windowMs = 50;
    const safetyMarginMs = 5;
    const interactiveReserve = 2;
    const limiter = createLimiter({ maxCalls, windowMs, safetyMarginMs, interactiveReserve });
    const random = seeded(7);
    const calls: Call[] = [];
    const begin = performance.now();
    await Promise.all(
      Array.from({ length: 24 }, (_, i) => {
        const priority: Priority = i % 3 === 0 ? 'interactive' : 'bulk';
        const latencyMs = Math.floor(random() * 10);
        return limiter.schedule(
          () => {
            const call: Call = { label: `c${i}`, priority, start: performance.now(), settle: Number.NaN };
            calls.push(call);
            return new Promise<void>((resolve) =>
              setTimeout(() => {
                call.settle = performance.now();
                resolve();
              }, latencyMs),
            );
          },
          { priority },
        );
      }),
    );
    const elapsed = Math.max(...calls.map((c) => c.start)) - begin;
    const gap = windowMs + safetyMarginMs;

    expect(calls).toHaveLength(24);
    expect(maxCallsMeetingAnyWindow(calls, gap)).toBeLessThanOrEqual(maxCalls);
    expect(
      maxCallsMeetingAnyWindow(
        calls.filter((c) => c.priority === 'bulk'),
        gap,
      ),
    ).toBeLessThanOrEqual(maxCalls - interactiveReserve);
    // 24 calls on 4 slots: some slot serves 6, one gap after another.
    expect(elapsed).toBeGreaterThanOrEqual(5 * gap);
    // 16 bulk calls on 2 slots: about 8 rounds of gap + latency (< 10 ms); timer lateness on top.
    expect(elapsed).toBeLessThan(8 * (gap + 10) + 500);
  });
});

describe('createLimiter: slots of an earlier life (restingAtStart, issue 33 finding 13)', () => {
  const bounds = { spanMs: 1000, gapMs: 200, skewMs: 0, maxCalls: 3 };

  it('a call not answered rests until it surely arrived (span after its write ahead) + the gap; an answered one a gap after its answer; calls long over rest nothing', () => {
    expect(
      restingAtStart(
        [
          { writtenAgoMs: 100, answeredAgoMs: null }, // may still arrive for 900 ms: 1100
          { writtenAgoMs: 100, answeredAgoMs: 50 }, // arrived before its answer: 150
          { writtenAgoMs: 1100, answeredAgoMs: null }, // over 100 ms ago: 100
          { writtenAgoMs: 5000, answeredAgoMs: 4900 }, // long over
        ],
        bounds,
      ),
    ).toEqual([1100, 150, 100]);
    // A skew between the answer's clock and the database's counts against the answer.
    expect(restingAtStart([{ writtenAgoMs: 100, answeredAgoMs: 50 }], { ...bounds, skewMs: 300 })).toEqual([
      450,
    ]);
    // At most maxCalls slots, the longest rests first.
    const many = Array.from({ length: 10 }, (_, i) => ({ writtenAgoMs: i * 10, answeredAgoMs: null }));
    expect(restingAtStart(many, bounds)).toEqual([1200, 1190, 1180]);
  });

  it('a limiter started with resting slots grants each only once it rests no more', async () => {
    const clock = createFakeClock(1_000_000);
    const limiter = createLimiter({
      maxCalls: 2,
      windowMs: 100,
      safetyMarginMs: 0,
      clock,
      restingMs: [300, 50],
    });
    const starts: number[] = [];
    // Each call takes 500 ms: it holds its slot meanwhile.
    const run = () =>
      limiter.schedule(() => {
        starts.push(clock.now() - 1_000_000);
        return new Promise<void>((resolve) => clock.setTimeout(resolve, 500));
      });
    const all = Promise.all([run(), run(), run()]);
    await clock.runAllAsync();
    await all;
    // One slot free at 50, the other at 300; the third on the first a gap after its call (650).
    expect(starts).toEqual([50, 300, 650]);
  });
});
