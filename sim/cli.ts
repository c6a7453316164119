/**
 * `npm run sim`: runs seeded schedules against the built app and prints a line per schedule, each
 * failing schedule in full (with the command line that replays it), and a summary: schedules
 * run, faults injected by kind, invariant violations by kind, wall time.
 *
 *   --seeds N          how many schedules (default 100), seeds --from, --from+1, …
 *   --from S           the first seed (default: a random one, printed)
 *   --seed S[,S…]      exactly these seeds (replay)
 *   --topology T       pg (3 replicas, PostgreSQL + Redis), sqlite (1 process), or both (default:
 *                      every 3rd seed on SQLite)
 *   --faults K[,K…]    only these fault kinds (sim/faults.ts FaultKind)
 *   --shrink SECONDS   with one --seed: let fast-check shrink a failing schedule for at most
 *                      this long (each try is a whole run) and print the smallest that fails
 *   --verbose          also print what the workload saw and the replicas' warnings
 *
 * Exit status 1 when a schedule broke an invariant or could not be run.
 */
import { randomInt } from 'node:crypto';
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { FAULT_KINDS, type FaultKind } from './faults.js';
import { failureDetail, scheduleLine, summarize, summaryText } from './report.js';
import { runSchedule } from './run.js';
import { describeSchedule, scheduleArbitrary, scheduleOf, type Topology } from './schedule.js';
import { closeOpenWorlds, startShared } from './world.js';

const { values: args } = parseArgs({
  options: {
    seeds: { type: 'string', default: '100' },
    from: { type: 'string' },
    seed: { type: 'string' },
    topology: { type: 'string', default: 'both' },
    faults: { type: 'string' },
    shrink: { type: 'string' },
    verbose: { type: 'boolean', default: false },
  },
});

function fail(message: string): never {
  console.error(`npm run sim: ${message}`);
  process.exit(2);
}

const topologyArg = args.topology;
if (topologyArg !== 'pg' && topologyArg !== 'sqlite' && topologyArg !== 'both')
  fail('--topology takes pg, sqlite or both');
const faultKinds = args.faults?.split(',').map((k) => k.trim()) as FaultKind[] | undefined;
for (const k of faultKinds ?? [])
  if (!FAULT_KINDS.includes(k)) fail(`unknown fault kind ${k} (kinds: ${FAULT_KINDS.join(', ')})`);
const seeds: number[] = args.seed
  ? args.seed.split(',').map((s) => Number(s))
  : (() => {
      const n = Number(args.seeds);
      if (!Number.isInteger(n) || n < 1) fail('--seeds takes a whole number ≥ 1');
      const from = args.from !== undefined ? Number(args.from) : randomInt(1, 2 ** 31 - 1 - n);
      return Array.from({ length: n }, (_, i) => from + i);
    })();
for (const s of seeds) if (!Number.isSafeInteger(s)) fail(`not a seed: ${s}`);
const topologyOf = (seed: number): Topology =>
  topologyArg === 'both' ? (seed % 3 === 0 ? 'sqlite' : 'pg') : topologyArg;
const options = (seed: number) => ({
  topology: topologyOf(seed),
  ...(faultKinds ? { faults: faultKinds } : {}),
});

const started = performance.now();
const shared = await startShared({ postgres: seeds.some((s) => topologyOf(s) === 'pg') });
// Ctrl-C (or a stop): the app processes, PostgreSQL and Redis are this process's children.
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    console.error(`npm run sim: ${signal}, stopping the processes it started`);
    void closeOpenWorlds()
      .then(() => shared.close())
      .finally(() => process.exit(130));
  });
let failed = false;
try {
  if (args.shrink !== undefined) {
    const [seed] = seeds;
    if (seeds.length !== 1 || seed === undefined) fail('--shrink takes exactly one --seed');
    const limitMs = Number(args.shrink) * 1000;
    console.log(`shrinking seed ${seed} for at most ${args.shrink} s (each try is a whole run)`);
    const found = await fc.check(
      fc.asyncProperty(scheduleArbitrary(options(seed)), async (drawn) => {
        const report = await runSchedule({ seed, ...drawn }, shared);
        console.log(`  try: ${report.schedule.events.length} events → ${scheduleLine(report)}`);
        return report.result !== null && report.result.violations.length === 0;
      }),
      { seed, numRuns: 1, interruptAfterTimeLimit: limitMs, markInterruptAsFailure: false },
    );
    const smallest = found.counterexample?.[0];
    if (smallest) {
      failed = true;
      console.log(`smallest failing schedule found (${found.numShrinks} shrinks):`);
      console.log(describeSchedule({ seed, ...smallest }));
    } else console.log('the schedule did not fail: nothing to shrink');
  } else {
    console.log(
      `fault simulator: ${seeds.length} schedule${seeds.length > 1 ? 's' : ''}, seeds ${seeds[0]}…${seeds.at(-1)}, topology ${topologyArg}${faultKinds ? `, faults ${faultKinds.join(',')}` : ''}`,
    );
    const reports = [];
    for (const seed of seeds) {
      const report = await runSchedule(scheduleOf(seed, options(seed)), shared);
      reports.push(report);
      console.log(scheduleLine(report));
      if (!report.result || report.result.violations.length > 0) {
        failed = true;
        console.log(failureDetail(report, !faultKinds, args.verbose));
      } else if (args.verbose) console.log(failureDetail(report, !faultKinds, true));
    }
    const summary = summarize(reports, performance.now() - started);
    console.log(summaryText(summary));
    console.log(JSON.stringify(summary));
  }
} finally {
  await shared.close();
}
process.exit(failed ? 1 : 0);
