/**
 * The fault simulator's short fixed-seed run (issue 33, "What must hold" 2): four schedules of
 * `npm run sim`, each on the built app as real processes (three replicas on PostgreSQL + Redis,
 * or one process on SQLite), judged by the same checker. Each seed is fixed together with the
 * fault kinds it draws from, so the run is the same schedule every time; a failure prints the
 * schedule and the command that replays it.
 *
 * Seeds 80 and 178 draw plat answers cut, a store cut and the history rate-limited on pg, and a
 * table lock, a pause and a plat answer cut on SQLite. Seeds 1024 and 1029 draw from every kind,
 * as `npm run sim` does: a replica's clock moved, a kill -9 and a Redis cut on pg, a kill -9 on
 * SQLite; each held in the 100-schedule run (docs/benchmarks.md, "Fault simulator") and in
 * every replay since. Pauses past a lease (about 40 s a schedule) are left to `npm run sim`.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { FaultKind } from '../../sim/faults.js';
import { failureDetail } from '../../sim/report.js';
import { runSchedule } from '../../sim/run.js';
import { scheduleOf, type Topology } from '../../sim/schedule.js';
import { type SharedServers, startShared } from '../../sim/world.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** Each seed with the kinds it draws from (none: every kind of its topology) and those it draws. */
const FIXED: { seed: number; topology: Topology; faults?: FaultKind[]; draws: FaultKind[] }[] = [
  {
    seed: 80,
    topology: 'pg',
    faults: [
      'plat-5xx',
      'plat-cut',
      'plat-timeout',
      'plat-code',
      'slack-history',
      'store-cut',
      'redis-restart',
      'redis-cut',
    ],
    draws: ['slack-history', 'plat-cut', 'store-cut'],
  },
  {
    seed: 178,
    topology: 'sqlite',
    faults: ['pause', 'table-lock', 'plat-5xx', 'plat-cut', 'plat-code', 'slack-history'],
    draws: ['table-lock', 'pause', 'plat-cut'],
  },
  { seed: 1024, topology: 'pg', draws: ['clock', 'kill', 'redis-cut'] },
  { seed: 1029, topology: 'sqlite', draws: ['kill'] },
];

describe('the fault simulator, fixed seeds', () => {
  let shared: SharedServers;

  beforeAll(async () => {
    // The replicas run the build, as `npm start` does.
    execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: ROOT, stdio: 'pipe' });
    shared = await startShared({ postgres: true, postgresUrl: inject('postgresUrl') });
  }, 120_000);

  afterAll(async () => {
    await shared?.close();
  }, 30_000);

  for (const { seed, topology, faults, draws } of FIXED)
    it(`seed ${seed} on ${topology} (drawing ${draws.join(', ')}): every invariant holds`, async () => {
      const schedule = scheduleOf(seed, { topology, ...(faults ? { faults } : {}) });
      // The seed still draws the faults it was picked for (a changed generator would change it).
      const drawn = schedule.events.flatMap((e) => (e.type === 'fault' ? [e.kind] : []));
      expect(drawn).toEqual(draws);

      const report = await runSchedule(schedule, shared);
      expect(report.error, report.output).toBeNull();
      expect(report.result?.calls, 'the workload reached the plat API').toBeGreaterThan(0);
      expect(report.result?.violations, failureDetail(report, false, true)).toEqual([]);
    }, 300_000);
});
