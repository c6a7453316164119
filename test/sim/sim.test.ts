/**
 * The fault simulator's short fixed-seed run (issue 33, "What must hold" 2): a few schedules of
 * `npm run sim`, each on the built app as real processes, covering both topologies (three
 * replicas on PostgreSQL + Redis; one process on SQLite) and a dozen fault kinds, judged by the
 * same checker. Each seed is fixed together with the fault kinds it draws from, so the run is
 * the same schedule every time; a failure prints the schedule and the command that replays it.
 * (`npm run sim` runs 100 random seeds: docs/simulator.md.)
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
  { seed: 35, topology: 'pg', faults: ['kill', 'plat-cut', 'slack-post', 'store-cut'] },
  { seed: 33, topology: 'pg', faults: ['pause', 'redis-restart', 'commit-cut', 'plat-timeout'] },
  { seed: 8, topology: 'sqlite', faults: ['fast-restart', 'table-lock', 'clock', 'plat-5xx'] },
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
