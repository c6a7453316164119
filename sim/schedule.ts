/**
 * A schedule: everything one simulated run does, fixed by one seed before anything starts
 * (TigerBeetle's VOPR and FoundationDB's simulation: one seed drives the workload and the faults,
 * so a failure replays from its seed). The workload (what people do: workload.ts) and the faults
 * (what the world does: faults.ts) are drawn apart and merged on one timeline here; the checker
 * (checker.ts) never sees the schedule's intentions, only what the system recorded.
 *
 * Generation is fast-check's: `fc.sample(arbitrary, { seed })` gives the schedule of a seed, and
 * the same arbitrary under `fc.assert` shrinks a failing schedule (cli.ts `--shrink`).
 */
import fc from 'fast-check';
import { type FaultEvent, type FaultKind, faultArbitrary, faultKindsOf } from './faults.js';
import { type SetupPlan, setupArbitrary, type WorkloadAction, workloadArbitrary } from './workload.js';

export type Topology = 'pg' | 'sqlite';
export const TOPOLOGIES: readonly Topology[] = ['pg', 'sqlite'];

/** How many app processes each topology runs. */
export const REPLICAS: Readonly<Record<Topology, number>> = { pg: 3, sqlite: 1 };

export type ScheduleEvent = ({ type: 'action' } & WorkloadAction) | ({ type: 'fault' } & FaultEvent);

export interface Schedule {
  seed: number;
  topology: Topology;
  replicas: number;
  /** The fault kinds this schedule could draw from (the `--faults` filter). */
  faultKinds: FaultKind[];
  setup: SetupPlan;
  /** Workload actions and faults, by start time (ms after the workload starts). */
  events: ScheduleEvent[];
  /** When the last action starts or the last fault ends (ms). */
  activeMs: number;
}

/** Milliseconds over which the workload's actions are spread. */
export const WORKLOAD_SPAN_MS: Readonly<Record<Topology, number>> = { pg: 10_000, sqlite: 8_000 };

export interface ScheduleOptions {
  topology: Topology;
  /** Fault kinds to draw from; default: every kind the topology supports. */
  faults?: readonly FaultKind[];
}

/** The arbitrary of schedules for a topology (seed excluded: fc gives it). */
export function scheduleArbitrary(options: ScheduleOptions): fc.Arbitrary<Omit<Schedule, 'seed'>> {
  const { topology } = options;
  const replicas = REPLICAS[topology];
  const kinds = faultKindsOf(topology).filter((k) => !options.faults || options.faults.includes(k));
  const span = WORKLOAD_SPAN_MS[topology];
  const faults =
    kinds.length === 0
      ? fc.constant([] as FaultEvent[])
      : fc.array(faultArbitrary(kinds, replicas, span, topology), { minLength: 1, maxLength: 3 });
  return fc
    .record({
      setup: setupArbitrary(),
      actions: workloadArbitrary(replicas, span),
      faults,
    })
    .map(({ setup, actions, faults: drawn }) => {
      const events: ScheduleEvent[] = [
        ...actions.map((a): ScheduleEvent => ({ type: 'action', ...a })),
        ...drawn.map((f): ScheduleEvent => ({ type: 'fault', ...f })),
      ].sort((a, b) => a.at - b.at);
      const activeMs = Math.max(
        span,
        ...drawn.map(
          (f) =>
            f.at + ('durationMs' in f ? f.durationMs : 0) + ('restartAfterMs' in f ? f.restartAfterMs : 0),
        ),
      );
      return { topology, replicas, faultKinds: kinds, setup, events, activeMs };
    });
}

/** The schedule of one seed. */
export function scheduleOf(seed: number, options: ScheduleOptions): Schedule {
  const [drawn] = fc.sample(scheduleArbitrary(options), { seed, numRuns: 1 });
  if (!drawn) throw new Error(`no schedule for seed ${seed}`);
  return { seed, ...drawn };
}

/** One line per event, for a failure report: `+1234ms action lookup …`. */
export function describeSchedule(schedule: Schedule): string {
  const lines = [
    `seed ${schedule.seed}, topology ${schedule.topology} (${schedule.replicas} process${schedule.replicas > 1 ? 'es' : ''}), faults from: ${schedule.faultKinds.join(', ') || 'none'}`,
    `setup: ${JSON.stringify(schedule.setup)}`,
  ];
  for (const e of schedule.events) {
    const { at, type, ...rest } = e;
    lines.push(`  +${String(at).padStart(5)}ms ${type} ${JSON.stringify(rest)}`);
  }
  return lines.join('\n');
}
