/**
 * The digest scheduler with everything real except time: the plat client stack against the
 * in-process sandbox (its orders anchored at the fake clock's start), a store on either engine
 * (one per instance when shared, as separate processes would have), the Slack publisher and
 * AdminAlerts on a real WebClient pointed at the fake Slack Web API server. Time moves only
 * through the fake clock, which waits for every scheduler to go idle between two timers.
 */

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
import { LIMITED_READ_PAGE_SIZE, storeReadBudget } from '../../src/slack/read-budget.js';
import { limitedReads } from '../../src/slack/scheduled-posts.js';
import { createChargeRecorder } from '../../src/store/ledger.js';
import type { DigestSubscription, Store } from '../../src/store/store.js';
import { createFakeClock, type FakeClock } from '../helpers/fake-clock.js';
import { type PlatHarness, type PlatHarnessOptions, startPlatHarness } from '../helpers/plat-harness.js';
import { type FakeSlack, type SlackCall, startSlackApiServer } from '../helpers/slack-api-server.js';
import { SLACK } from '../helpers/slack-payloads.js';
import { alertsSentInMemory, type EngineName, testDatabase } from '../helpers/store-engines.js';
import { en } from '../helpers/words.js';

export const CHANNEL = SLACK.channelId;
export const ADMIN = SLACK.adminId;

export interface RigOptions {
  /** Fake clock start (ms); the sandbox's orders are the 72 h before it. */
  start: number;
  /** The store engine (default SQLite); one fresh database, dropped on close. */
  engine?: EngineName;
  /** Each instance opens its own store on the database; default: they share the first store. */
  shared?: boolean;
  /** Past this a digest or alert post is unknown (publisher postTimeoutMs). */
  postTimeoutMs?: number;
  /**
   * Slack's limited read tier (issue 33 finding 10): the publishers read 15 messages a request
   * within a per-workspace allowance kept in the store (slack/read-budget.ts, on the fake clock),
   * and the stand-in enforces 1 request a minute and 15 messages a page.
   */
  limitedReads?: boolean;
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
  /** Another scheduler (another "process") with its own store when shared, else on `store`. */
  instance(id: string, options?: Partial<DigestSchedulerOptions> & { store?: Store }): Promise<Instance>;
  /** Moves the fake clock, each timer at its time with every scheduler idle in between. */
  advance(ms: number): Promise<void>;
  /** Every scheduler's runs settled. */
  idle(): Promise<void>;
  /** chat.postMessage calls to a channel (a user id for DMs), the digests' chart replies left out. */
  posts(channel?: string): SlackCall[];
  /** The chart replies (slack_file image messages) posted to a channel. */
  charts(channel?: string): SlackCall[];
  updates(channel?: string): SlackCall[];
  pagesFetched(): number;
  subscribe(input?: Partial<Omit<DigestSubscription, 'id' | 'createdAt'>>): Promise<DigestSubscription>;
  close(): Promise<void>;
}

export const quietLogger = () => createLogger('silent');

/** A digest's chart reply (issue 26): a slack_file image message. */
const isChart = (c: SlackCall) => JSON.stringify(c.body.blocks ?? '').includes('"slack_file"');

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
  const db = await testDatabase(options.engine ?? 'sqlite');
  const schedulers: DigestScheduler[] = [];
  const openStore = () => db.open({ clock: { now: () => clock.now() } });
  const readStore = options.limitedReads ? await openStore() : null;
  if (options.limitedReads) fake.limitReads({ perMinute: 1, pageSize: LIMITED_READ_PAGE_SIZE });
  const reads = readStore
    ? {
        reads: limitedReads(
          storeReadBudget({ turns: readStore.turns, tenant: '', holder: 'rig', now: () => clock.now() }),
        ),
      }
    : {};
  const publisher = createSlackDigestPublisher({
    client: slack,
    alerts,
    admins,
    language,
    logger,
    ...timeout,
    ...reads,
  });
  const alertPublisher = createSlackAlertPublisher({
    client: slack,
    alerts,
    admins,
    language,
    logger,
    ...timeout,
    ...reads,
  });

  async function instance(
    id: string,
    extra: Partial<DigestSchedulerOptions> & { store?: Store } = {},
  ): Promise<Instance> {
    const store = extra.store ?? (options.shared ? await openStore() : first.store);
    const scheduler = createDigestScheduler({
      client: plat.client,
      store,
      publisher,
      priceOf: options.price ?? (async () => null),
      charges: createChargeRecorder({ ledger: store.ledger, logger }),
      clock,
      instanceId: id,
      logger,
      // Every due time, retry and lease expiry is a deadline of its own (wake-loop.ts): the
      // longest sleep only bounds how late work added elsewhere is seen. A quarter hour rather
      // than production's minute makes a three-day advance fire 288 timers, not 4320.
      maxSleepMs: 15 * 60_000,
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
  // Between two timers: the store's answers (a socket round trip on PostgreSQL) are in and the
  // next timers set, so time never jumps past a due time (wake-loop.ts).
  clock.settleWith(idle);

  return {
    clock,
    plat,
    fake,
    slack,
    alertPublisher,
    store: first.store,
    scheduler: first.scheduler,
    instance,
    async advance(ms) {
      await clock.advanceAsync(ms);
      await idle();
    },
    idle,
    posts: (channel = CHANNEL) =>
      fake.callsTo('chat.postMessage').filter((c) => c.body.channel === channel && !isChart(c)),
    charts: (channel = CHANNEL) =>
      fake.callsTo('chat.postMessage').filter((c) => c.body.channel === channel && isChart(c)),
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
      await db.dispose();
    },
  };
}

/** Every text of a recorded Slack call's message. */
export function messageText(call: SlackCall): string {
  return `${String(call.body.text ?? '')}\n${JSON.stringify(call.body.blocks ?? [])}`;
}
