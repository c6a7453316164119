/**
 * The Redis engine of the Limiter contract (./limiter.ts): every platdesk process with the same
 * REDIS_URL shares `maxCalls` slots, held as leases in Redis (./redis-limiter-scripts.ts).
 *
 * - A slot is granted by an atomic script BEFORE the request is sent; it stays taken until the
 *   call's answer (response headers) is read, or the call settles if none was, plus one window +
 *   margin, timed by Redis `TIME` (read after that moment), so at most maxCalls calls arrive at the
 *   API in any sliding window whichever replica sends them (./limiter.ts).
 * - A holder renews its leases with every heartbeat; one that dies (kill -9) or stalls stops, and
 *   its leases expire `leaseTtlMs` + window + margin after the last renewal, never later than the
 *   call's span (the grant may wait staleGrantMs to start, then the call deadline) + window +
 *   margin after the grant: its request, if sent at all, arrived before that span ended.
 * - Interactive jobs of every process go ahead of bulk work (a process with an interactive job
 *   waiting registers itself; bulk grants wait while any is registered), and bulk work leaves
 *   `interactiveReserve` slots free across all processes.
 * - Each process keeps its own bounded FIFO queues and busy answer (./limiter-queue.ts) and wait
 *   estimate, and asks Redis for one grant at a time; it retries when a slot is due to free (the
 *   script says when), when any process releases one (pub/sub), or after a short poll.
 * - Redis unreachable: nothing is sent. Jobs wait up to `unavailableAfterMs`, then every queued
 *   and new job is refused with PlatUnavailableError until Redis answers again (a heartbeat probes
 *   it every `heartbeatMs`; ioredis reconnects within 0.5 s), so lookups resume within about a
 *   second of its return.
 * - Lost keys: see the scripts' header. A process re-registers the leases it still holds or rests
 *   (known locally), and grants resume as soon as every process that was live has done so, or after
 *   a full call span + window when one of them cannot (it may have died with calls in flight).
 *   To keep that membership view complete, a process takes no slot before it has been a visible
 *   member for two heartbeats (`joinDelayMs`), and trusts its view only if it was at most one and
 *   a half heartbeats old when the loss was noticed.
 * - A grant that reaches its process late (event loop stalled, process paused) is given back
 *   unused: a lease's cap is counted from its grant, so its call must start soon after it. So is
 *   one whose job's preparation (a claim's fence, a charge id written ahead) has not ended within
 *   that bound: the job is granted again (limiter.ts prepareDeadlineMs), never sent late.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { type Clock, realClock } from '../clock.js';
import { PlatAbortedError, PlatUnavailableError } from './errors.js';
import {
  type CallProgress,
  type EarlierCall,
  type Limiter,
  type LimiterHealth,
  type LimiterOptions,
  type Priority,
  type QueueEstimate,
  resolveLimiterOptions,
  restingAtStart,
  type ScheduleOptions,
} from './limiter.js';
import { createLimiterQueue, jobRequest, type QueuedJob, refusedBeforeQueued } from './limiter-queue.js';
import type { Operation } from './operations.js';
import { firstConnection, NOT_CONNECTED, REDIS_CONNECTION, redisFailureReason } from './redis-connection.js';
import { ACQUIRE, HEARTBEAT, type LimiterScript, QUIET, REJOIN, RELEASE } from './redis-limiter-scripts.js';

/** Why a job had to wait for Redis (counted in /metrics). */
export type RedisWaitReason = 'slots' | 'priority' | 'fenced' | 'joining' | 'unreachable';

export interface RedisLimiterOptions extends LimiterOptions {
  /** redis:// or rediss:// */
  url: string;
  /** The plat call deadline: a call ends (or is abandoned) this long after it starts. */
  deadlineMs: number;
  /** Keys live under `{keyPrefix}:…` (one hash slot); processes share a limiter by prefix. */
  keyPrefix?: string;
  /** Heartbeat and membership refresh interval (default 1000 ms). */
  heartbeatMs?: number;
  /** How long jobs wait for an unreachable Redis before they are refused (default 2000 ms). */
  unavailableAfterMs?: number;
  /**
   * A held lease lives this long past its last renewal (heartbeats renew it), and never past its
   * call deadline: a dead holder's slot returns within about this + window (default 5000 ms, at
   * least 3 heartbeats).
   */
  leaseTtlMs?: number;
  /** Local timers and durations only; slot times always come from Redis. */
  clock?: Clock;
  /**
   * The calls written ahead lately, by every process (the app's store: plat-wiring.ts). When
   * given, a fenced epoch (lost keys, a fresh Redis) ends as soon as none of them can still
   * arrive or rest, instead of after a whole call span + window (issue 33 finding 17).
   */
  earlierCalls?: () => Promise<readonly EarlierCall[]>;
  /** How far the clock that stamped answers may be from the one that dates the writes ahead (default 0). */
  answerSkewMs?: number;
  onWait?: (reason: RedisWaitReason) => void;
  logger?: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}

/** How long stop() waits for started calls to settle and release their slots. */
const STOP_WAIT_MS = 2000;

const REDIS_LIMITER_DEFAULTS = {
  keyPrefix: 'platdesk:limiter',
  heartbeatMs: 1000,
  unavailableAfterMs: 2000,
  leaseTtlMs: 5000,
} as const;

/**
 * A lease as this process knows it, in local time: `until` is never before Redis's expiry of it.
 * A held lease also keeps its cap (grant + deadline) in Redis time and in local time.
 */
type LocalLease =
  | { kind: 'h'; until: number; capRedis: number; capLocal: number }
  | { kind: 'r'; until: number };

/** A Redis grant: the lease a call holds and when it started. */
interface Grant {
  readonly leaseId: string;
  readonly startedAt: number;
}

export function createRedisLimiter(options: RedisLimiterOptions): Limiter {
  const settings = resolveLimiterOptions(options);
  const { maxCalls, windowMs, safetyMarginMs, interactiveReserve } = settings;
  const queue = createLimiterQueue<Grant>(settings, options.onStarted);
  if (!(options.deadlineMs > 0)) throw new RangeError('deadlineMs must be > 0');
  const clock = options.clock ?? realClock;
  const heartbeatMs = options.heartbeatMs ?? REDIS_LIMITER_DEFAULTS.heartbeatMs;
  const unavailableAfterMs = options.unavailableAfterMs ?? REDIS_LIMITER_DEFAULTS.unavailableAfterMs;
  const prefix = options.keyPrefix ?? REDIS_LIMITER_DEFAULTS.keyPrefix;
  const { onWait, logger } = options;

  const gapMs = windowMs + safetyMarginMs;
  const leaseTtlMs = options.leaseTtlMs ?? REDIS_LIMITER_DEFAULTS.leaseTtlMs;
  if (!(leaseTtlMs >= 3 * heartbeatMs)) throw new RangeError('leaseTtlMs must be at least 3 heartbeats');
  /** A grant older than this when its job would start is given back (see header). */
  const staleGrantMs = gapMs / 2;
  /**
   * A job's preparation (limiter.ts prepare) must end within this of the request for its grant,
   * or its call is not sent on it: the lease's cap counts from the grant.
   */
  const sendWithinMs = Math.min(settings.prepareDeadlineMs, staleGrantMs);
  /**
   * The longest a call can take from its grant to reaching the API: it starts at most
   * staleGrantMs after the grant and is abandoned at its deadline.
   */
  const callSpanMs = staleGrantMs + options.deadlineMs;
  /**
   * After lost keys: a lease granted just before may still have its call arrive up to callSpanMs
   * after its grant, and its slot rest a window + margin after that.
   */
  const fenceMs = callSpanMs + gapMs;
  /** A new held lease's life: until renewed, then the rest of a settled call. */
  const firstHoldMs = Math.min(callSpanMs, leaseTtlMs) + gapMs;
  const procTtlMs = 3 * heartbeatMs;
  /**
   * A membership view is trusted if refreshed this shortly before a loss was noticed (a view one
   * heartbeat late is still trusted; later, the full fence applies).
   */
  const trustMs = 1.5 * heartbeatMs;
  /**
   * Longer than trustMs: a process takes slots only once every trusted view taken before a loss
   * lists it (it was visible in `procs` longer than any trusted view is old).
   */
  const joinDelayMs = 2 * heartbeatMs;
  const pollMs = Math.max(20, Math.min(250, gapMs / 4));
  const keys = ['meta', 'held', 'resting', 'waiters', 'procs', 'pending', 'registered'].map(
    (k) => `{${prefix}}:${k}`,
  );
  const channel = `${prefix}:released`;
  const procId = randomUUID();

  const redis = new Redis(options.url, REDIS_CONNECTION);
  const sub = new Redis(options.url, { ...REDIS_CONNECTION, enableOfflineQueue: true });

  const leases = new Map<string, LocalLease>();
  /** Calls started and not settled; releases not yet answered (stop() waits for both). */
  const inFlight = new Set<Promise<unknown>>();
  const releases = new Set<Promise<unknown>>();
  let stopped = false;
  let seq = 0;

  let epoch = '';
  let rejoinNeeded = true;
  let peers: string[] = [];
  let peersEpoch = '';
  let peersAt = Number.NEGATIVE_INFINITY;
  /** When trouble (a failure or another epoch) was first noticed since the last good heartbeat. */
  let brokenAt: number | null = null;
  let lastBeatAt = Number.NEGATIVE_INFINITY;
  let memberSince = Number.POSITIVE_INFINITY;
  let fencedMs = 0;
  let downSince: number | null = null;
  let downReason = '';
  /** When the current wait is expected to end (for estimates). */
  let waitUntil = 0;

  let pumping = false;
  let again = false;
  let wakeTimer: unknown;
  let beatTimer: unknown;

  const onError = (error: Error) => noteDown(error);
  redis.on('error', onError);
  sub.on('error', () => {
    // The command connection reports the outage; the subscriber only speeds up wake-ups.
  });
  redis.on('close', () => {
    brokenAt ??= clock.now();
  });
  sub.on('message', () => {
    if (queue.size() > 0) void pump();
  });
  sub.subscribe(channel).catch(() => undefined);

  async function run(s: LimiterScript, args: (string | number)[]): Promise<unknown> {
    // ARGV[1] is the candidate epoch: a fresh token, used only if this call starts an epoch.
    const argv = [randomUUID(), fenceMs, procId, ...args];
    try {
      return await redis.evalsha(s.sha, keys.length, ...keys, ...argv);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return await redis.eval(s.source, keys.length, ...keys, ...argv);
    }
  }

  function noteDown(error: unknown): void {
    const now = clock.now();
    brokenAt ??= now;
    const reason = redisFailureReason(error);
    // A command refused while disconnected says less than the connection's own error.
    if (reason !== NOT_CONNECTED || downSince === null) downReason = reason;
    if (downSince === null) {
      downSince = now;
      logger?.warn({ reason: downReason }, 'Redis unreachable: no plat call is made until it answers');
    }
    if (now - downSince >= unavailableAfterMs) refuseQueued();
  }

  function noteUp(): void {
    if (downSince !== null) {
      logger?.info({ downMs: Math.round(clock.now() - downSince) }, 'Redis reachable again');
      downSince = null;
    }
  }

  function unavailable(operation: Operation | null): PlatUnavailableError {
    return new PlatUnavailableError(
      `${operation ?? 'plat call'} not sent: Redis unreachable (${downReason})`,
      {
        operation,
      },
    );
  }

  function refuseQueued(): void {
    queue.failAll((job) => unavailable(job.operation));
  }

  function isUnavailable(): boolean {
    return downSince !== null && clock.now() - downSince >= unavailableAfterMs;
  }

  /** Refreshes membership and notices another epoch; also the reachability probe. */
  async function heartbeat(): Promise<void> {
    let reply: unknown;
    try {
      const held = [...leases].filter(([, l]) => l.kind === 'h') as [string, LocalLease & { kind: 'h' }][];
      reply = await run(HEARTBEAT, [
        epoch,
        procTtlMs,
        gapMs,
        leaseTtlMs,
        ...held.flatMap(([id, l]) => [id, l.capRedis]),
      ]);
    } catch (error) {
      noteDown(error);
      return;
    }
    noteUp();
    const [current, fenced, ...members] = reply as [string, number, ...string[]];
    fencedMs = Number(fenced);
    if (current !== epoch || rejoinNeeded) {
      brokenAt ??= clock.now();
      rejoinNeeded = true;
      await rejoin();
      return;
    }
    const now = clock.now();
    beat(now);
    // Whatever trouble there was (a dropped connection) lost nothing: the key set is the same.
    brokenAt = null;
    // Renewed in Redis: the held leases live on (a settle in the meantime made them resting).
    for (const lease of leases.values())
      if (lease.kind === 'h') lease.until = Math.min(lease.capLocal, now + leaseTtlMs) + gapMs;
    peers = members;
    peersEpoch = epoch;
    peersAt = clock.now();
    if (queue.size() > 0) void pump();
  }

  function beat(now: number): void {
    if (now - lastBeatAt > procTtlMs) memberSince = now;
    lastBeatAt = now;
  }

  /** Joins the current epoch, re-registering this process's leases; false if Redis failed. */
  async function rejoin(): Promise<boolean> {
    const now = clock.now();
    const mine: (string | number)[] = [];
    let n = 0;
    for (const [id, lease] of leases) {
      const rest = Math.ceil(lease.until - now + safetyMarginMs);
      if (lease.until <= now) {
        leases.delete(id);
        continue;
      }
      mine.push(id, lease.kind, rest);
      n += 1;
    }
    const trusted = peersEpoch !== '' && brokenAt !== null && brokenAt - peersAt <= trustMs;
    let reply: unknown;
    try {
      reply = await run(REJOIN, [
        trusted ? peersEpoch : '',
        procTtlMs,
        n,
        ...mine,
        ...(trusted ? peers : []),
      ]);
    } catch (error) {
      noteDown(error);
      return false;
    }
    noteUp();
    const previous = epoch;
    epoch = String(reply);
    rejoinNeeded = false;
    brokenAt = null;
    beat(clock.now());
    if (previous !== epoch) scheduleQuietCheck(epoch);
    if (previous !== '' && previous !== epoch) {
      logger?.warn(
        { leases: n, trustedView: trusted },
        'Redis lost the limiter keys: leases re-registered, grants fenced until every process rejoined',
      );
    }
    return true;
  }

  /**
   * An epoch this process just learned of may be fenced (lost keys, a fresh Redis). Every call
   * granted before it began is written ahead within sendWithinMs of its grant, or never sent
   * (limiter.ts prepareDeadlineMs), and the epoch began before this moment: so once sendWithinMs
   * has passed, the calls written ahead show every call that can still arrive, and how long its
   * slot may still rest (restingAtStart). Redis ends the fence then, if that is sooner (QUIET).
   * Any process may: the earliest end wins. Without `earlierCalls`, or if they cannot be read,
   * the fence runs its course.
   */
  function scheduleQuietCheck(learned: string): void {
    const { earlierCalls } = options;
    if (!earlierCalls) return;
    const check = async () => {
      if (stopped || epoch !== learned) return;
      let restMs: number;
      try {
        const calls = await earlierCalls();
        const resting = restingAtStart(calls, {
          spanMs: callSpanMs,
          gapMs,
          skewMs: options.answerSkewMs ?? 0,
          maxCalls: Number.POSITIVE_INFINITY,
        });
        restMs = Math.ceil(resting[0] ?? 0);
      } catch (error) {
        logger?.warn({ err: error }, 'calls written ahead not read: the limiter fence runs its course');
        return;
      }
      if (stopped || epoch !== learned) return;
      let left: number;
      try {
        left = Number(await run(QUIET, [learned, restMs]));
      } catch (error) {
        noteDown(error);
        return;
      }
      if (left < 0) return;
      fencedMs = left;
      if (fencedMs < fenceMs)
        logger?.info({ fencedMs, restMs }, 'limiter fence set by the calls written ahead');
      if (queue.size() > 0) void pump();
    };
    clock.setTimeout(() => void check(), Math.ceil(sendWithinMs));
  }

  function wake(ms: number, reason: RedisWaitReason): void {
    onWait?.(reason);
    waitUntil = clock.now() + ms;
    if (wakeTimer !== undefined) clock.clearTimeout(wakeTimer);
    wakeTimer = clock.setTimeout(
      () => {
        wakeTimer = undefined;
        void pump();
      },
      Math.max(1, Math.ceil(ms)),
    );
  }

  async function pump(): Promise<void> {
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    try {
      do {
        again = false;
        await grantWhatCan();
      } while (again && !stopped);
    } finally {
      pumping = false;
    }
  }

  /** Asks for one slot at a time, for the job at the head of the line, until one must wait. */
  async function grantWhatCan(): Promise<void> {
    for (;;) {
      const priority = queue.nextPriority();
      if (stopped || priority === null) return;
      if (rejoinNeeded && !(await rejoin())) return wake(pollMs, 'unreachable');
      const now = clock.now();
      if (now < memberSince + joinDelayMs) return wake(memberSince + joinDelayMs - now, 'joining');

      const leaseId = `${procId}:${++seq}`;
      const moreInteractive = priority === 'interactive' && queue.length('interactive') > 1;
      let reply: [string, number | string, string?];
      try {
        reply = (await run(ACQUIRE, [
          epoch,
          leaseId,
          priority === 'interactive' ? 'i' : 'b',
          maxCalls,
          interactiveReserve,
          firstHoldMs,
          procTtlMs,
          moreInteractive ? '1' : '0',
        ])) as typeof reply;
      } catch (error) {
        noteDown(error);
        return wake(pollMs, 'unreachable');
      }
      noteUp();
      const answeredAt = clock.now();
      const [outcome, value, reason] = reply;
      if (outcome === 'rejoin') {
        brokenAt ??= answeredAt;
        rejoinNeeded = true;
        continue;
      }
      if (outcome === 'wait') {
        const hint = Number(value);
        if (reason === 'fenced') fencedMs = hint;
        return wake(hint >= 0 ? Math.min(hint, heartbeatMs) : pollMs, (reason ?? 'slots') as RedisWaitReason);
      }
      fencedMs = 0;
      const grantedAt = Number(value);
      leases.set(leaseId, {
        kind: 'h',
        until: answeredAt + firstHoldMs,
        capRedis: grantedAt + callSpanMs,
        capLocal: answeredAt + callSpanMs,
      });
      const job = queue.shift(priority);
      if (!job || answeredAt - now > staleGrantMs || stopped) {
        // Nobody to run it (aborted meanwhile), or the grant is too old to trust: give it back.
        if (job) queue.unshift(job);
        giveBack(leaseId);
        continue;
      }
      waitUntil = 0;
      queue.begin(job, answeredAt);
      start(job, leaseId, now);
    }
  }

  /**
   * Runs a granted job; stop() waits for it to settle and release its lease. `askedAt`: when the
   * grant was asked for, before Redis made it: a call sent within sendWithinMs of that is sent
   * within staleGrantMs of its grant, as the lease's cap assumes.
   */
  function start(job: QueuedJob<Grant>, leaseId: string, askedAt: number): void {
    const nothing = () => undefined;
    const settled = job.start(
      { leaseId, startedAt: clock.now() },
      {
        sendBy: askedAt + sendWithinMs,
        now: () => clock.now(),
        at: (time, fire) => {
          const timer = clock.setTimeout(fire, Math.max(1, Math.ceil(time - clock.now())));
          return () => clock.clearTimeout(timer);
        },
        requeue: () => {
          queue.requeue(job, nothing);
          // Stopped meanwhile: it is refused like every job still queued.
          if (stopped) queue.failAllStopped();
          else void pump();
        },
      },
    );
    inFlight.add(settled);
    void settled.finally(() => inFlight.delete(settled));
  }

  /** The call was answered or settled (or never started): its slot rests one window + margin from now. */
  function giveBack(leaseId: string): void {
    const now = clock.now();
    for (const [id, lease] of leases) if (lease.until <= now) leases.delete(id);
    leases.set(leaseId, { kind: 'r', until: now + gapMs });
    const released = run(RELEASE, [leaseId, gapMs, channel]).then(
      () => noteUp(),
      // The lease then expires at its deadline instead: later, never earlier.
      (error: unknown) => noteDown(error),
    );
    releases.add(released);
    void released.finally(() => releases.delete(released));
  }

  function estimateAt(priority: Priority, now: number): QueueEstimate {
    const ahead = queue.ahead(priority);
    const slots = priority === 'interactive' ? maxCalls : maxCalls - interactiveReserve;
    const cycle = gapMs + queue.latencyMs();
    const head = Math.max(0, waitUntil - now, fencedMs);
    const estimatedWaitMs = ahead === 0 && head === 0 ? 0 : head + Math.floor(ahead / slots) * cycle;
    return { position: ahead + 1, estimatedWaitMs, estimatedStartMs: now + estimatedWaitMs };
  }

  function schedule<T>(
    task: (progress: CallProgress) => Promise<T>,
    scheduleOptions: ScheduleOptions = {},
  ): Promise<T> {
    const { priority, operation, signal, onQueued, prepare } = jobRequest(scheduleOptions);

    return new Promise<T>((resolve, reject) => {
      const refusal = refusedBeforeQueued(stopped, operation, signal);
      if (refusal) {
        reject(refusal);
        return;
      }
      if (isUnavailable()) {
        queue.countRefused();
        reject(unavailable(operation));
        return;
      }
      const now = clock.now();
      const busy = queue.busy(priority, operation, () => estimateAt(priority, now).estimatedWaitMs);
      if (busy) {
        reject(busy);
        return;
      }
      const job = queue.job(task, { priority, operation, signal, prepare, now }, { resolve, reject }, settle);
      const ticket = estimateAt(priority, now);
      const nothing = () => undefined;
      queue.enqueue(job, nothing);
      // A job that starts at once (as far as this process can tell) is not announced as queued.
      if (!queue.tellQueued(job, ticket.estimatedWaitMs > 0 ? onQueued : undefined, ticket, nothing)) return;
      void pump();
    });
  }

  /**
   * The call was answered (or settled without an answer), or its grant carried none (`used`
   * false): once per grant (limiter-queue.ts).
   */
  function settle({ leaseId, startedAt }: Grant, used: boolean): void {
    if (used) queue.settled(clock.now() - startedAt);
    giveBack(leaseId);
    if (!stopped && queue.size() > 0) void pump();
  }

  function scheduleBeat(): void {
    beatTimer = clock.setTimeout(() => {
      if (stopped) return;
      void heartbeat().finally(() => {
        if (!stopped) scheduleBeat();
      });
    }, heartbeatMs);
  }
  // The first beat once connected: one sent while connecting would report Redis as down.
  void firstConnection(redis, REDIS_CONNECTION.connectTimeout).then(heartbeat);
  scheduleBeat();

  return {
    schedule,
    estimate: (priority = 'interactive') => estimateAt(priority, clock.now()),
    stats: () => queue.stats(clock.now()),
    health: (): LimiterHealth =>
      downSince === null ? { ok: true } : { ok: false, component: 'redis', reason: downReason },
    async ready() {
      for (;;) {
        if (stopped) throw new PlatAbortedError('the limiter is stopped', { operation: null });
        await heartbeat();
        const now = clock.now();
        const joined = !rejoinNeeded && epoch !== '' && now >= memberSince + joinDelayMs;
        if (joined && fencedMs === 0 && downSince === null) return;
        const ms = Math.min(heartbeatMs, Math.max(20, fencedMs, memberSince + joinDelayMs - now));
        await new Promise((resolve) => clock.setTimeout(() => resolve(undefined), ms));
      }
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      if (wakeTimer !== undefined) clock.clearTimeout(wakeTimer);
      if (beatTimer !== undefined) clock.clearTimeout(beatTimer);
      queue.failAllStopped();
      // Started calls run on; their releases go out before the connections close. A call that
      // outlives this wait (the app cuts its calls off at shutdown) leaves its lease to expire.
      let bound: unknown;
      await Promise.race([
        Promise.allSettled([...inFlight]),
        new Promise((resolve) => {
          bound = clock.setTimeout(() => resolve(undefined), STOP_WAIT_MS);
        }),
      ]);
      clock.clearTimeout(bound);
      await Promise.allSettled([...releases]);
      // A clean leave: this process is no longer someone whose leases a key loss must wait for.
      await redis
        .multi()
        .zrem(keys[4] ?? '', procId)
        .zrem(keys[3] ?? '', procId)
        .exec()
        .catch(() => undefined);
      redis.disconnect();
      sub.disconnect();
    },
  };
}
