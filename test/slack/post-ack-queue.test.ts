/**
 * The post-ack job queue of the early ack (src/slack/early-ack.ts createPostAckQueue): jobs run
 * one per event-loop turn, only in a turn with no new request and no command half read, and at
 * most `maxHoldMs` late while requests keep coming.
 */
import { describe, expect, it } from 'vitest';
import { createPostAckQueue } from '../../src/slack/early-ack.js';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('post-ack jobs', () => {
  it('run one per turn, in order, once the server is quiet', async () => {
    const ran: number[] = [];
    const queue = createPostAckQueue({ maxHoldMs: 10_000, onError: () => undefined });
    for (let i = 0; i < 3; i++) queue.push(async () => void ran.push(i));
    await turn();
    expect(ran).toEqual([0]);
    await turn();
    await turn();
    expect(ran).toEqual([0, 1, 2]);
    expect(queue.size()).toBe(0);
  });

  it('wait while requests arrive or a command is being read', async () => {
    const ran: string[] = [];
    const queue = createPostAckQueue({ maxHoldMs: 10_000, onError: () => undefined });
    queue.push(async () => void ran.push('job'));
    for (let i = 0; i < 5; i++) {
      queue.arrived();
      await turn();
    }
    expect(ran).toEqual([]);
    queue.readingStarted();
    for (let i = 0; i < 5; i++) await turn();
    expect(ran).toEqual([]);
    queue.readingDone();
    await turn();
    await turn();
    expect(ran).toEqual(['job']);
  });

  it('run anyway, one per turn, once held past maxHoldMs (a steady stream cannot starve them)', async () => {
    let clock = 0;
    const ran: number[] = [];
    const queue = createPostAckQueue({ maxHoldMs: 50, now: () => clock, onError: () => undefined });
    queue.push(async () => void ran.push(1));
    queue.push(async () => void ran.push(2));
    queue.readingStarted();
    await turn();
    expect(ran).toEqual([]);
    await turn();
    expect(ran).toEqual([]);
    clock = 50;
    for (let i = 0; i < 4; i++) await turn();
    expect(ran).toEqual([1, 2]);
  });

  it('a job that fails is reported and the next one still runs', async () => {
    const errors: unknown[] = [];
    const ran: string[] = [];
    const queue = createPostAckQueue({ maxHoldMs: 10_000, onError: (e) => errors.push(e) });
    queue.push(async () => {
      throw new Error('boom');
    });
    queue.push(async () => void ran.push('next'));
    for (let i = 0; i < 3; i++) await turn();
    expect(ran).toEqual(['next']);
    expect(String(errors[0])).toContain('boom');
  });
});
