/**
 * A rolling update of two replicas under steady traffic (issue 38, point 5), with real processes:
 * the built app (dist/main.js with npm start's flags, as the image runs it) on one PostgreSQL
 * database and one Redis, as deploy/kubernetes rolls it (RollingUpdate, maxSurge 1,
 * maxUnavailable 0): a new replica starts and is put in rotation once /readyz says 200; an old one
 * is taken out of rotation (the endpoints controller, while preStop pauses), then gets SIGTERM and
 * drains. Twice, until both replicas are new.
 *
 * Meanwhile a lookup starts every 250 ms (a slash command to one replica in rotation, its Confirm
 * to the next), each plat call taking 1.5 s at the sandbox, so SIGTERM lands on replicas with
 * calls in flight. Two digests: one already due today (each replica that starts catches it up:
 * only the first may post it) and one due during the rollout. Afterwards: every request was
 * acknowledged (HTTP 200) and answered once; each lookup made exactly one plat call; every call
 * is one ledger row; each digest was posted once; each old replica exited 0 on its own.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realClock } from '../../src/clock.js';
import { createSandbox, SANDBOX_FIXTURES, type Sandbox } from '../../src/sandbox/index.js';
import { openStore } from '../../src/store/engine.js';
import type { Store } from '../../src/store/store.js';
import { confirmationOf, textOf } from '../helpers/platdesk-harness.js';
import { createLimiterKeys, type RedisServer, startRedisServer } from '../helpers/redis-server.js';
import { type Replica, type ReplicaCluster, startReplicaCluster } from '../helpers/replica-cluster.js';
import { type ReplicaSlack, replicaSlack } from '../helpers/replica-slack.js';
import { type FakeSlack, startSlackApiServer } from '../helpers/slack-api-server.js';
import { createPostgresDatabase, dropPostgresDatabase } from '../helpers/store-engines.js';

const ROOT = resolve(import.meta.dirname, '../..');
const SECRET = 'rollout-secret';
const ADMIN = 'U0ROLLADMIN';
const PLAT_TOKEN = 'rollout-test';
/** The channels of the digest due before the replicas start and of the one due during the rollout. */
const CAUGHT_UP_CHANNEL = 'C0ROLLDUE';
const DURING_CHANNEL = 'C0ROLLNEXT';
/** How long each lookup's plat call takes: SIGTERM finds calls in flight. */
const CALL_MS = 1500;
/** The endpoints controller's lag while preStop pauses (deploy/kubernetes says 10 s; short here). */
const PRE_STOP_MS = 500;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const shopOf = (wwid: string) => `No shop was found for seller account *${wwid}*`;

/** HH:MM of an instant in UTC. */
const hhmm = (at: number) => new Date(at).toISOString().slice(11, 16);

interface Lookup {
  wwid: string;
  statuses: number[];
  answers: number;
  error?: string;
}

describe('a rolling update of two replicas under steady traffic', () => {
  let out: string;
  let redis: RedisServer;
  let sandbox: Sandbox;
  let fake: FakeSlack;
  let cluster: ReplicaCluster;
  let slack: ReplicaSlack;
  let databaseUrl: string;
  let store: Store;
  let duringDueAt: number;

  beforeAll(async () => {
    mkdirSync(join(ROOT, 'node_modules/.cache'), { recursive: true });
    out = mkdtempSync(join(ROOT, 'node_modules/.cache/platdesk-rollout-'));
    const { buildApp } = (await import(join(ROOT, 'scripts/build.mjs'))) as {
      buildApp: (out: string) => Promise<unknown>;
    };
    await buildApp(out);
    redis = await startRedisServer();
    await createLimiterKeys(redis.url);
    databaseUrl = await createPostgresDatabase();
    store = await openStore({ url: databaseUrl });
    // Due two minutes ago (today, in UTC: near midnight the test waits for the day to settle).
    while (Date.now() % 86_400_000 < 3 * 60_000 || Date.now() % 86_400_000 > 86_400_000 - 3 * 60_000)
      await sleep(1000);
    // Added three minutes ago (the store's clock), before its time: a run missed while no replica
    // ran, which the first replica to start catches up.
    const earlier = await openStore({
      url: databaseUrl,
      clock: { ...realClock, now: () => Date.now() - 3 * 60_000 },
    });
    await earlier.digests.add({
      ownerId: SANDBOX_FIXTURES.owners.busy,
      shopLabel: SANDBOX_FIXTURES.owners.busy,
      channelId: CAUGHT_UP_CHANNEL,
      localTime: hhmm(Date.now() - 2 * 60_000),
      timeZone: 'UTC',
      createdBy: ADMIN,
    });
    await earlier.close();
    duringDueAt = Math.ceil((Date.now() + 25_000) / 60_000) * 60_000;
    await store.digests.add({
      ownerId: SANDBOX_FIXTURES.owners.busy,
      shopLabel: SANDBOX_FIXTURES.owners.busy,
      channelId: DURING_CHANNEL,
      localTime: hhmm(duringDueAt),
      timeZone: 'UTC',
      createdBy: ADMIN,
    });
    sandbox = createSandbox({ token: PLAT_TOKEN });
    const platUrl = await sandbox.listen(0);
    fake = await startSlackApiServer();
    slack = replicaSlack(fake, SECRET, 'roll');
    cluster = await startReplicaCluster(2, {
      built: out,
      env: {
        SLACK_BOT_TOKEN: 'xoxb-test',
        SLACK_SIGNING_SECRET: SECRET,
        SLACK_API_URL: fake.apiUrl,
        PLAT_BASE_URL: platUrl,
        PLAT_TOKEN,
        REDIS_URL: redis.url,
        DATABASE_URL: databaseUrl,
        PLATDESK_ADMINS: ADMIN,
      },
    });
  }, 180_000);

  afterAll(async () => {
    await cluster?.stop();
    await fake?.close();
    await sandbox?.close();
    await redis?.close();
    await store?.close();
    if (databaseUrl) await dropPostgresDatabase(databaseUrl);
    if (out) rmSync(out, { recursive: true, force: true });
  }, 60_000);

  /** Top-level posts to a channel (a digest's chart is a reply in its thread). */
  const postsTo = (channel: string) =>
    fake
      .callsTo('chat.postMessage')
      .filter((c) => c.body.channel === channel && c.body.thread_ts === undefined);

  async function readyz(replica: Replica): Promise<number> {
    return fetch(`${replica.url}/readyz`).then(
      (r) => r.status,
      () => 0,
    );
  }

  it('loses no request, runs no lookup twice, posts no digest twice; old replicas drain and exit 0', async () => {
    sandbox.setFaults([{ kind: 'latency', ms: CALL_MS, operations: ['get-shop-id'] }]);
    const rotation: Replica[] = [cluster.at(0), cluster.at(1)];
    let turn = 0;
    const next = () => rotation[turn++ % rotation.length] as Replica;

    const lookups: Lookup[] = [];
    const running: Promise<void>[] = [];
    const lookup = async (i: number) => {
      const entry: Lookup = { wwid: `rollout-${i}`, statuses: [], answers: 0 };
      lookups.push(entry);
      const userId = `U${4000 + (i % 16)}`;
      try {
        const asked = await slack.command(next(), '/shop', `ww ${entry.wwid}`, { userId });
        entry.statuses.push(asked.status);
        const message = await slack.response(asked.responseUrlId, undefined, 30_000);
        const confirmation = confirmationOf(message);
        const clicked = await slack.click(next(), 'platdesk.confirm', confirmation.confirm.value, {
          userId,
          label: confirmation.confirm.label,
        });
        entry.statuses.push(clicked.status);
        await slack.response(clicked.responseUrlId, (m) => textOf(m).includes(shopOf(entry.wwid)), 60_000);
        entry.answers = fake
          .callsTo('response_url')
          .filter(
            (c) => c.id === clicked.responseUrlId && textOf(c.body).includes(shopOf(entry.wwid)),
          ).length;
      } catch (error) {
        entry.error = String(error);
      }
    };
    let generating = true;
    const generator = (async () => {
      for (let i = 0; generating; i++) {
        running.push(lookup(i));
        await sleep(250);
      }
    })();

    await sleep(2000);
    const oldExits: (number | null)[] = [];
    for (const old of [0, 1]) {
      // maxSurge 1: a new replica, in rotation once ready.
      const fresh = await cluster.add();
      const readyBy = Date.now() + 30_000;
      while ((await readyz(fresh)) !== 200 && Date.now() < readyBy) await sleep(100);
      expect(await readyz(fresh), cluster.output()).toBe(200);
      rotation.push(fresh);
      await sleep(1000);
      // maxUnavailable 0: only then is an old one taken out of rotation, paused, and stopped.
      rotation.splice(rotation.indexOf(cluster.at(old)), 1);
      await sleep(PRE_STOP_MS);
      oldExits.push(await cluster.terminate(old));
    }
    // The digest due during the rollout, posted by one of the replicas running then.
    const postedBy = duringDueAt + 30_000;
    while (postsTo(DURING_CHANNEL).length === 0 && Date.now() < postedBy) await sleep(500);
    await sleep(2000);
    generating = false;
    await generator;
    await Promise.all(running);
    await sleep(1000);

    expect(oldExits, cluster.output()).toEqual([0, 0]);
    for (const old of [0, 1])
      expect(
        cluster
          .at(old)
          .logs()
          .some((l) => l.msg === 'platdesk stopped' && l.drained === true),
        `replica ${old} drained`,
      ).toBe(true);
    expect(lookups.length).toBeGreaterThan(20);
    const failed = lookups.filter((l) => l.error || l.statuses.some((s) => s !== 200) || l.answers !== 1);
    expect(failed, cluster.output()).toEqual([]);
    // One plat call per lookup, none twice; every call (the digests' pages too) one ledger row.
    expect(sandbox.stats().callsByOperation['get-shop-id']).toBe(lookups.length);
    const ledger = await store.ledger.totals({ from: new Date(0), to: new Date(Date.now() + 3_600_000) });
    expect(ledger.calls).toBe(sandbox.stats().calls);
    expect(postsTo(CAUGHT_UP_CHANNEL)).toHaveLength(1);
    expect(postsTo(DURING_CHANNEL)).toHaveLength(1);
  }, 300_000);
});
