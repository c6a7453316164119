/**
 * The Lua scripts of the Redis limiter (./redis-limiter.ts). Each runs atomically in Redis, reads
 * time from Redis `TIME` (never from a replica's clock), and takes the same seven keys:
 *
 *   KEYS[1] meta        hash: epoch (a token per life of the key set), run (the Redis run_id it
 *                       was made on), fence (ms: no grant before, unless every process rejoined),
 *                       trusted ('1' once a process that knew the previous membership rejoined)
 *   KEYS[2] held        zset: leases of calls in flight, score = when a dead holder's lease expires:
 *                       renewed by its holder's heartbeats, never past grant + call deadline,
 *                       plus window + margin
 *   KEYS[3] resting     zset: leases of answered (or settled) calls, score = then + window + margin
 *   KEYS[4] waiters     zset: processes with interactive jobs waiting, score = expiry
 *   KEYS[5] procs       zset: live processes (heartbeats), score = expiry
 *   KEYS[6] pending     set: processes that may hold leases of the lost key set and have not
 *                       rejoined yet
 *   KEYS[7] registered  set: processes that rejoined in this epoch
 *
 * A slot is taken while its lease is in `held` or `resting`: at most maxCalls leases exist, bulk
 * work takes one only while more than `reserve` are free and no process has an interactive job
 * waiting.
 *
 * Lost keys (a Redis restart without persistence, FLUSHALL, eviction) or a different server
 * (restart from a snapshot, failover to a replica: either may lack the latest leases) are noticed
 * by every script: `meta` is gone or names another run_id. Then a new epoch starts FENCED: calls
 * granted before the loss may still arrive up to the call deadline after their grant, so no grant
 * is made for `hardFenceMs` (deadline + window + margin) — unless it is certain that every process
 * that could hold such a lease has rejoined and re-registered its leases: a process that saw the
 * membership just before the loss lists its peers, they become `pending`, and the fence lifts when
 * none is pending. A process that died with Redis stays pending, so the full fence applies then —
 * unless the calls written ahead show sooner that none can still arrive (QUIET, issue 33 finding
 * 17): then the fence ends at that moment, also on a fresh Redis, where no process can show who
 * held leases before.
 */
import { createHash } from 'node:crypto';

export interface LimiterScript {
  readonly source: string;
  readonly sha: string;
}

function script(body: string): LimiterScript {
  const source = `${PRELUDE}\n${body}`;
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

/** ARGV[1] candidate epoch, ARGV[2] hardFenceMs, ARGV[3] process id (every script). */
const PRELUDE = `
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function run_id()
  return string.match(redis.call('INFO', 'server'), 'run_id:(%w+)')
end
-- The current epoch; starts a fenced one when the key set was lost or the server changed.
local function check_epoch(now)
  local m = redis.call('HMGET', KEYS[1], 'epoch', 'run')
  local run = run_id()
  if m[1] and m[2] == run then return m[1] end
  redis.call('DEL', KEYS[6], KEYS[7])
  redis.call('HSET', KEYS[1], 'epoch', ARGV[1], 'run', run, 'fence', now + tonumber(ARGV[2]), 'trusted', '0')
  return ARGV[1]
end
-- ms until grants may resume after a loss; 0 when they may.
local function fenced(now)
  local f = redis.call('HMGET', KEYS[1], 'fence', 'trusted')
  local fence = tonumber(f[1]) or 0
  if now >= fence then return 0 end
  if f[2] == '1' and redis.call('SCARD', KEYS[6]) == 0 then return 0 end
  return fence - now
end
local function expire(now)
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
  redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)
  redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', now)
end
`;

/**
 * ARGV[4] the caller's epoch, [5] lease id, [6] 'i' | 'b', [7] maxCalls, [8] reserve, [9] first hold ms,
 * [10] waiterTtlMs, [11] '1' if the caller still has interactive jobs waiting after this one.
 * Returns {'granted', now} | {'rejoin', epoch} | {'wait', ms until worth asking again or -1, reason}.
 */
export const ACQUIRE = script(`
local now = now_ms()
local epoch = check_epoch(now)
if epoch ~= ARGV[4] then return {'rejoin', epoch} end
local f = fenced(now)
if f > 0 then return {'wait', f, 'fenced'} end
expire(now)
local me = ARGV[3]
local interactive = ARGV[6] == 'i'
local max = tonumber(ARGV[7])
local limit = max
if interactive then
  redis.call('ZADD', KEYS[4], now + tonumber(ARGV[10]), me)
else
  limit = max - tonumber(ARGV[8])
  redis.call('ZREM', KEYS[4], me)
  -- Interactive jobs of any process go ahead of bulk work.
  if redis.call('ZCARD', KEYS[4]) > 0 then return {'wait', -1, 'priority'} end
end
local used = redis.call('ZCARD', KEYS[2]) + redis.call('ZCARD', KEYS[3])
if used < limit then
  redis.call('ZADD', KEYS[2], now + tonumber(ARGV[9]), ARGV[5])
  if interactive and ARGV[11] ~= '1' then redis.call('ZREM', KEYS[4], me) end
  return {'granted', now}
end
-- The (used - limit + 1)-th resting lease to free is the earliest moment a slot can be had;
-- leases in flight free only after their call is answered or settles (a release is published).
local r = redis.call('ZRANGE', KEYS[3], used - limit, used - limit, 'WITHSCORES')
if r[2] then return {'wait', tonumber(r[2]) - now, 'slots'} end
return {'wait', -1, 'slots'}
`);

/**
 * ARGV[4] lease id, [5] gapMs, [6] channel. The call was answered (its response headers read) or
 * settled: its slot rests one window + margin from now (Redis time, which is after that moment). A lease unknown here (it expired, or was lost
 * with the keys) is added all the same: that errs on the safe side.
 */
export const RELEASE = script(`
local now = now_ms()
redis.call('ZREM', KEYS[2], ARGV[4])
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[5]), ARGV[4])
redis.call('PUBLISH', ARGV[6], ARGV[4])
return now
`);

/**
 * ARGV[4] the caller's epoch, [5] procTtlMs, [6] gapMs, [7] leaseTtlMs, then pairs (lease id, cap)
 * of the caller's held leases. Returns {epoch, fenced ms, member ids…}. In its own epoch the caller
 * is recorded as live and its held leases are renewed: each lives leaseTtlMs more, never past its
 * cap (grant + call deadline), plus the window + margin. (Otherwise it must rejoin first.)
 */
export const HEARTBEAT = script(`
local now = now_ms()
local epoch = check_epoch(now)
expire(now)
if epoch == ARGV[4] then
  redis.call('ZADD', KEYS[5], now + tonumber(ARGV[5]), ARGV[3])
  local gap, ttl = tonumber(ARGV[6]), tonumber(ARGV[7])
  for i = 8, #ARGV, 2 do
    local expiry = math.min(tonumber(ARGV[i + 1]), now + ttl) + gap
    redis.call('ZADD', KEYS[2], 'XX', 'GT', expiry, ARGV[i])
  end
end
local out = {epoch, fenced(now)}
for _, id in ipairs(redis.call('ZRANGE', KEYS[5], 0, -1)) do table.insert(out, id) end
return out
`);

/**
 * ARGV[4] the caller's epoch, [5] ms from now until no call sent before this epoch can still
 * arrive or rest (worked out from the calls written ahead, read once every call granted before
 * the loss has either been written ahead or can no longer be sent: redis-limiter.ts
 * quietCheck). Ends the fence then, if that is sooner. Returns the ms still fenced (-1: the caller's
 * epoch is not the current one).
 */
export const QUIET = script(`
local now = now_ms()
local epoch = check_epoch(now)
if epoch ~= ARGV[4] then return -1 end
local fence = tonumber(redis.call('HGET', KEYS[1], 'fence')) or 0
local quiet = now + tonumber(ARGV[5])
if quiet < fence then redis.call('HSET', KEYS[1], 'fence', quiet) end
return fenced(now)
`);

/**
 * ARGV[4] the epoch in which the caller last saw the membership, or '' if that view cannot be
 * trusted (it is older than a few heartbeats, or the caller has none); [5] procTtlMs;
 * [6] n leases, then n × (id, 'h' | 'r', remaining ms); then the peer ids the caller saw.
 * Re-registers the caller's leases in the current epoch. Returns the epoch.
 */
export const REJOIN = script(`
local now = now_ms()
local epoch = check_epoch(now)
local me = ARGV[3]
local n = tonumber(ARGV[6])
for i = 0, n - 1 do
  local id, kind, rest = ARGV[7 + i * 3], ARGV[8 + i * 3], tonumber(ARGV[9 + i * 3])
  if kind == 'h' then redis.call('ZADD', KEYS[2], now + rest, id) else redis.call('ZADD', KEYS[3], now + rest, id) end
end
redis.call('SADD', KEYS[7], me)
redis.call('SREM', KEYS[6], me)
redis.call('ZADD', KEYS[5], now + tonumber(ARGV[5]), me)
local fence = tonumber(redis.call('HGET', KEYS[1], 'fence')) or 0
if now < fence and ARGV[4] ~= '' and ARGV[4] ~= epoch then
  for i = 7 + n * 3, #ARGV do
    if redis.call('SISMEMBER', KEYS[7], ARGV[i]) == 0 then redis.call('SADD', KEYS[6], ARGV[i]) end
  end
  redis.call('HSET', KEYS[1], 'trusted', '1')
end
return epoch
`);
