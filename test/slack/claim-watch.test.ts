/**
 * Several processes on one database (issue 10): each keeps its own claims held by renewing their
 * leases, and finds on its schedule the claims of a process on another host that stopped renewing
 * (no pid check is possible there): that lookup is marked interrupted once and its user told once,
 * however many processes watch. A claim whose holder renews is never touched.
 */

import { WebClient } from '@slack/web-api';
import { afterAll, describe, expect, it } from 'vitest';
import { currentInstance } from '../../src/instance.js';
import { createLogger } from '../../src/logger.js';
import { createClaimWatch } from '../../src/slack/interrupted-lookups.js';
import type { Store } from '../../src/store/store.js';
import { textOf } from '../helpers/platdesk-harness.js';
import { type FakeSlack, startSlackApiServer } from '../helpers/slack-api-server.js';
import { openTestStore } from '../helpers/store-engines.js';
import { en } from '../helpers/words.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe('claim watch across processes sharing a database', () => {
  let fake: FakeSlack | undefined;
  const stores: Store[] = [];
  afterAll(async () => {
    for (const s of stores) s.close();
    await fake?.close();
  });

  it('tells the user of a claim whose holder stopped renewing, once; a renewing holder keeps its claim', async () => {
    fake = await startSlackApiServer();
    const client = new WebClient('xoxb-test', { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });
    const logger = createLogger('silent');
    const store = await openTestStore(':memory:');
    stores.push(store);
    const newPending = async (userId: string) =>
      await store.pending.create({
        userId,
        channelId: null,
        teamId: null,
        request: {
          kind: 'item',
          itemId: userId === 'UCUT' ? '680000000001' : '680000000002',
          withPrices: false,
        },
        quote: {},
        summary: `item of ${userId}`,
        responseUrl: null,
        ttlMs: 60_000,
      });

    // Two live processes on this host (the watchers: this one, and one standing for its parent,
    // which is alive) and one on a host that then went silent.
    const me = currentInstance();
    const sibling = {
      ...me,
      id: me.id.replace(`/${process.pid}/`, `/${process.ppid}/`).replace(/[^/]+$/, 'sibling'),
      pid: process.ppid,
    };
    const watchers = [me, sibling].map((instance) => {
      const holder = { instanceId: instance.id, leaseMs: 1000 };
      const watch = createClaimWatch({
        store,
        client,
        // The users are told in English here (the harness tests cover the languages).
        language: { user: async () => en },
        logger,
        instance,
        holder,
        now: () => new Date(),
        longestCallMs: 200,
        everyMs: 20,
      });
      return { holder, watch };
    });
    const [a, b] = watchers;
    if (!a || !b) throw new Error('two watchers');
    const silent = { instanceId: 'another-host/4242/gone', leaseMs: 1000 };
    const cut = await newPending('UCUT');
    const held = await newPending('UHELD');
    expect((await store.pending.claim(cut.id, 'UCUT', silent)).ok).toBe(true);
    expect((await store.pending.claim(held.id, 'UHELD', a.holder)).ok).toBe(true);

    // Within its lease the silent holder's claim is left alone (it may be alive).
    expect(await a.watch.sweep()).toEqual([]);
    for (const w of watchers) w.watch.start();
    try {
      const told = await fake.waitFor('chat.postMessage', (c) => c.body.channel === 'UCUT', 5000);
      // What was cut is worded from its request (the stored summary is only for logs).
      expect(textOf(told.body)).toContain('Your lookup of item 680000000001');
      expect(textOf(told.body)).toContain('before its call was sent, so nothing was charged');
      expect((await store.pending.get(cut.id))?.state).toBe('interrupted');
      // Several beats later: told once in all, and the renewed claim is still held and running.
      await sleep(400);
    } finally {
      for (const w of watchers) w.watch.stop();
    }
    expect(fake.callsTo('chat.postMessage').filter((c) => c.body.channel === 'UCUT')).toHaveLength(1);
    expect(fake.callsTo('chat.postMessage').filter((c) => c.body.channel === 'UHELD')).toEqual([]);
    const kept = await store.pending.get(held.id);
    expect(kept?.state).toBe('running');
    expect(kept?.leaseExpiresAt?.getTime()).toBeGreaterThan(Date.now());
  });
});
