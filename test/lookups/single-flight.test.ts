/**
 * The SingleFlight contract suite (./single-flight-contract.ts) against both engines: in this
 * process, and through a real redis-server on a free loopback port (one engine per handle).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { lookupOutcomeCodec } from '../../src/lookups/outcome-codec.js';
import { createRedisSingleFlight } from '../../src/lookups/redis-single-flight.js';
import { createLocalSingleFlight, type SingleFlight } from '../../src/lookups/single-flight.js';
import type { LookupOutcome } from '../../src/lookups/types.js';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js';
import { type FlightRig, singleFlightContract } from './single-flight-contract.js';

singleFlightContract('in-process engine', (): FlightRig => {
  const engine = createLocalSingleFlight<LookupOutcome>();
  return { handle: () => engine, cleanup: () => engine.stop() };
});

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.close();
});

singleFlightContract('Redis engine, real Redis, one engine per handle', (): FlightRig => {
  const engines: SingleFlight<LookupOutcome>[] = [];
  // One key prefix per test: nothing of an earlier test is seen.
  const keyPrefix = `test:${randomUUID()}`;
  return {
    handle() {
      const engine = createRedisSingleFlight({ url: redis.url, codec: lookupOutcomeCodec, keyPrefix });
      engines.push(engine);
      return engine;
    },
    cleanup: async () => {
      await Promise.all(engines.map((e) => e.stop()));
    },
  };
});
