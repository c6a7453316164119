/**
 * The digest scheduler with everything real except time: the plat client stack against the
 * in-process sandbox (its orders anchored at the fake clock's start), a SQLite store (private or
 * a file shared by several instances), the Slack publisher and AdminAlerts on a real WebClient
 * pointed at the fake Slack Web API server. Time moves only through the fake clock.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebClient } from '@slack/web-api';
import type { AlertPublisher } from '../../src/alerts/types.js';
import {
  createDigestScheduler,
  type DigestScheduler,
  type DigestSchedulerOptions,
} from '../../src/digest/scheduler.js';
import type { PriceOf } from '../../src/digest/types.js';
import { createLogger } from '../../src/logger.js';
import { createAdminAlerts } from '../../src/slack/admin-alerts.js';
import { createSlackAlertPublisher } from '../../src/slack/alerts/publisher.js';
import { createSlackDigestPublisher } from '../../src/slack/digest/publisher.js';
import { createChargeRecorder } from '../../src/store/ledger.js';
import type { DigestSubscription, Store } from '../../src/store/store.js';
import { createFakeClock, type FakeClock } from '../helpers/fake-clock.js';
import { type PlatHarness, type PlatHarnessOptions, startPlatHarness } from '../helpers/plat-harness.js';
import { type FakeSlack, type SlackCall, startSlackApiServer } from '../helpers/slack-api-server.js';
import { SLACK } from '../helpers/slack-payloads.js';
import {
  alertsSentInMemory,
  type EngineName,
  openTestStore,
  testDatabase,
} from '../helpers/store-engines.js';
import { en } from '../helpers/words.js';

export const CHANNEL = SLACK.channelId;
export const ADMIN = SLACK.adminId;

export interface RigOptions {
  /** Fake clock start (ms); the sandbox's orders are the 72 h before it. */
  start: number;
  /** A SQLite file shared by every instance; default: each instance its own ':memory:'. */
  shared?: boolean;
  /** A fresh database of this engine shared by every instance (instead of `shared`). */
  engine?: EngineName;
  /** Past this a digest or alert post is unknown (publisher postTimeoutMs). */
  postTimeoutMs?: number;
  plat?: Omit<PlatHarnessOptions, 'sandbox'>;
}

export interface Instance {
  store: Store;
  scheduler: DigestScheduler;
}

export interface DigestRig {
  clock: FakeClock;
  plat: PlatHarness;
  fake: FakeSlack;
  /** The WebClient the publishers use (no automatic retries). */
  slack: WebClient;
  /** The ship-by alert publisher on the same client (for alert schedulers built beside the digest one). */
  alertPublisher: AlertPublisher;
  /** The first instance (created by startDigestRig). */
  store: Store;
  scheduler: DigestScheduler;
  /** Another scheduler (another "process") on the shared file, or on `store` when not shared. */
  instance(id: string, options?: Partial<DigestSchedulerOptions> & { store?: Store }): Promise<Instance>;
  /** Moves the fake clock in steps of at most `step`, waiting for runs in flight after each. */
  advance(ms: number, step?: number): Promise<void>;
  /** Every scheduler's runs settled. */
  idle(): Promise<void>;
  /** chat.postMessage calls to a channel (a user id for DMs). */
  posts(channel?: string): SlackCall[];
  updates(channel?: string): SlackCall[];
  pagesFetched(): number;
  subscribe(input?: Partial<Omit<DigestSubscription, 'id' | 'createdAt'>>): Promise<DigestSubscription>;
  close(): Promise<void>;
}

export const quietLogger = () => createLogger('silent');

export async function startDigestRig(
  options: RigOptions & { price?: PriceOf; scheduler?: Partial<DigestSchedulerOptions> },
): Promise<DigestRig> {
  const clock = createFakeClock(options.start);
  const plat = await startPlatHarness({
    limiter: { maxCalls: 100 },
    ...options.plat,
    sandbox: { now: () => clock.now() },
  });
  // Message ts values on the fake clock, as Slack's follow real time.
  const fake = await startSlackApiServer({ now: () => clock.now() });
  const slack = new WebClient('xoxb-test', { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });
  const logger = quietLogger();
  const admins = async () => [ADMIN];
  // Every admin and channel reads English here; test/slack/i18n.test.ts covers the languages.
  const language = { user: async () => en, channel: async () => en };
  const alerts = createAdminAlerts({ client: slack, admins, language, logger, sent: alertsSentInMemory() });
  const timeout = options.postTimeoutMs !== undefined ? { postTimeoutMs: options.postTimeoutMs } : {};
  const publisher = createSlackDigestPublisher({
    client: slack,
    alerts,
    admins,
    language,
    logger,
    ...timeout,
  });
  const alertPublisher = createSlackAlertPublisher({
    client: slack,
    alerts,
    admins,
    language,
    logger,
    ...timeout,
  });
  const database = options.engine ? await testDatabase(options.engine) : null;
  const dir = options.shared && !database ? mkdtempSync(join(tmpdir(), 'platdesk-digest-')) : null;
  const path = dir ? join(dir, 'platdesk.sqlite') : ':memory:';
  const stores: Store[] = [];
  const schedulers: DigestScheduler[] = [];
  const openStore = async () => {
    const store = database
      ? await database.open({ clock: { now: () => clock.now() } })
      : await openTestStore(path, { now: () => new Date(clock.now()) });
    stores.push(store);
    return store;
  };

  async function instance(
    id: string,
    extra: Partial<DigestSchedulerOptions> & { store?: Store } = {},
  ): Promise<Instance> {
    const store = extra.store ?? (dir || database ? await openStore() : first.store);
    const scheduler = createDigestScheduler({
      client: plat.client,
      store,
      publisher,
      priceOf: options.price ?? (async () => null),
      charges: createChargeRecorder({ ledger: store.ledger, logger }),
      clock,
      instanceId: id,
      logger,
      ...options.scheduler,
      ...extra,
    });
    schedulers.push(scheduler);
    return { store, scheduler };
  }
  const first = { store: await openStore() } as Instance;
  first.scheduler = (await instance('instance-a', { store: first.store })).scheduler;

  const idle = async () => {
    // A run that ends may arm a timer that starts another: settle until nothing is in flight.
    for (let i = 0; i < 3; i++) await Promise.all(schedulers.map((s) => s.idle()));
  };

  return {
    clock,
    plat,
    fake,
    slack,
    alertPublisher,
    store: first.store,
    scheduler: first.scheduler,
    instance,
    async advance(ms, step = 60_000) {
      const end = clock.now() + ms;
      while (clock.now() < end) {
        await clock.advanceToAsync(Math.min(end, clock.now() + step));
        await idle();
      }
    },
    idle,
    posts: (channel = CHANNEL) => fake.callsTo('chat.postMessage').filter((c) => c.body.channel === channel),
    updates: (channel = CHANNEL) => fake.callsTo('chat.update').filter((c) => c.body.channel === channel),
    pagesFetched: () => plat.sandbox.stats().callsByOperation['paging-orders'],
    subscribe: (input = {}) =>
      first.store.digests.add({
        ownerId: '2200001002',
        shopLabel: 'tea',
        channelId: CHANNEL,
        localTime: '09:00',
        timeZone: 'Asia/Shanghai',
        createdBy: ADMIN,
        ...input,
      }),
    async close() {
      await Promise.all(schedulers.map((s) => s.stop()));
      await plat.close();
      await fake.close();
      if (database) await database.dispose();
      else for (const store of stores) await store.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Every text of a recorded Slack call's message. */
export function messageText(call: SlackCall): string {
  return `${String(call.body.text ?? '')}\n${JSON.stringify(call.body.blocks ?? [])}`;
}
