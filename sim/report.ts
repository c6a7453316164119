/**
 * What `npm run sim` prints: one line per schedule, a failing schedule in full (its seed, its
 * schedule, what the checker found and the command line that replays it), and a summary.
 */
import { type Exemptions, VIOLATION_KINDS, type ViolationKind } from './checker.js';
import type { RunReport } from './run.js';
import { describeSchedule, type Schedule } from './schedule.js';

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The command line that runs this schedule again. */
export function replayCommand(schedule: Schedule, defaultKinds: boolean): string {
  const faults = defaultKinds ? '' : ` --faults ${schedule.faultKinds.join(',')}`;
  return `npm run sim -- --seed ${schedule.seed} --topology ${schedule.topology}${faults}`;
}

export function scheduleLine(report: RunReport): string {
  const { schedule, result } = report;
  const faults = report.faults.map((f) => f.kind).join(', ') || 'none';
  const head = `seed ${schedule.seed} ${schedule.topology.padEnd(6)}`;
  if (!result)
    return `${head} ERROR (not judged): ${report.error?.split('\n')[0]} (${seconds(report.wallMs)})`;
  const kinds = countBy(result.violations.map((v) => v.kind));
  const verdict =
    result.violations.length === 0
      ? 'ok'
      : `VIOLATIONS ${Object.entries(kinds)
          .map(([k, n]) => `${k}×${n}`)
          .join(' ')}`;
  const time = `start-up ${seconds(report.setupMs)} + schedule ${seconds(report.activeMs)} + drain ${seconds(report.drainMs)}${report.drainEnd === 'quiet' ? '' : ` (${report.drainEnd.split(/[:;]/)[0]})`}`;
  return `${head} faults: ${faults}; ${result.calls} calls, ${result.ledgerRows} ledger rows, busiest second ${result.maxInAnySecond}; ${verdict} (${seconds(report.wallMs)}: ${time})`;
}

export function failureDetail(report: RunReport, defaultKinds: boolean, verbose: boolean): string {
  const { result } = report;
  const lines: string[] = [];
  lines.push(`--- seed ${report.schedule.seed} (${report.schedule.topology}) ---`);
  if (result) {
    for (const v of result.violations) lines.push(`  ${v.kind}: ${v.detail}`);
    const e = result.exemptions;
    lines.push(
      `  allowed and counted: ${e.answeredToKilled} answers reached a killed holder, ${e.unreadableAnswers} answers never reached the app, pages bought again: ${e.reboughtAfterHolderLost} by a replica taking over from a holder that could not record them, ${e.reboughtAfterLostAnswer} after a lost answer; ${e.rateUnmeasured} busy seconds not judged (the recorder stalled); ${e.maybeNotSent} rows "may not have been sent" (code -2)`,
    );
  } else lines.push(`  error: ${report.error}`);
  lines.push('  faults applied:');
  for (const f of report.faults)
    lines.push(
      `    ${f.kind}${f.replica !== undefined ? ` replica ${f.replica}` : ''}${f.detail ? ` (${f.detail})` : ''}`,
    );
  if (report.setupNotes.length > 0) lines.push(`  setup: ${report.setupNotes.join('; ')}`);
  lines.push('  schedule:');
  lines.push(
    describeSchedule(report.schedule)
      .split('\n')
      .map((l) => `    ${l}`)
      .join('\n'),
  );
  if (verbose) {
    lines.push('  what the workload saw:');
    for (const o of report.outcomes) lines.push(`    ${o.action.kind} @${o.action.at}: ${o.result}`);
    if (report.output)
      lines.push(`  replicas' warnings:\n${report.output.split('\n').slice(-60).join('\n')}`);
  }
  lines.push(
    `  time: start-up ${seconds(report.setupMs)}, schedule ${seconds(report.activeMs)}, drain ${seconds(report.drainMs)} (${report.drainEnd}), all ${seconds(report.wallMs)}`,
  );
  lines.push(`  replay: ${replayCommand(report.schedule, defaultKinds)}`);
  return lines.join('\n');
}

function countBy(values: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}

export interface Summary {
  schedules: number;
  judged: number;
  errors: number;
  byTopology: Record<string, number>;
  faults: Record<string, number>;
  violations: Record<ViolationKind, number>;
  /** Seeds whose schedule broke each invariant. */
  seedsByViolation: Record<string, number[]>;
  failingSeeds: number[];
  exemptions: Exemptions;
  calls: number;
  wallMs: number;
}

export function summarize(reports: readonly RunReport[], wallMs: number): Summary {
  const violations = Object.fromEntries(VIOLATION_KINDS.map((k) => [k, 0])) as Record<ViolationKind, number>;
  const seedsByViolation: Record<string, number[]> = {};
  const exemptions: Exemptions = {
    answeredToKilled: 0,
    unreadableAnswers: 0,
    reboughtAfterHolderLost: 0,
    reboughtAfterLostAnswer: 0,
    rateUnmeasured: 0,
    maybeNotSent: 0,
  };
  let calls = 0;
  for (const r of reports) {
    if (!r.result) continue;
    calls += r.result.calls;
    for (const v of r.result.violations) {
      violations[v.kind] += 1;
      const seeds = seedsByViolation[v.kind] ?? [];
      if (!seeds.includes(r.schedule.seed)) seeds.push(r.schedule.seed);
      seedsByViolation[v.kind] = seeds;
    }
    for (const k of Object.keys(exemptions) as (keyof typeof exemptions)[])
      exemptions[k] += r.result.exemptions[k];
  }
  return {
    schedules: reports.length,
    judged: reports.filter((r) => r.result).length,
    errors: reports.filter((r) => !r.result).length,
    byTopology: countBy(reports.map((r) => r.schedule.topology)),
    faults: countBy(reports.flatMap((r) => r.faults.map((f) => f.kind))),
    violations,
    seedsByViolation,
    failingSeeds: reports.filter((r) => (r.result?.violations.length ?? 0) > 0).map((r) => r.schedule.seed),
    exemptions,
    calls,
    wallMs,
  };
}

export function summaryText(s: Summary): string {
  const lines = [
    '=== fault simulator summary ===',
    `schedules run: ${s.schedules} (${Object.entries(s.byTopology)
      .map(([t, n]) => `${t} ${n}`)
      .join(', ')}); judged ${s.judged}, not judged (errors) ${s.errors}; plat calls ${s.calls}`,
    `faults injected: ${
      Object.entries(s.faults)
        .sort((a, b) => b[1] - a[1])
        .map(([k, n]) => `${k} ${n}`)
        .join(', ') || 'none'
    }`,
    `invariant violations: ${
      Object.entries(s.violations)
        .filter(([, n]) => n > 0)
        .map(([k, n]) => `${k} ${n} (seeds ${(s.seedsByViolation[k] ?? []).join(' ')})`)
        .join('; ') || 'none'
    }`,
    `schedules with violations: ${s.failingSeeds.length}${s.failingSeeds.length ? ` (seeds ${s.failingSeeds.join(' ')})` : ''}`,
    `allowed and counted: answers to a killed holder ${s.exemptions.answeredToKilled}, answers that never reached the app ${s.exemptions.unreadableAnswers}, pages bought again after their holder was lost ${s.exemptions.reboughtAfterHolderLost}, after a lost answer ${s.exemptions.reboughtAfterLostAnswer}; busy seconds not judged (the recorder stalled) ${s.exemptions.rateUnmeasured}, rows "may not have been sent" (code -2) ${s.exemptions.maybeNotSent}`,
    `wall time: ${seconds(s.wallMs)} (${seconds(s.wallMs / Math.max(1, s.schedules))} per schedule)`,
  ];
  return lines.join('\n');
}
