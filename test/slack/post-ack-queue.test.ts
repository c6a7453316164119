/**
 * The post-ack job queue of the early ack (src/slack/early-ack.ts createPostAckQueue): jobs start
 * in a quiet event-loop turn (no new request, no command half read) within a turn's time budget,
 * and in a busy turn only once held `maxHoldMs`, so a steady stream cannot starve them. The clock
 * is a counter each job moves on, as its synchronous work would.
 */
import { describe, expect, it } from 'vitest';
import { createPostAckQueue } from '../../src/slack/early-ack.js';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

function queueWith(maxHoldMs: number, jobMs: number) {
  const clock = { now: 0 };
  const ran: number[] = [];
  const errors: unknown[] = [];
  const queue = createPostAckQueue({
    maxHoldMs,
    turnBudgetMs: 10,
    now: () => clock.now,
    onError: (e) => errors.push(e),
  });
  const push = (n: number) =>
    queue.push(async () => {
      clock.now += jobMs;
      ran.push(n);
    });
  return { clock, ran, errors, queue, push };
}

describe('post-ack jobs', () => {
  it('start in order in a quiet turn, as many as the turn budget allows (at least one)', async () => {
    const q = queueWith(10_000, 4);
    for (let i = 0; i < 5; i++) q.push(i);
    await turn();
    expect(q.ran).toEqual([0, 1, 2]);
    await turn();
    expect(q.ran).toEqual([0, 1, 2, 3, 4]);
    expect(q.queue.size()).toBe(0);

    const slow = queueWith(10_000, 50);
    slow.push(0);
    slow.push(1);
    await turn();
    expect(slow.ran).toEqual([0]);
  });

  it('wait while requests arrive or a command is being read', async () => {
    const q = queueWith(10_000, 1);
    q.push(0);
    for (let i = 0; i < 5; i++) {
      q.queue.arrived();
      await turn();
    }
    expect(q.ran).toEqual([]);
    q.queue.readingStarted();
    for (let i = 0; i < 5; i++) await turn();
    expect(q.ran).toEqual([]);
    q.queue.readingDone();
    for (let i = 0; i < 2; i++) await turn();
    expect(q.ran).toEqual([0]);
  });

  it('start anyway in busy turns once held maxHoldMs (a steady stream cannot starve them)', async () => {
    const q = queueWith(50, 0);
    q.push(0);
    q.push(1);
    q.queue.readingStarted();
    for (let i = 0; i < 3; i++) await turn();
    expect(q.ran).toEqual([]);
    q.clock.now = 50;
    for (let i = 0; i < 3; i++) await turn();
    expect(q.ran).toEqual([0, 1]);
    // A job pushed now is not overdue: it waits while the command is still being read.
    q.push(2);
    for (let i = 0; i < 3; i++) await turn();
    expect(q.ran).toEqual([0, 1]);
  });

  it('a job that fails is reported and the next one still runs', async () => {
    const q = queueWith(10_000, 1);
    q.queue.push(async () => {
      throw new Error('boom');
    });
    q.push(1);
    for (let i = 0; i < 3; i++) await turn();
    expect(q.ran).toEqual([1]);
    expect(String(q.errors[0])).toContain('boom');
  });
});
