/**
 * The fault simulator's short fixed-seed run (issue 33, "What must hold" 2): two schedules of
 * `npm run sim`, each on the built app as real processes, one per topology (three replicas on
 * PostgreSQL + Redis; one process on SQLite), judged by the same checker. Each seed is fixed
 * together with the fault kinds it draws from, so the run is the same schedule every time; a
 * failure prints the schedule and the command that replays it. 57-67 s for the file on the
 * 2-core machine at a load average of 9-18 (2026-11-28; CI budget: about a minute).
 *
 * The kinds drawn here broke no invariant of their own in the 30-seed run at 5ce7905 (each
 * failing schedule there is explained by a kill, a pause past a lease, a channel cap, which
 * 5ce7905 lacks, or a digest run twice at once), and neither seed sets a channel cap. The seeds
 * draw plat answers cut, a store cut and the history rate-limited on pg; a table lock, a pause and
 * a plat answer cut on SQLite; each passed every run made (3 and 2). Kill -9, pauses past a
 * lease, clock moves, lost commits and unclear Slack posts still break invariants now and then
 * until the fixes of issue 33 are merged (docs/benchmarks.md, "Fault simulator"), and a test that
 * fails at random is no test: add those kinds to FIXED once they hold. (`npm run sim` runs 100 random seeds of every kind:
 * docs/simulator.md.)
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

const FIXED: { seed: number; topology: Topology; faults: FaultKind[] }[] = [
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
  },
  {
    seed: 178,
    topology: 'sqlite',
    faults: ['pause', 'table-lock', 'plat-5xx', 'plat-cut', 'plat-code', 'slack-history'],
  },
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

  for (const { seed, topology, faults } of FIXED)
    it(`seed ${seed} on ${topology} (faults from ${faults.join(', ')}): every invariant holds`, async () => {
      const schedule = scheduleOf(seed, { topology, faults });
      // The seed still draws the faults it was picked for (a changed generator would change it).
      const drawn = new Set(schedule.events.flatMap((e) => (e.type === 'fault' ? [e.kind] : [])));
      expect(drawn.size, [...drawn].join(', ')).toBeGreaterThanOrEqual(3);

      const report = await runSchedule(schedule, shared);
      expect(report.error, report.output).toBeNull();
      expect(report.result?.calls, 'the workload reached the plat API').toBeGreaterThan(0);
      expect(report.result?.violations, failureDetail(report, false, true)).toEqual([]);
    }, 300_000);
});
