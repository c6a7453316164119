import { describe, expect, it, vi } from 'vitest';
import { PlatAbortedError, PlatBusyError } from '../../src/plat/errors.js';
import { createLimiter, type LimiterClock, type Priority, type QueueTicket } from '../../src/plat/limiter.js';
import { createFakeClock, type FakeClock } from '../helpers/fake-clock.js';

/** The most starts that fall inside any half-open interval [t, t + spanMs). */
function maxStartsInAnyWindow(starts: readonly number[], spanMs: number): number {
  let max = 0;
  for (const from of starts) {
    const inside = starts.filter((at) => at >= from && at < from + spanMs).length;
    max = Math.max(max, inside);
  }
  return max;
}

/** Runs every timer, letting time jump from one due timer to the next. */
function runAll(clock: FakeClock): void {
  while (clock.next()) {
    // each step fires the timers due at that moment
  }
}

/** Deterministic pseudo-random numbers in [0, 1) (a small LCG). */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Records the clock time and label of every task the limiter starts. */
function recorder(clock: { now(): number }) {
  const starts: { label: string; at: number }[] = [];
  const task =
    <T extends string>(label: T) =>
    async (): Promise<T> => {
      starts.push({ label, at: clock.now() });
      return label;
    };
  return { starts, task, labels: () => starts.map((s) => s.label), times: () => starts.map((s) => s.at) };
}

describe('createLimiter: the sliding window (spec §8)', () => {
  it('starts maxCalls at once, then the next only when the oldest start is windowMs + margin old', async () => {
    const clock = createFakeClock();
    const limiter = createLimiter({ clock });
    const rec = recorder(clock);
    const results = Array.from({ length: 12 }, (_, i) => limiter.schedule(rec.task(`j${i}`)));

    expect(rec.starts).toHaveLength(10);
    expect(limiter.stats()).toMatchObject({
      started: 10,
      startedInWindow: 10,
      queued: { bulk: 0, interactive: 2 },
    });
    clock.advance(1000);
    expect(rec.starts).toHaveLength(10); // a plain 1000 ms window would admit #11 here
    clock.advance(24);
    expect(rec.starts).toHaveLength(10);
    clock.advance(1);
    expect(rec.times().slice(10)).toEqual([1025, 1025]);
    expect(await Promise.all(results)).toEqual(Array.from({ length: 12 }, (_, i) => `j${i}`));
    expect(clock.pending()).toBe(0);
  });

  it('never starts more than maxCalls in any sliding window with 50 callers arriving at random', async () => {
    const clock = createFakeClock();
    const limiter = createLimiter({ clock });
    const rec = recorder(clock);
    const random = seeded(42);
    const results: Promise<string>[] = [];
    for (let i = 0; i < 50; i++) {
      // half arrive in one burst, the rest spread over 3 s, each with its own priority
      const arrival = i < 25 ? 0 : Math.floor(random() * 3000);
      const priority: Priority = random() < 0.3 ? 'interactive' : 'bulk';
      clock.setTimeout(() => results.push(limiter.schedule(rec.task(`c${i}`), { priority })), arrival);
    }
    runAll(clock);

    expect(await Promise.all(results)).toHaveLength(50);
    expect(rec.starts).toHaveLength(50);
    // Never 11 within windowMs + safetyMarginMs, so never 11 within any 1000 ms window.
    expect(maxStartsInAnyWindow(rec.times(), 1025)).toBe(10);
    const sorted = rec.times().sort((a, b) => a - b);
    for (let i = 10; i < sorted.length; i++) {
      expect((sorted[i] ?? 0) - (sorted[i - 10] ?? 0)).toBeGreaterThanOrEqual(1025);
    }
  });

  it('sustains the limit: 100 jobs have all started after (100/10 - 1) × (windowMs + margin)', async () => {
    const clock = createFakeClock();
    const limiter = createLimiter({ clock });
    const rec = recorder(clock);
    const results = Array.from({ length: 100 }, (_, i) =>
      limiter.schedule(rec.task(`b${i}`), { priority: 'bulk' }),
    );
    runAll(clock);

    await Promise.all(results);
    const last = Math.max(...rec.times());
    expect(last).toBeLessThanOrEqual((100 / 10 - 1) * (1000 + 25));
    expect(maxStartsInAnyWindow(rec.times(), 1025)).toBe(10);
    // 90 calls after the first burst took 9 × 1025 ms: 9.76 calls/s, above the 9.5 required.
    expect(90 / (last / 1000)).toBeGreaterThanOrEqual(9.5);
    expect(rec.labels()).toEqual(Array.from({ length: 100 }, (_, i) => `b${i}`));
  });

  it('limits starts, not concurrency: calls that never finish do not hold a slot', () => {
    const clock = createFakeClock();
    const limiter = createLimiter({ clock, maxCalls: 3, windowMs: 100, safetyMarginMs: 0 });
    const task = vi.fn(() => new Promise<never>(() => {}));
    for (let i = 0; i < 9; i++) void limiter.schedule(task);
    expect(task).toHaveBeenCalledTimes(3);
    clock.advance(100);
    expect(task).toHaveBeenCalledTimes(6);
    clock.advance(100);
    expect(task).toHaveBeenCalledTimes(9);
  });

  it('re-arms its timer for the moment a slot frees, even when starts are spread out', () => {
    const clock = createFakeClock();
    const limiter = createLimiter({ clock, maxCalls: 2, windowMs: 1000, safetyMarginMs: 0 });
    const rec = recorder(clock);
    void limiter.schedule(rec.task('a'));
    clock.advance(300);
    void limiter.schedule(rec.task('b'));
    void limiter.schedule(rec.task('c'));
    void limiter.schedule(rec.task('d'));
    expect(clock.pending()).toBe(1); // one timer, not one per job or a poll
    runAll(clock);
    expect(rec.starts).toEqual([
      { label: 'a', at: 0 },
      { label: 'b', at: 300 },
      { label: 'c', at: 1000 },
      { label: 'd', at: 1300 },
    ]);
  });

  it('admits nothing early when a timer fires before its time', () => {
    const fake = createFakeClock();
    // Node timers have millisecond resolution; model one that fires 1 ms early.
    const earlyClock: LimiterClock = {
      now: fake.now,
      setTimeout: (fn, ms) => fake.setTimeout(fn, ms - 1),
      clearTimeout: fake.clearTimeout,
    };
    const limiter = createLimiter({ clock: earlyClock, maxCalls: 1, windowMs: 100, safetyMarginMs: 0 });
    const rec = recorder(fake);
    for (let i = 0; i < 4; i++) void limiter.schedule(rec.task(`j${i}`));
    runAll(fake);
    expect(rec.times()).toEqual([0, 100, 200, 300]);
  });

  it('rejects with the task, and a task that throws synchronously still rejects', async () => {
    const clock = createFakeClock();
    const limiter = createLimiter({ clock });
    const failure = new Error('boom');
    await expect(limiter.schedule(() => Promise.reject(failure))).rejects.toBe(failure);
    await expect(
      limiter.schedule(() => {
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(limiter.stats().started).toBe(2); // both were sent, so both count
  });

  it('lets a running task schedule more work', async () => {
    const clock = createFakeClock();
    const limiter = createLimiter({ clock, maxCalls: 2, windowMs: 100, safetyMarginMs: 0 });
    const rec = recorder(clock);
    const outer = limiter.schedule(async () => {
      rec.starts.push({ label: 'outer', at: clock.now() });
      return Promise.all([limiter.schedule(rec.task('inner1')), limiter.schedule(rec.task('inner2'))]);
    });
    runAll(clock);
    expect(await outer).toEqual(['inner1', 'inner2']);
    expect(rec.starts).toEqual([
      { label: 'outer', at: 0 },
      { label: 'inner1', at: 0 },
      { label: 'inner2', at: 100 },
    ]);
  });
});

describe('createLimiter: priorities', () => {
  it('starts an interactive job in the very next free slot, ahead of 30 queued bulk jobs', async () => {
    const clock = createFakeClock();
    const limiter = createLimiter({ clock });
    const rec = recorder(clock);
    const bulk = Array.from({ length: 40 }, (_, i) =>
      limiter.schedule(rec.task(`b${i}`), { priority: 'bulk' }),
    );
    expect(limiter.stats().queued).toEqual({ interactive: 0, bulk: 30 });

    clock.advance(500);
    const tickets: QueueTicket[] = [];
    const interactive = limiter.schedule(rec.task('user'), {
      priority: 'interactive',
      onQueued: (t) => tickets.push(t),
    });
    expect(tickets).toEqual([{ position: 1, estimatedWaitMs: 525 }]);

    clock.advance(525);
    expect(rec.starts[10]).toEqual({ label: 'user', at: 1025 });
    expect(await interactive).toBe('user');
    runAll(clock);
    await Promise.all(bulk);
    // FIFO within bulk, the interactive job between the first and the second burst
    expect(rec.labels()).toEqual([
      ...Array.from({ length: 10 }, (_, i) => `b${i}`),
      'user',
      ...Array.from({ length: 30 }, (_, i) => `b${i + 10}`),
    ]);
  });

  it('keeps FIFO order within each priority, interactive first', () => {
    const clock = createFakeClock();
    const limiter = createLimiter({ clock, maxCalls: 1, windowMs: 100, safetyMarginMs: 0 });
    const rec = recorder(clock);
    void limiter.schedule(rec.task('first'), { priority: 'bulk' });
    for (const [label, priority] of [
      ['b1', 'bulk'],
      ['i1', 'interactive'],
      ['b2', 'bulk'],
      ['i2', 'interactive'],
      ['b3', 'bulk'],
    ] as const) {
      void limiter.schedule(rec.task(label), { priority });
    }
    runAll(clock);
    expect(rec.labels()).toEqual(['first', 'i1', 'i2', 'b1', 'b2', 'b3']);
  });

  it('defaults to interactive', () => {
    const clock = createFakeClock();
    const limiter = createLimiter({ clock, maxCalls: 1 });
    void limiter.schedule(async () => 0);
    void limiter.schedule(async () => 1);
    expect(limiter.stats().queued).toEqual({ interactive: 1, bulk: 0 });
    runAll(clock);
  });
});

describe('createLimiter: bounded queue', () => {
  it('refuses at once with PlatBusyError past maxQueued and never runs the refused task', async () => {
    const clock = createFakeClock();
    const limiter = createLimiter({ clock, maxCalls: 2, windowMs: 1000, safetyMarginMs: 0, maxQueued: 3 });
    const accepted = Array.from({ length: 5 }, () =>
      limiter.schedule(async () => 'ok', { priority: 'bulk' }),
    );
    const refusedTask = vi.fn(async () => 'never');

    const refused = limiter.schedule(refusedTask, { priority: 'bulk', operation: 'get-shop-info' });
    const error = await refused.catch((e: unknown) => e); // settled without moving the clock
    expect(error).toBeInstanceOf(PlatBusyError);
    expect(error).toMatchObject({ code: 'busy', operation: 'get-shop-info', estimatedWaitMs: 2000 });
    expect((error as PlatBusyError).estimatedWaitMs).toBeGreaterThan(0);

    // An interactive job evicts nothing: it is refused too, with its own (shorter) estimate.
    await expect(limiter.schedule(refusedTask, { priority: 'interactive' })).rejects.toMatchObject({
      code: 'busy',
      estimatedWaitMs: 1000,
    });
    expect(limiter.stats()).toMatchObject({ refused: 2, started: 2, queued: { interactive: 0, bulk: 3 } });

    runAll(clock);
    expect(await Promise.all(accepted)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    expect(refusedTask).not.toHaveBeenCalled();
    expect(limiter.stats().started).toBe(5);
  });

  it('takes work again once queued jobs have started', async () => {
    const clock = createFakeClock();
    const limiter = createLimiter({ clock, maxCalls: 1, windowMs: 100, safetyMarginMs: 0, maxQueued: 1 });
    void limiter.schedule(async () => 1);
    void limiter.schedule(async () => 2);
    await expect(limiter.schedule(async () => 3)).rejects.toBeInstanceOf(PlatBusyError);
    clock.advance(100);
    const later = limiter.schedule(async () => 4);
    clock.advance(100);
    expect(await later).toBe(4);
  });

  it('can cap bulk work lower so interactive lookups still find room', async () => {
    const clock = createFakeClock();
    const limiter = createLimiter({ clock, maxCalls: 1, maxQueued: 4, maxQueuedBulk: 2 });
    void limiter.schedule(async () => 0);
    void limiter.schedule(async () => 1, { priority: 'bulk' });
    void limiter.schedule(async () => 2, { priority: 'bulk' });
    await expect(limiter.schedule(async () => 3, { priority: 'bulk' })).rejects.toBeInstanceOf(PlatBusyError);
    void limiter.schedule(async () => 4, { priority: 'interactive' });
    expect(limiter.stats().queued).toEqual({ interactive: 1, bulk: 2 });
    runAll(clock);
    expect(limiter.stats().started).toBe(4);
  });
});

describe('createLimiter: estimates', () => {
  it('estimates position and start from the window contents and the queue', () => {
    const clock = createFakeClock();
    const limiter = createLimiter({ clock, maxCalls: 2, windowMs: 1000, safetyMarginMs: 0 });
    const rec = recorder(clock);
    expect(limiter.estimate()).toEqual({ position: 1, estimatedWaitMs: 0, estimatedStartMs: 0 });

    void limiter.schedule(rec.task('a'));
    clock.advance(300);
    void limiter.schedule(rec.task('b'));
    // window: starts at 0 and 300, so the next slots are 1000, 1300, 2000, 2300, 3000…
    const tickets: Record<string, QueueTicket> = {};
    for (const [label, priority] of [
      ['b1', 'bulk'],
      ['b2', 'bulk'],
      ['b3', 'bulk'],
      ['i1', 'interactive'],
    ] as const) {
      void limiter.schedule(rec.task(label), { priority, onQueued: (t) => (tickets[label] = t) });
    }
    expect(tickets).toEqual({
      b1: { position: 1, estimatedWaitMs: 700 },
      b2: { position: 2, estimatedWaitMs: 1000 },
      b3: { position: 3, estimatedWaitMs: 1700 },
      i1: { position: 1, estimatedWaitMs: 700 },
    });
    expect(limiter.estimate('interactive')).toEqual({
      position: 2,
      estimatedWaitMs: 1000,
      estimatedStartMs: 1300,
    });
    expect(limiter.estimate('bulk')).toEqual({ position: 5, estimatedWaitMs: 2700, estimatedStartMs: 3000 });

    runAll(clock);
    expect(rec.starts.slice(2)).toEqual([
      { label: 'i1', at: 1000 },
      { label: 'b1', at: 1300 },
      { label: 'b2', at: 2000 },
      { label: 'b3', at: 2300 },
    ]);
  });

  it('includes the safety margin in its estimates', () => {
    const clock = createFakeClock();
    const limiter = createLimiter({ clock, maxCalls: 1, windowMs: 1000, safetyMarginMs: 25 });
    void limiter.schedule(async () => 0);
    expect(limiter.estimate('bulk')).toEqual({ position: 1, estimatedWaitMs: 1025, estimatedStartMs: 1025 });
  });

  it('does not call onQueued for a job that starts at once', async () => {
    const limiter = createLimiter({ clock: createFakeClock() });
    const onQueued = vi.fn();
    expect(await limiter.schedule(async () => 'now', { onQueued })).toBe('now');
    expect(onQueued).not.toHaveBeenCalled();
  });

  it('reports each start to onStarted with the time waited', () => {
    const clock = createFakeClock();
    const onStarted = vi.fn(() => {
      throw new Error('a broken metrics hook must not matter');
    });
    const limiter = createLimiter({ clock, maxCalls: 1, windowMs: 100, safetyMarginMs: 0, onStarted });
    const task = vi.fn(async () => 'x');
    void limiter.schedule(task, { operation: 'platdzmd' });
    clock.advance(40);
    void limiter.schedule(task, { operation: 'paging-orders', priority: 'bulk' });
    runAll(clock);
    expect(task).toHaveBeenCalledTimes(2);
    expect(onStarted.mock.calls).toEqual([
      [{ priority: 'interactive', waitedMs: 0, operation: 'platdzmd' }],
      [{ priority: 'bulk', waitedMs: 60, operation: 'paging-orders' }],
    ]);
  });
});

describe('createLimiter: cancellation and stop', () => {
  it('removes a queued job whose signal aborts, frees its place and never runs it', async () => {
    const clock = createFakeClock();
    const limiter = createLimiter({ clock, maxCalls: 1, windowMs: 100, safetyMarginMs: 0 });
    const rec = recorder(clock);
    void limiter.schedule(rec.task('running'));
    const controller = new AbortController();
    const a = limiter.schedule(rec.task('a'), { priority: 'bulk' });
    const cancelled = limiter.schedule(rec.task('cancelled'), {
      priority: 'bulk',
      signal: controller.signal,
      operation: 'platiteminfo',
    });
    const c = limiter.schedule(rec.task('c'), { priority: 'bulk' });
    expect(limiter.estimate('bulk').position).toBe(4);

    const reason = new Error('user pressed Cancel');
    controller.abort(reason);
    await expect(cancelled).rejects.toBeInstanceOf(PlatAbortedError);
    await expect(cancelled).rejects.toMatchObject({
      code: 'aborted',
      operation: 'platiteminfo',
      cause: reason,
    });
    expect(limiter.stats().queued.bulk).toBe(2);
    expect(limiter.estimate('bulk')).toMatchObject({ position: 3, estimatedWaitMs: 300 });

    runAll(clock);
    expect(await Promise.all([a, c])).toEqual(['a', 'c']);
    expect(rec.starts).toEqual([
      { label: 'running', at: 0 },
      { label: 'a', at: 100 },
      { label: 'c', at: 200 },
    ]);
  });

  it('refuses a job whose signal is already aborted and clears the timer when the queue empties', async () => {
    const clock = createFakeClock();
    const limiter = createLimiter({ clock, maxCalls: 1 });
    const task = vi.fn(async () => 'x');
    await expect(limiter.schedule(task, { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(
      PlatAbortedError,
    );
    expect(task).not.toHaveBeenCalled();

    void limiter.schedule(task);
    const controller = new AbortController();
    const queued = limiter.schedule(task, { signal: controller.signal });
    expect(clock.pending()).toBe(1);
    controller.abort();
    await expect(queued).rejects.toBeInstanceOf(PlatAbortedError);
    expect(clock.pending()).toBe(0);
  });

  it('leaves a started job alone when its signal aborts', async () => {
    const limiter = createLimiter({ clock: createFakeClock() });
    const controller = new AbortController();
    const running = limiter.schedule(async () => 'sent', { signal: controller.signal });
    controller.abort();
    expect(await running).toBe('sent');
  });

  it('stop() rejects queued jobs, keeps started ones and refuses new work', async () => {
    const clock = createFakeClock();
    const limiter = createLimiter({ clock, maxCalls: 2 });
    const task = vi.fn(async () => 'sent');
    const started = [limiter.schedule(task), limiter.schedule(task)];
    const queued = [
      limiter.schedule(task),
      limiter.schedule(task, { priority: 'bulk', operation: 'platdybw' }),
    ];

    limiter.stop();
    expect(await Promise.all(started)).toEqual(['sent', 'sent']);
    await expect(queued[0]).rejects.toBeInstanceOf(PlatAbortedError);
    await expect(queued[1]).rejects.toMatchObject({ code: 'aborted', operation: 'platdybw' });
    await expect(limiter.schedule(task)).rejects.toBeInstanceOf(PlatAbortedError);
    expect(clock.pending()).toBe(0);
    runAll(clock);
    expect(task).toHaveBeenCalledTimes(2);
    expect(limiter.stats().queued).toEqual({ interactive: 0, bulk: 0 });
  });
});

describe('createLimiter: options', () => {
  it.each([
    { maxCalls: 0 },
    { maxCalls: 1.5 },
    { windowMs: 0 },
    { safetyMarginMs: -1 },
    { maxQueued: -1 },
    { maxQueuedBulk: Number.NaN },
  ])('rejects %o', (options) => {
    expect(() => createLimiter(options)).toThrow(RangeError);
  });
});

describe('createLimiter: real clock', () => {
  it('keeps the sliding bound on actual start times', async () => {
    const maxCalls = 5;
    const windowMs = 100;
    const safetyMarginMs = 5;
    const limiter = createLimiter({ maxCalls, windowMs, safetyMarginMs });
    const starts: number[] = [];
    const begin = performance.now();
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        limiter.schedule(
          async () => {
            starts.push(performance.now());
          },
          { priority: i % 3 === 0 ? 'interactive' : 'bulk' },
        ),
      ),
    );
    const elapsed = Math.max(...starts) - begin;

    expect(starts).toHaveLength(40);
    expect(maxStartsInAnyWindow(starts, windowMs)).toBeLessThanOrEqual(maxCalls);
    // 7 further bursts, each one window + margin after the last; allow timer lateness on top.
    expect(elapsed).toBeGreaterThanOrEqual(7 * (windowMs + safetyMarginMs) - 1);
    expect(elapsed).toBeLessThan(7 * (windowMs + safetyMarginMs) + 250);
  });
});
