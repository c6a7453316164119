/**
 * The Redis engine of the SingleFlight contract (./single-flight.ts): identical work asked for at
 * the same time in any process with the same REDIS_URL runs once, in the process that took the
 * lock (the leader); the others (followers) get its answer, or its failure.
 *
 * - Keys hold no request in clear: a key is the sha256 of the request key, so personal data
 *   (a shop, an owner, waybill numbers) never reaches Redis. Per key, in one hash slot:
 *     `{prefix}:{hash}:lock`         the flight in progress: a fresh id per flight, with a lease
 *     `{prefix}:{hash}:result:{id}`  flight id's outcome, kept `resultTtlMs` for late readers
 * - The leader takes the lock (`SET NX PX lease`, in the JOIN script) and renews it every third
 *   of the lease while its work runs. A fixed lease of one call's deadline would not do: a lookup
 *   may wait in the limiter's queue and make several calls with retries, and a lock that expired
 *   under a live leader would let a follower call a second time. Renewed, the lock lives exactly
 *   as long as its leader does (plus at most one lease).
 * - When the work settles, one atomic script (FINISH) stores the outcome under the flight's id,
 *   releases the lock if it is still the flight's, and publishes the key's hash on one channel.
 * - A follower learns the flight's id from JOIN, then waits for a message of its hash or polls
 *   (`pollMs`), and asks JOIN again: the result of the flight it follows, else the lock. The
 *   result is kept under the flight id, never under the bare key: a lookup asked after a flight
 *   ended is a new question (a new call), as in one process; only those who joined the flight
 *   share it, and a message missed (subscriber reconnecting) costs at most one poll.
 * - The leader died (its lock expired with no result): the next JOIN of a follower takes the lock
 *   and that follower becomes the leader: it makes the call and is charged for it, and says so
 *   (its answer is not marked shared). A leader that was only stalled and finishes later still
 *   answers its own asker; both calls are then in the ledger, each charged to the one who made it.
 * - Redis unreachable: commands are retried for `unavailableAfterMs`, then run() rejects with
 *   PlatUnavailableError before any work runs (as the Redis limiter refuses: no call is made).
 *   A leader that loses Redis mid-run finishes its own lookup; its followers are refused, and
 *   nobody is charged who was not told.
 * - Within one process, identical runs are coalesced before Redis is asked (createCoalescer).
 */
import { createHash, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { PlatUnavailableError } from '../plat/errors.js';
import { REDIS_CONNECTION, redisFailureReason } from '../plat/redis-connection.js';
import {
  createCoalescer,
  type Flight,
  type FlightCodec,
  SharedFlightFailure,
  type SingleFlight,
} from './single-flight.js';

export interface RedisSingleFlightOptions<T> {
  /** redis:// or rediss:// */
  url: string;
  codec: FlightCodec<T>;
  /** Keys live under `{keyPrefix}:…`; processes share flights by prefix. Default 'platdesk:flight'. */
  keyPrefix?: string;
  /** A leader's lock lives this long past its last renewal (renewed every third). Default 5000 ms. */
  leaseMs?: number;
  /** How long a flight's outcome is kept for followers that have not read it yet. Default 30 s. */
  resultTtlMs?: number;
  /** A follower checks the flight this often when no message came. Default 250 ms. */
  pollMs?: number;
  /** How long commands are retried while Redis is unreachable before run() refuses. Default 2000 ms. */
  unavailableAfterMs?: number;
  logger?: { warn(obj: object, msg: string): void };
  /** A lookup refused because Redis could not be reached (counted in /metrics). */
  onUnavailable?: () => void;
}

export const REDIS_SINGLE_FLIGHT_DEFAULTS = {
  keyPrefix: 'platdesk:flight',
  leaseMs: 5000,
  resultTtlMs: 30_000,
  pollMs: 250,
  unavailableAfterMs: 2000,
} as const;

/** How long commands wait between attempts while Redis is unreachable. */
const RETRY_MS = 100;

/**
 * KEYS[1] lock, KEYS[2] the result of the flight followed so far (ARGV[3], '' for none).
 * ARGV[1] the asker's own flight id, ARGV[2] lease ms.
 * → {'result', record} | {'lead', id} | {'follow', id} (a flight to follow) | {'wait', id}
 */
const JOIN = `
if ARGV[3] ~= '' then
  local record = redis.call('GET', KEYS[2])
  if record then return {'result', record} end
end
local current = redis.call('GET', KEYS[1])
if not current then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return {'lead', ARGV[1]}
end
if current == ARGV[1] then return {'lead', current} end
if current == ARGV[3] then return {'wait', current} end
return {'follow', current}
`;

/** KEYS[1] lock; ARGV[1] flight id, ARGV[2] lease ms → 1 renewed, 0 the lock is not this flight's. */
const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
`;

/**
 * KEYS[1] lock, KEYS[2] this flight's result; ARGV[1] flight id, ARGV[2] record, ARGV[3] result
 * ttl ms, ARGV[4] channel, ARGV[5] the key's hash. The result is stored before the lock goes, in
 * one step: a follower never finds neither.
 */
const FINISH = `
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
redis.call('PUBLISH', ARGV[4], ARGV[5])
return 1
`;

interface Script {
  source: string;
  sha: string;
}
const script = (source: string): Script => ({ source, sha: createHash('sha1').update(source).digest('hex') });
const SCRIPTS = { join: script(JOIN), renew: script(RENEW), finish: script(FINISH) };

/** A record starts with 1 (an answer) or 0 (a failure), then the codec's text. */
const ANSWER = '1';
const FAILURE = '0';

export function createRedisSingleFlight<T>(options: RedisSingleFlightOptions<T>): SingleFlight<T> {
  const { codec, logger } = options;
  const prefix = options.keyPrefix ?? REDIS_SINGLE_FLIGHT_DEFAULTS.keyPrefix;
  const leaseMs = options.leaseMs ?? REDIS_SINGLE_FLIGHT_DEFAULTS.leaseMs;
  const resultTtlMs = options.resultTtlMs ?? REDIS_SINGLE_FLIGHT_DEFAULTS.resultTtlMs;
  const pollMs = options.pollMs ?? REDIS_SINGLE_FLIGHT_DEFAULTS.pollMs;
  const unavailableAfterMs = options.unavailableAfterMs ?? REDIS_SINGLE_FLIGHT_DEFAULTS.unavailableAfterMs;
  if (!(leaseMs > 0 && resultTtlMs > 0 && pollMs > 0))
    throw new RangeError('leaseMs, resultTtlMs and pollMs must be > 0');

  const redis = new Redis(options.url, REDIS_CONNECTION);
  const sub = new Redis(options.url, { ...REDIS_CONNECTION, enableOfflineQueue: true });
  // Failures are reported per command (run() refuses); the messages only speed up wake-ups.
  redis.on('error', () => undefined);
  sub.on('error', () => undefined);
  const channel = `${prefix}:done`;
  /** Followers waiting in this process, by key hash: each is woken by a message of its hash. */
  const waiters = new Map<string, Set<() => void>>();
  sub.on('message', (_channel: string, hash: string) => {
    for (const wake of waiters.get(hash) ?? []) wake();
  });
  /** Settles when the subscription is in place (again, after a reconnect that had lost it). */
  let subscribed: Promise<boolean> = Promise.resolve(false);
  let listening = false;
  const subscribe = () => {
    subscribed = sub.subscribe(channel).then(
      () => {
        listening = true;
        return true;
      },
      () => false,
    );
  };
  subscribe();
  // ioredis subscribes again on its own after a reconnect, but only to a channel it once had.
  sub.on('ready', () => {
    if (!listening) subscribe();
  });
  const coalesce = createCoalescer<T>();
  let stopped = false;

  const keysOf = (hash: string) => ({
    lock: `${prefix}:{${hash}}:lock`,
    result: (flightId: string) => `${prefix}:{${hash}}:result:${flightId}`,
  });

  async function evalScript(s: Script, keys: string[], args: (string | number)[]): Promise<unknown> {
    try {
      return await redis.evalsha(s.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return await redis.eval(s.source, keys.length, ...keys, ...args);
    }
  }

  /** A command, retried while Redis is unreachable, then refused as unavailable (nothing sent). */
  async function command(s: Script, keys: string[], args: (string | number)[]): Promise<unknown> {
    const started = performance.now();
    for (;;) {
      try {
        return await evalScript(s, keys, args);
      } catch (error) {
        if (stopped || performance.now() - started + RETRY_MS > unavailableAfterMs)
          throw new PlatUnavailableError(
            `lookup not sent: Redis unreachable (${redisFailureReason(error)})`,
            {
              operation: null,
              cause: error,
            },
          );
        await sleep(RETRY_MS);
      }
    }
  }

  /** The wake-up of one follower: a message of its hash, or `ms` passed, whichever first. */
  function waitFor(hash: string) {
    let notified = false;
    let resolve: (() => void) | null = null;
    const wake = () => {
      notified = true;
      resolve?.();
    };
    const set = waiters.get(hash) ?? new Set();
    set.add(wake);
    waiters.set(hash, set);
    return {
      async wait(ms: number) {
        if (!notified)
          await new Promise<void>((done) => {
            const timer = setTimeout(done, ms);
            resolve = () => {
              clearTimeout(timer);
              done();
            };
          });
        notified = false;
        resolve = null;
      },
      dispose() {
        set.delete(wake);
        if (set.size === 0 && waiters.get(hash) === set) waiters.delete(hash);
      },
    };
  }

  function settled(record: string): Flight<T> {
    const body = record.slice(1);
    if (record.startsWith(ANSWER)) return { value: codec.decode(body), shared: true };
    throw new SharedFlightFailure(codec.decodeError(body));
  }

  async function lead(hash: string, flightId: string, work: () => Promise<T>): Promise<Flight<T>> {
    const keys = keysOf(hash);
    const renew = setInterval(() => {
      // One try: a renewal that fails leaves the lock to expire, and a follower takes the lead.
      evalScript(SCRIPTS.renew, [keys.lock], [flightId, leaseMs]).then(
        (held) => {
          if (held === 0)
            logger?.warn({ flight: hash.slice(0, 12) }, 'single flight: lock lost while running');
        },
        () => undefined,
      );
    }, leaseMs / 3);
    let outcome: { ok: true; value: T } | { ok: false; error: unknown };
    try {
      outcome = { ok: true, value: await work() };
    } catch (error) {
      outcome = { ok: false, error };
    } finally {
      clearInterval(renew);
    }
    let record: string;
    try {
      record = outcome.ok ? ANSWER + codec.encode(outcome.value) : FAILURE + codec.encodeError(outcome.error);
    } catch (error) {
      record = FAILURE + codec.encodeError(error);
    }
    try {
      await command(
        SCRIPTS.finish,
        [keys.lock, keys.result(flightId)],
        [flightId, record, resultTtlMs, channel, hash],
      );
    } catch (error) {
      // Followers then see no lock and no result: they are refused, or one of them leads anew.
      logger?.warn(
        { flight: hash.slice(0, 12), reason: redisFailureReason(error) },
        'single flight: the outcome could not be handed to other processes',
      );
    }
    if (!outcome.ok) throw outcome.error;
    return { value: outcome.value, shared: false };
  }

  async function acrossProcesses(key: string, work: () => Promise<T>): Promise<Flight<T>> {
    const hash = createHash('sha256').update(key).digest('hex');
    const keys = keysOf(hash);
    const flightId = randomUUID();
    // Listening before the first look: a flight that ends after the look wakes this follower.
    const signal = waitFor(hash);
    try {
      if (!listening) await within(subscribed, unavailableAfterMs);
      let followed = '';
      for (;;) {
        const [state, value] = (await command(
          SCRIPTS.join,
          [keys.lock, keys.result(followed)],
          [flightId, leaseMs, followed],
        ).catch((error: unknown) => {
          if (error instanceof PlatUnavailableError) options.onUnavailable?.();
          throw error;
        })) as [string, string];
        if (state === 'lead') {
          signal.dispose();
          return await lead(hash, flightId, work);
        }
        if (state === 'result') return settled(value);
        followed = value;
        await signal.wait(pollMs);
      }
    } finally {
      signal.dispose();
    }
  }

  return {
    run: (key, work) => coalesce(key, () => acrossProcesses(key, work)),
    async stop() {
      if (stopped) return;
      stopped = true;
      redis.disconnect();
      sub.disconnect();
    },
  };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Waits for `promise` at most `ms` (without a subscription a follower still polls). */
async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
