/**
 * A separate process with its own Redis limiter (its own connections), for redis-limiter.test.ts
 * and bench/limiter.ts: forked with `--import tsx`, driven over IPC.
 *
 *   calls: the real plat client against the sandbox; reports each outcome; 'go' starts a batch of
 *          `count` calls at `concurrency` (or keeps calling until 'stop' when count is 0).
 *   hold:  takes `holds` slots with tasks that never settle and reports their grant times; the
 *          test then kills it with SIGKILL.
 */
import { createPlatClient } from '../../src/plat/client.js';
import { isPlatError } from '../../src/plat/errors.js';
import { createPlatHttp } from '../../src/plat/http.js';
import type { Priority } from '../../src/plat/limiter.js';
import { createRedisLimiter, type RedisLimiterOptions } from '../../src/plat/redis-limiter.js';
import { SANDBOX_FIXTURES as F } from '../../src/sandbox/index.js';

export interface WorkerInput {
  mode: 'calls' | 'hold';
  limiter: Omit<RedisLimiterOptions, 'onStarted' | 'onWait' | 'logger'>;
  baseUrl?: string;
  count?: number;
  concurrency?: number;
  priority?: Priority;
  /** calls: start the `count` calls at random moments within this span instead of in lanes. */
  spreadMs?: number;
  holds?: number;
}

export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'result'; ok: boolean; code: string | null; at: number }
  | { type: 'holding'; grantedAt: number[] }
  /** `waits`: the time each started call waited in the limiter (onStarted). */
  | { type: 'done'; ms: number; waits: number[] };

const send = (message: WorkerMessage) => process.send?.(message);
const now = () => performance.timeOrigin + performance.now();
const input = JSON.parse(process.argv[2] ?? '{}') as WorkerInput;

const waits: number[] = [];
const limiter = createRedisLimiter({ ...input.limiter, onStarted: (s) => waits.push(s.waitedMs) });
await limiter.ready();

if (input.mode === 'hold') {
  const grantedAt: number[] = [];
  for (let i = 0; i < (input.holds ?? 1); i++) {
    void limiter.schedule(() => {
      grantedAt.push(now());
      if (grantedAt.length === (input.holds ?? 1)) send({ type: 'holding', grantedAt });
      return new Promise<never>(() => {});
    });
  }
  send({ type: 'ready' });
} else {
  const http = createPlatHttp({ baseUrl: input.baseUrl ?? '', token: 'sandbox' });
  const client = createPlatClient({ http, limiter, retry: { maxRetries: 0 } });
  let stopping = false;
  let issued = 0;
  const one = async () => {
    issued += 1;
    try {
      await client.shopId({ wwid: F.wwids.known }, { priority: input.priority ?? 'interactive' });
      send({ type: 'result', ok: true, code: null, at: now() });
    } catch (error) {
      send({
        type: 'result',
        ok: false,
        code: isPlatError(error) ? error.code : String(error),
        at: now(),
      });
      // Refused at once while Redis is down: do not spin.
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  process.on('message', (message: string) => {
    if (message === 'stop') stopping = true;
    if (message !== 'go') return;
    const started = now();
    const count = input.count ?? 0;
    const spreadMs = input.spreadMs;
    const lanes =
      spreadMs === undefined
        ? Array.from({ length: input.concurrency ?? 1 }, async () => {
            while (!stopping && (count === 0 || issued < count)) await one();
          })
        : Array.from({ length: count }, async () => {
            await new Promise((resolve) => setTimeout(resolve, Math.random() * spreadMs));
            await one();
          });
    void Promise.all(lanes).then(async () => {
      send({ type: 'done', ms: now() - started, waits });
      await limiter.stop();
      await http.close();
      process.exit(0);
    });
  });
  send({ type: 'ready' });
}
