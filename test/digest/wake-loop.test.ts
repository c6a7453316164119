/**
 * The wake loop on absolute deadlines (issue 19 point 4): a plan that answers late (a store round
 * trip over a socket) does not push the timer back by its own delay; a deadline already passed
 * runs at once; something a wake-up could not claim is looked at again a second later, not in a
 * busy loop; and the fake clock, told to wait for the loop, never jumps past a timer about to be
 * set. The plan's "store" answers after real milliseconds, as PostgreSQL would.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createWakeLoop, RETRY_DUE_MS, type WakeLoop } from '../../src/digest/wake-loop.js';
import { createFakeClock, type FakeClock, flushMicrotasks } from '../helpers/fake-clock.js';

const MINUTE = 60_000;
const realDelay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

let loop: WakeLoop | null = null;
afterEach(async () => {
  await loop?.stop();
  loop = null;
});

/** A loop whose plan reads `dueAt` after `ioMs` real milliseconds; records each wake-up's `now`. */
function loopOn(clock: FakeClock, due: { at: number[] }, ioMs = 5) {
  const wakes: number[] = [];
  const l = createWakeLoop({
    clock,
    maxSleepMs: 60 * MINUTE,
    async plan() {
      await realDelay(ioMs);
      return due.at[0] ?? Number.POSITIVE_INFINITY;
    },
    async wake(now) {
      await realDelay(ioMs);
      wakes.push(now);
      due.at = due.at.filter((t) => t > now);
    },
    onError: (error) => {
      throw error;
    },
  });
  loop = l;
  return { loop: l, wakes };
}

describe('wake loop', () => {
  it('sets the timer for the planned instant, however long the plan took', async () => {
    const clock = createFakeClock(0);
    const due = { at: [10 * MINUTE] };
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const wakes: number[] = [];
    loop = createWakeLoop({
      clock,
      maxSleepMs: 60 * MINUTE,
      async plan() {
        // The answer comes only after the clock has moved 4 minutes.
        await gate;
        return due.at[0] ?? Infinity;
      },
      async wake(now) {
        wakes.push(now);
        due.at = due.at.filter((t) => t > now);
      },
      onError: (error) => {
        throw error;
      },
    });
    loop.start();
    await flushMicrotasks();
    // The first wake-up (start) happened at 0; its plan is waiting for the store.
    expect(wakes).toEqual([0]);
    clock.advance(4 * MINUTE);
    release();
    await loop.settled();
    // Counted from when the plan was asked (0 + 10 min), not from when it answered (4 + 10 min).
    expect(loop.nextWakeAt()).toBe(10 * MINUTE);
    clock.advance(6 * MINUTE - 1);
    await loop.settled();
    expect(wakes).toEqual([0]);
    clock.advance(1);
    await loop.settled();
    expect(wakes).toEqual([0, 10 * MINUTE]);
  });

  it('a deadline already passed when the plan answers wakes at once, at the clock’s time', async () => {
    const clock = createFakeClock(0);
    const due = { at: [MINUTE] };
    let answered: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      answered = resolve;
    });
    const wakes: number[] = [];
    loop = createWakeLoop({
      clock,
      maxSleepMs: 60 * MINUTE,
      async plan() {
        await gate;
        return due.at[0] ?? Infinity;
      },
      async wake(now) {
        wakes.push(now);
        due.at = due.at.filter((t) => t > now);
      },
      onError: (error) => {
        throw error;
      },
    });
    loop.start();
    await flushMicrotasks();
    expect(wakes).toEqual([0]);
    clock.advance(3 * MINUTE);
    answered();
    await loop.settled();
    // No timer of a minute counted from 3:00: the wake-up ran at 3:00, when the answer came.
    expect(wakes).toEqual([0, 3 * MINUTE]);
    expect(clock.pending()).toBe(1);
    expect(loop.nextWakeAt()).toBe(3 * MINUTE + 60 * MINUTE);
  });

  it('what the last wake-up saw due and could not claim is looked at again a second later, not in a loop', async () => {
    const clock = createFakeClock(0);
    let plans = 0;
    const wakes: number[] = [];
    loop = createWakeLoop({
      clock,
      maxSleepMs: 60 * MINUTE,
      // Always due since 0: the store keeps refusing the claim.
      plan: async () => {
        plans += 1;
        return 0;
      },
      wake: async (now) => {
        wakes.push(now);
      },
      onError: (error) => {
        throw error;
      },
    });
    loop.start();
    await loop.settled();
    expect(wakes).toEqual([0]);
    expect(plans).toBe(1);
    expect(loop.nextWakeAt()).toBe(RETRY_DUE_MS);
    await clock.advanceAsync(3 * RETRY_DUE_MS);
    await loop.settled();
    expect(wakes).toEqual([0, RETRY_DUE_MS, 2 * RETRY_DUE_MS, 3 * RETRY_DUE_MS]);
  });

  it('work added later whose due time has passed (an alert added mid-slot) wakes at once on arm()', async () => {
    const clock = createFakeClock(0);
    const due = { at: [] as number[] };
    const { loop: l, wakes } = loopOn(clock, due);
    l.start();
    await l.settled();
    clock.advance(20 * MINUTE);
    // Added at 20:00 with its slot at 00:00 (before this loop's last wake-up at 0 too).
    due.at = [0];
    l.arm();
    await l.settled();
    expect(wakes).toEqual([0, 20 * MINUTE]);
  });

  it('a plan that fails is tried again after the longest sleep', async () => {
    const clock = createFakeClock(0);
    const errors: unknown[] = [];
    let calls = 0;
    loop = createWakeLoop({
      clock,
      maxSleepMs: 5 * MINUTE,
      plan: async () => {
        calls += 1;
        throw new Error('store unreachable');
      },
      wake: async () => undefined,
      onError: (error) => errors.push(error),
    });
    loop.start();
    await loop.settled();
    expect(loop.nextWakeAt()).toBe(5 * MINUTE);
    expect(errors).toHaveLength(1);
    expect(calls).toBe(1);
  });

  it('the fake clock waits for the loop between timers: every wake-up at its own due time, with a store answering over real I/O', async () => {
    const dueTimes = [7 * MINUTE, 7 * MINUTE + 30_000, 61 * MINUTE, 62 * MINUTE, 180 * MINUTE];
    // Waiting for the loop: each deadline is met exactly.
    const clock = createFakeClock(0);
    const settled = loopOn(clock, { at: [...dueTimes] });
    clock.settleWith(() => settled.loop.settled());
    settled.loop.start();
    await clock.advanceAsync(4 * 60 * MINUTE);
    for (const t of dueTimes) expect(settled.wakes).toContain(t);
    await settled.loop.stop();

    // Without it (only promise reactions flushed), the clock runs ahead of the store's answer:
    // the first due time is passed before its timer exists, and it runs late.
    const unsettled = createFakeClock(0);
    const late = loopOn(unsettled, { at: [...dueTimes] });
    late.loop.start();
    await unsettled.advanceAsync(4 * 60 * MINUTE);
    await late.loop.settled();
    expect(late.wakes).not.toContain(dueTimes[0]);
  });
});
