/**
 * The in-process limiter starting after a fast restart (issue 33 finding 13), on both store
 * engines, against the sandbox, whose own sliding-window counter judges "at most 10 calls in any
 * second". An earlier life of platdesk confirmed ten lookups on a store; a new limiter built by
 * the app's wiring (plat-wiring.ts createLimiter, with the calls written ahead that main hands
 * in) starts at once on the same store and ten more lookups are confirmed: their calls wait for
 * the slots the first ten still hold. A limiter started once those calls are long over grants at
 * once: a normal start is not slowed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { createLookupService, summarize } from '../src/lookups/lookup-service.js';
import type { LookupRequest } from '../src/lookups/types.js';
import { Metrics } from '../src/metrics.js';
import { createPlatClient } from '../src/plat/client.js';
import { createPlatHttp, type PlatHttp } from '../src/plat/http.js';
import type { Limiter } from '../src/plat/limiter.js';
import { createLimiter, type EarlierCalls } from '../src/plat-wiring.js';
import { createSandbox, type Sandbox } from '../src/sandbox/index.js';
import { ENGINES, type TestDatabase, testDatabase } from './helpers/store-engines.js';

const DEADLINE_MS = 3_000;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe.each(ENGINES)('the in-process limiter at start (%s store)', (engine) => {
  const open: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const close of open.splice(0).reverse()) await close().catch(() => undefined);
  });

  async function setup() {
    const sandbox: Sandbox = createSandbox({ token: 'restart' });
    const baseUrl = await sandbox.listen(0);
    open.push(() => sandbox.close());
    const db: TestDatabase = await testDatabase(engine);
    open.push(() => db.dispose());
    const store = await db.open();
    const config = loadConfig({
      SLACK_BOT_TOKEN: 'xoxb-1',
      SLACK_SIGNING_SECRET: 'secret',
      PLAT_BASE_URL: baseUrl,
      PLAT_TOKEN: 'restart',
    });
    const earlier: EarlierCalls = {
      read: (withinMs) => store.sentCalls.recent(withinMs),
      skewMs: engine === 'postgres' ? 1000 : 0,
    };
    /** One life of platdesk: the app's limiter over this store, a client, the lookups. */
    const life = async () => {
      const limiter: Limiter = await createLimiter(
        config,
        DEADLINE_MS,
        new Metrics(),
        createLogger('silent'),
        earlier,
      );
      open.push(() => limiter.stop());
      const http: PlatHttp = createPlatHttp({
        baseUrl,
        token: 'restart',
        timeouts: { deadlineMs: DEADLINE_MS },
      });
      open.push(() => http.close());
      const client = createPlatClient({ http, limiter, retry: { maxRetries: 0 } });
      const lookups = createLookupService({ client, store, prices: {} });
      return { limiter, lookups };
    };
    return { sandbox, store, life };
  }

  /** n distinct confirmed lookups at once (one call each); resolves when all are answered. */
  async function confirmAtOnce(lookups: ReturnType<typeof createLookupService>, n: number, tag: string) {
    await Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const request: LookupRequest = { kind: 'shop-id', wwid: `${tag}-${i}` };
        const actor = { userId: `U${i}`, channelId: 'C1', teamId: 'T1', responseUrl: null };
        const prepared = await lookups.prepare(request, actor, summarize(request), { useCache: false });
        if (prepared.kind !== 'confirm') throw new Error(prepared.kind);
        const claimed = await lookups.claim(prepared.pending.id, actor.userId);
        if (!claimed.ok) throw new Error(claimed.reason);
        await lookups.run(claimed.pending);
      }),
    );
  }

  it('a restart within a second of ten calls sends the next ten only as their slots rest: never 11 in a second', async () => {
    const { sandbox, life } = await setup();
    const first = await life();
    await confirmAtOnce(first.lookups, 10, 'first');
    // The process is gone (its limiter with it); the next one starts at once on the same store.
    await first.limiter.stop();
    const second = await life();
    await confirmAtOnce(second.lookups, 10, 'second');
    const stats = sandbox.stats();
    expect(stats.calls).toBe(20);
    expect(stats.maxInWindow).toBeLessThanOrEqual(10);
    expect(stats.violations).toBe(0);
  }, 60_000);

  it('a start after the last calls are long over is not slowed: it grants at once', async () => {
    const { store, life } = await setup();
    const first = await life();
    await confirmAtOnce(first.lookups, 10, 'first');
    await first.limiter.stop();
    // Span (prepare deadline 500 + call deadline 3000) + window + margin, and a little more.
    await sleep(4_800);
    expect(await store.sentCalls.recent(60_000)).toHaveLength(10);
    const later = await life();
    expect(later.limiter.estimate()).toMatchObject({ position: 1, estimatedWaitMs: 0 });
    const asked = performance.now();
    const started = await later.limiter.schedule(async () => performance.now());
    expect(started - asked).toBeLessThan(100);
  }, 60_000);
});
