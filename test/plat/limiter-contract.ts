/**
 * The Limiter contract (src/plat/limiter.ts), written once and run against every engine
 * (CONVENTIONS 13): the in-process engine on a fake clock, the Redis engine on a real Redis and
 * real time. An engine rig supplies the clock; timing bounds allow the real engine `lateMs` of
 * scheduling delay but never an early start.
 *
 * "At most maxCalls arrivals in a window" is checked as in limiter.test.ts: a request reaches the
 * server somewhere in its call's [start, settle] interval, so no window may meet more than
 * maxCalls intervals.
 */
import { describe, expect, it, vi } from 'vitest';
import { PlatAbortedError, PlatBusyError, PlatUnavailableError } from '../../src/plat/errors.js';
import { type Limiter, type LimiterOptions, PREPARE_LAPSES, type Priority } from '../../src/plat/limiter.js';

export interface EngineRig {
  /** A limiter of this engine, able to grant (ready() awaited). */
  create(options: LimiterOptions): Promise<Limiter>;
  now(): number;
  setTimeout(fn: () => void, ms: number): void;
  /** Lets time pass until the promise settles; returns its outcome. */
  until<T>(promise: Promise<T>): Promise<T>;
  /** Lets `ms` pass. */
  sleep(ms: number): Promise<void>;
  /** How late the engine may start a job after the moment it could (0 on a fake clock). */
  lateMs: number;
  /** Stops every limiter created. */
  cleanup(): Promise<void>;
}

export interface Call {
  label: string;
  priority: Priority;
  start: number;
  settle: number;
}

/** The most calls whose [start, settle] interval meets one half-open window [t, t + spanMs). */
export function maxCallsMeetingAnyWindow(calls: readonly Call[], spanMs: number): number {
  if (calls.some((c) => Number.isNaN(c.settle))) throw new Error('every call must have settled');
  let max = 0;
  for (const { settle: t } of calls) {
    max = Math.max(max, calls.filter((c) => c.settle >= t && c.start < t + spanMs).length);
  }
  return max;
}

/** Deterministic pseudo-random numbers in [0, 1). */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const WINDOW = { windowMs: 200, safetyMarginMs: 20 };
const GAP = WINDOW.windowMs + WINDOW.safetyMarginMs;

export function limiterContract(engine: string, makeRig: () => EngineRig): void {
  describe(`Limiter contract: ${engine}`, () => {
    async function setup(options: LimiterOptions = {}) {
      const rig = makeRig();
      const limiter = await rig.create({ ...WINDOW, ...options });
      const calls: Call[] = [];
      const run = (
        label: string,
        {
          latencyMs = 0,
          fail = false,
          priority = 'interactive' as Priority,
          signal = undefined as AbortSignal | undefined,
        } = {},
      ) =>
        limiter.schedule(
          () =>
            new Promise<string>((resolve, reject) => {
              const call: Call = { label, priority, start: rig.now(), settle: Number.NaN };
              calls.push(call);
              const done = () => {
                call.settle = rig.now();
                if (fail) reject(new Error(`${label} failed`));
                else resolve(label);
              };
              if (latencyMs === 0) done();
              else rig.setTimeout(done, latencyMs);
            }),
          { priority, ...(signal ? { signal } : {}) },
        );
      const startOf = (label: string) => calls.find((c) => c.label === label)?.start ?? Number.NaN;
      return { rig, limiter, calls, run, startOf };
    }

    it('starts maxCalls at once; the next starts a window + margin after a call settled, not before', async () => {
      const { rig, calls, run } = await setup({ maxCalls: 4 });
      try {
        const t0 = rig.now();
        const results = ['a', 'b', 'c', 'd', 'e', 'f'].map((label) => run(label));
        await rig.until(Promise.all(results));
        const first = calls.slice(0, 4);
        for (const c of first) expect(c.start - t0).toBeLessThanOrEqual(rig.lateMs);
        const firstSettle = Math.min(...first.map((c) => c.settle));
        for (const c of calls.slice(4)) {
          expect(c.start - firstSettle).toBeGreaterThanOrEqual(GAP - 1);
          expect(c.start - firstSettle).toBeLessThanOrEqual(GAP + rig.lateMs);
        }
        expect(await Promise.all(results)).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
      } finally {
        await rig.cleanup();
      }
    });

    it('rests a slot from the call’s answer (response headers), not from its settle', async () => {
      const { rig, limiter } = await setup({ maxCalls: 2 });
      try {
        const answeredAfter = 30;
        const settledAfter = 400;
        /** [start, answered]: where each call's arrival lies. */
        const spans: Call[] = [];
        const run = (label: string) =>
          limiter.schedule(
            (progress) =>
              new Promise<string>((resolve) => {
                const span: Call = { label, priority: 'interactive', start: rig.now(), settle: Number.NaN };
                spans.push(span);
                rig.setTimeout(() => {
                  span.settle = rig.now();
                  progress.answered();
                }, answeredAfter);
                rig.setTimeout(() => resolve(label), settledAfter);
              }),
          );
        const results = ['a', 'b', 'c', 'd'].map(run);
        await rig.until(Promise.all(results));
        const firstAnswer = Math.min(...spans.slice(0, 2).map((s) => s.settle));
        for (const s of spans.slice(2)) {
          expect(s.start - firstAnswer).toBeGreaterThanOrEqual(GAP - 1);
          // Well before a gap after the settles (firstAnswer + 370 + GAP; lateMs ≤ 150).
          expect(s.start - firstAnswer).toBeLessThanOrEqual(GAP + rig.lateMs);
        }
        expect(maxCallsMeetingAnyWindow(spans, WINDOW.windowMs)).toBeLessThanOrEqual(2);
      } finally {
        await rig.cleanup();
      }
    });

    it('runs a job’s prepare once it holds its slot, never more than prepareLeadMs early; its task never before the slot opens', async () => {
      const leadMs = 15;
      const { rig, limiter } = await setup({ maxCalls: 1, prepareLeadMs: leadMs });
      try {
        type Times = { prepared: number; start: number; settle: number };
        const seen = new Map<string, Times>();
        const times = (label: string): Times =>
          seen.get(label) ?? { prepared: Number.NaN, start: Number.NaN, settle: Number.NaN };
        const run = (label: string, prepareMs: number) => {
          const entry = times(label);
          seen.set(label, entry);
          return limiter.schedule(
            () =>
              new Promise<string>((resolve) => {
                entry.start = rig.now();
                rig.setTimeout(() => {
                  entry.settle = rig.now();
                  resolve(label);
                }, 10);
              }),
            {
              prepare: () =>
                new Promise<void>((resolve) => {
                  entry.prepared = rig.now();
                  rig.setTimeout(resolve, prepareMs);
                }),
            },
          );
        };
        // b prepares in less than the lead, c in more: c's task starts when its preparation ends.
        const results = [run('a', 0), run('b', 5), run('c', 40)];
        expect(await rig.until(Promise.all(results))).toEqual(['a', 'b', 'c']);
        for (const [job, previous, prepareMs] of [
          [times('b'), times('a'), 5],
          [times('c'), times('b'), 40],
        ] as const) {
          const opens = previous.settle + GAP;
          expect(job.prepared).toBeGreaterThanOrEqual(opens - leadMs - 1);
          expect(job.prepared).toBeLessThanOrEqual(opens + rig.lateMs);
          expect(job.start).toBeGreaterThanOrEqual(opens - 1);
          // (−1: a real timer counts from the loop's cached time and may fire a little early.)
          expect(job.start).toBeGreaterThanOrEqual(job.prepared + prepareMs - 1);
          expect(job.start).toBeLessThanOrEqual(Math.max(opens, job.prepared + prepareMs) + rig.lateMs);
        }
      } finally {
        await rig.cleanup();
      }
    });

    it('a preparation that outlasts prepareDeadlineMs sends nothing on that grant: the job is granted again, prepares again, and its call leaves within the deadline of that grant', async () => {
      const deadlineMs = 60;
      const { rig, limiter, calls, run } = await setup({ maxCalls: 1, prepareDeadlineMs: deadlineMs });
      try {
        /** When each of the job's preparations began (each begins on a grant). */
        const prepared: number[] = [];
        let sentAt = Number.NaN;
        const slow = limiter.schedule(
          () => {
            sentAt = rig.now();
            return new Promise<string>((resolve) => rig.setTimeout(() => resolve('slow'), 10));
          },
          {
            // The first preparation waits 400 ms (a row lock, a pool connection); later ones none.
            prepare: () =>
              new Promise<void>((resolve) => {
                prepared.push(rig.now());
                rig.setTimeout(resolve, prepared.length === 1 ? 400 : 0);
              }),
          },
        );
        const after = run('after');
        expect(await rig.until(Promise.all([slow, after]))).toEqual(['slow', 'after']);
        expect(prepared).toHaveLength(2);
        const lastGrant = prepared.at(-1) ?? Number.NaN;
        // Sent on its second grant, soon after it: never 400 ms after the first one.
        expect(sentAt - lastGrant).toBeLessThanOrEqual(deadlineMs + rig.lateMs);
        expect(sentAt).toBeGreaterThanOrEqual(lastGrant);
        expect((prepared[1] ?? 0) - (prepared[0] ?? 0)).toBeGreaterThanOrEqual(deadlineMs - 1);
        // The first grant was given back at its deadline and rested: one call per window still.
        expect(calls.map((c) => c.label)).toEqual(['after']);
        expect(Math.abs((calls[0]?.start ?? 0) - sentAt)).toBeGreaterThanOrEqual(GAP - 1);
      } finally {
        await rig.cleanup();
      }
    });

    it('a job whose preparation outlasts every grant is refused with PlatUnavailableError after PREPARE_LAPSES grants, unsent', async () => {
      const deadlineMs = 40;
      const { rig, limiter, calls, run } = await setup({ maxCalls: 1, prepareDeadlineMs: deadlineMs });
      try {
        let prepares = 0;
        let ran = false;
        const stuck = limiter.schedule(
          async () => {
            ran = true;
            return 'sent';
          },
          {
            prepare: () =>
              new Promise<void>((resolve) => {
                prepares += 1;
                rig.setTimeout(resolve, 3 * deadlineMs);
              }),
          },
        );
        const [outcome] = await rig.until(Promise.allSettled([stuck]));
        expect(outcome?.status).toBe('rejected');
        expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(PlatUnavailableError);
        expect(ran).toBe(false);
        expect(prepares).toBe(PREPARE_LAPSES);
        // Its grants were given back: the next job gets a slot.
        expect(await rig.until(run('next'))).toBe('next');
        expect(calls.map((c) => c.label)).toEqual(['next']);
      } finally {
        await rig.cleanup();
      }
    });

    it('a rejected prepare sends nothing: the task never runs, the caller gets the error, the slot rests', async () => {
      const { rig, limiter, calls, run, startOf } = await setup({ maxCalls: 1 });
      try {
        const lost = new Error('claim lost');
        let ran = false;
        const refused = limiter.schedule(
          async () => {
            ran = true;
            return 'sent';
          },
          { prepare: () => Promise.reject(lost) },
        );
        const refusedAt = rig.now();
        const after = run('after');
        const [a, b] = await rig.until(Promise.allSettled([refused, after]));
        expect(a).toEqual({ status: 'rejected', reason: lost });
        expect(b).toEqual({ status: 'fulfilled', value: 'after' });
        expect(ran).toBe(false);
        expect(calls.map((c) => c.label)).toEqual(['after']);
        expect(startOf('after') - refusedAt).toBeGreaterThanOrEqual(GAP - 1);
      } finally {
        await rig.cleanup();
      }
    });

    it('never lets more than maxCalls calls meet one window, bulk work never more than maxCalls − reserve', async () => {
      const { rig, calls, run } = await setup({ maxCalls: 5, interactiveReserve: 2 });
      try {
        const random = seeded(11);
        const results: Promise<string>[] = [];
        for (let i = 0; i < 30; i++) {
          const arrival = i < 12 ? 0 : Math.floor(random() * 600);
          const priority: Priority = random() < 0.4 ? 'interactive' : 'bulk';
          const latencyMs = Math.floor(random() * 60);
          rig.setTimeout(() => results.push(run(`c${i}`, { priority, latencyMs })), arrival);
        }
        await rig.sleep(650);
        await rig.until(Promise.all(results));
        expect(results).toHaveLength(30);
        expect(calls).toHaveLength(30);
        expect(maxCallsMeetingAnyWindow(calls, WINDOW.windowMs)).toBeLessThanOrEqual(5);
        const bulk = calls.filter((c) => c.priority === 'bulk');
        expect(bulk.length).toBeGreaterThan(10);
        expect(maxCallsMeetingAnyWindow(bulk, WINDOW.windowMs)).toBeLessThanOrEqual(3);
      } finally {
        await rig.cleanup();
      }
    });

    it('starts a waiting interactive job before bulk jobs queued earlier, using the reserve at once', async () => {
      const { rig, calls, run, startOf } = await setup({ maxCalls: 3, interactiveReserve: 1 });
      try {
        const bulk = ['b0', 'b1', 'b2', 'b3'].map((label) => run(label, { priority: 'bulk', latencyMs: 50 }));
        await rig.sleep(20);
        const i0 = run('i0', { latencyMs: 50 });
        const i1 = run('i1', { latencyMs: 50 });
        await rig.until(Promise.all([...bulk, i0, i1]));
        // Bulk took 2 of 3 slots; i0 took the reserved one at once; i1 waited and went first.
        expect(startOf('i0') - startOf('b0')).toBeLessThanOrEqual(20 + rig.lateMs);
        expect(calls.map((c) => c.label)).toEqual(['b0', 'b1', 'i0', 'i1', 'b2', 'b3']);
        expect(startOf('i1')).toBeLessThanOrEqual(startOf('b2'));
      } finally {
        await rig.cleanup();
      }
    });

    it('refuses past the queue bound with PlatBusyError and a wait estimate, sending nothing', async () => {
      const { rig, limiter, calls, run } = await setup({ maxCalls: 1, maxQueued: 2 });
      try {
        const running = run('running', { latencyMs: 100 });
        await rig.sleep(20); // the Redis engine grants asynchronously
        const queued = [run('q1'), run('q2')];
        const task = vi.fn(async () => 'never');
        const refused = limiter.schedule(task, { operation: 'platiteminfo' });
        await expect(refused).rejects.toBeInstanceOf(PlatBusyError);
        await expect(refused).rejects.toMatchObject({ code: 'busy', operation: 'platiteminfo' });
        const error = (await refused.catch((e: unknown) => e)) as PlatBusyError;
        expect(error.estimatedWaitMs).toBeGreaterThan(0);
        expect(limiter.stats()).toMatchObject({ refused: 1, queued: { interactive: 2, bulk: 0 } });
        await rig.until(Promise.all([running, ...queued]));
        expect(task).not.toHaveBeenCalled();
        expect(calls.map((c) => c.label)).toEqual(['running', 'q1', 'q2']);
        expect(limiter.stats()).toMatchObject({ started: 3, queued: { interactive: 0, bulk: 0 } });
      } finally {
        await rig.cleanup();
      }
    });

    it('estimates a place in line and a wait from the jobs queued ahead', async () => {
      const { rig, limiter, run } = await setup({ maxCalls: 1 });
      try {
        expect(limiter.estimate()).toMatchObject({ position: 1, estimatedWaitMs: 0 });
        const running = run('running', { latencyMs: 50 });
        await rig.sleep(20);
        const queued = [run('q1'), run('q2', { priority: 'bulk' })];
        expect(limiter.estimate('interactive').position).toBe(2);
        expect(limiter.estimate('bulk').position).toBe(3);
        expect(limiter.estimate('interactive').estimatedWaitMs).toBeGreaterThan(0);
        expect(limiter.estimate('bulk').estimatedWaitMs).toBeGreaterThan(limiter.estimate().estimatedWaitMs);
        await rig.until(Promise.all([running, ...queued]));
      } finally {
        await rig.cleanup();
      }
    });

    it('rejects with the task’s error; a failed or throwing task holds and frees its slot the same way', async () => {
      const { rig, limiter, calls, run, startOf } = await setup({ maxCalls: 1 });
      try {
        const failure = new Error('boom');
        const failed = run('failed', { latencyMs: 30, fail: true });
        const thrown = limiter.schedule(() => {
          throw failure;
        });
        const after = run('after');
        const outcomes = Promise.allSettled([failed, thrown, after]);
        const [a, b, c] = await rig.until(outcomes);
        expect(a).toMatchObject({ status: 'rejected', reason: { message: 'failed failed' } });
        expect(b).toEqual({ status: 'rejected', reason: failure });
        expect(c).toEqual({ status: 'fulfilled', value: 'after' });
        // failed settled at +30 → the throwing task a gap later → 'after' a gap after that
        const failedSettle = calls[0]?.settle ?? Number.NaN;
        expect(startOf('after') - failedSettle).toBeGreaterThanOrEqual(2 * GAP - 1);
        expect(limiter.stats().started).toBe(3);
      } finally {
        await rig.cleanup();
      }
    });

    it('removes a queued job whose signal aborts and never runs it', async () => {
      const { rig, calls, run } = await setup({ maxCalls: 1 });
      try {
        const running = run('running', { latencyMs: 50 });
        const controller = new AbortController();
        const cancelled = run('cancelled', { signal: controller.signal });
        const next = run('next');
        controller.abort(new Error('user pressed Cancel'));
        await expect(cancelled).rejects.toBeInstanceOf(PlatAbortedError);
        await rig.until(Promise.all([running, next]));
        expect(calls.map((c) => c.label)).toEqual(['running', 'next']);
      } finally {
        await rig.cleanup();
      }
    });

    it('stop() rejects queued jobs, lets started ones finish and refuses new work', async () => {
      const { rig, limiter, calls, run } = await setup({ maxCalls: 2 });
      try {
        const started = [run('s1', { latencyMs: 50 }), run('s2', { latencyMs: 50 })];
        await rig.sleep(20);
        const queued = [run('q1'), run('q2', { priority: 'bulk' })];
        const stopped = limiter.stop();
        await expect(queued[0]).rejects.toBeInstanceOf(PlatAbortedError);
        await expect(queued[1]).rejects.toBeInstanceOf(PlatAbortedError);
        await expect(run('late')).rejects.toBeInstanceOf(PlatAbortedError);
        expect(await rig.until(Promise.all(started))).toEqual(['s1', 's2']);
        await rig.until(stopped);
        expect(calls.map((c) => c.label)).toEqual(['s1', 's2']);
      } finally {
        await rig.cleanup();
      }
    });

    it('reports each start to onStarted with its priority and the time it waited', async () => {
      const onStarted = vi.fn((_info: unknown) => undefined);
      const { rig, run } = await setup({ maxCalls: 1, onStarted });
      try {
        await rig.until(Promise.all([run('a'), run('b', { priority: 'bulk' })]));
        expect(onStarted).toHaveBeenCalledTimes(2);
        const [first, second] = onStarted.mock.calls.map(
          ([info]) => info as { priority: Priority; waitedMs: number },
        );
        expect(first).toMatchObject({ priority: 'interactive' });
        expect(first?.waitedMs).toBeLessThanOrEqual(rig.lateMs);
        expect(second).toMatchObject({ priority: 'bulk' });
        expect(second?.waitedMs).toBeGreaterThanOrEqual(GAP - 1);
      } finally {
        await rig.cleanup();
      }
    });

    it('is healthy and ready', async () => {
      const { rig, limiter } = await setup();
      try {
        await rig.until(limiter.ready());
        expect(limiter.health()).toEqual({ ok: true });
      } finally {
        await rig.cleanup();
      }
    });
  });
}
