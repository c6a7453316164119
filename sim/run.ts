/**
 * One schedule from start to verdict: the world is built, caps are set, the workload and the
 * faults run on one timeline, the world heals, the run drains until the app is quiet, the
 * processes stop, and the checker compares what was recorded.
 */
import { type CapRecord, type CheckResult, check } from './checker.js';
import { applyFault } from './faults.js';
import type { Schedule } from './schedule.js';
import { textOf } from './slack-driver.js';
import { collect, openReader, readRuns } from './snapshot.js';
import { type ActionOutcome, ADMINS, CHANNELS, doAction, USERS } from './workload.js';
import { createWorld, type FaultRecord, type SharedServers, type World } from './world.js';

export interface RunReport {
  schedule: Schedule;
  /** null when the run could not be judged (the world did not start): see `error`. */
  result: CheckResult | null;
  error: string | null;
  faults: FaultRecord[];
  outcomes: ActionOutcome[];
  /** What the app answered to the setup commands (a channel cap may be refused). */
  setupNotes: string[];
  /** ms: the whole run, and its parts (start-up of the world, the schedule, the drain). */
  wallMs: number;
  setupMs: number;
  activeMs: number;
  drainMs: number;
  /** Why the drain ended: quiet, or the limit with what was still busy. */
  drainEnd: string;
  /** The replicas' warnings and errors, for a failure report. */
  output: string;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The app is quiet when no plat call arrived for this long and no run is mid-way. */
const QUIET_MS = 3000;
/** How long past its lease a held run may wait to be taken over before it counts as stranded. */
const STRANDED_MS = 20_000;
/** How long after the schedule the workload's last answers are awaited before the drain. */
const ACTIONS_GRACE_MS = 8000;
/** A run taken over after its lease (22 s) plus the history check's wait (30 s) fits in this. */
const DRAIN_LIMIT_MS = 90_000;

export async function runSchedule(schedule: Schedule, shared: SharedServers): Promise<RunReport> {
  const started = performance.now();
  const report: RunReport = {
    schedule,
    result: null,
    error: null,
    faults: [],
    outcomes: [],
    setupNotes: [],
    wallMs: 0,
    setupMs: 0,
    activeMs: 0,
    drainMs: 0,
    drainEnd: '',
    output: '',
  };
  let world: World | null = null;
  try {
    world = await createWorld(schedule, shared);
    const w = world;
    await healthy(w, report.setupNotes);
    const caps = await setCaps(w, report.setupNotes);
    let active = true;
    const ctx = {
      slack: w.slack,
      target: (replica: number) => w.target(replica),
      manualDigests: w.digests.manual,
      alertOwner: '2200001004',
      runTag: `s${schedule.seed}`,
      sleep,
    };
    w.startedAt = performance.now();
    const t0 = w.startedAt;
    report.setupMs = t0 - started;
    const until = (at: number) => sleep(Math.max(0, t0 + at - performance.now()));
    const faultsDone: Promise<void>[] = [];
    const actionsDone: Promise<void>[] = [];
    schedule.events.forEach((event, n) => {
      if (event.type === 'fault') {
        const { type: _, ...fault } = event;
        faultsDone.push(until(event.at).then(() => applyFault(fault, w, () => active)));
      } else {
        const { type: _, ...action } = event;
        actionsDone.push(
          until(event.at)
            .then(() => doAction(action, n, ctx))
            .then((outcome) => void report.outcomes.push(outcome)),
        );
      }
    });
    await Promise.all(faultsDone);
    await until(schedule.activeMs);
    active = false;
    await w.heal();
    const drainFrom = performance.now();
    report.activeMs = drainFrom - t0;
    // What people still wait for is observation only: the drain does not wait on it for long.
    await Promise.race([Promise.all(actionsDone), sleep(ACTIONS_GRACE_MS)]);
    report.drainEnd = await drain(w);
    report.drainMs = performance.now() - drainFrom;
    report.output = w.cluster.output();
    await w.cluster.stop(8000);
    report.result = check(await collect(w, caps));
  } catch (error) {
    report.error = error instanceof Error ? (error.stack ?? error.message) : String(error);
    if (world) report.output = world.cluster?.output() ?? '';
  } finally {
    if (world) {
      report.faults = [...world.faults];
      await world.close().catch(() => undefined);
    }
    report.wallMs = performance.now() - started;
  }
  return report;
}

/**
 * Waits (up to 30 s) until every replica answers /healthz with 200: its store and Redis are
 * reachable and its limiter has joined, so the workload does not start against a half-started
 * cluster (what a rolling deploy's readiness check does).
 */
async function healthy(world: World, notes: string[]): Promise<void> {
  const end = performance.now() + 30_000;
  for (const replica of world.cluster.replicas) {
    for (;;) {
      const status = await fetch(`${replica.url}/healthz`, { signal: AbortSignal.timeout(3000) })
        .then((r) => r.status)
        .catch(() => 0);
      if (status === 200) break;
      if (performance.now() > end) {
        notes.push(`${replica.name} not healthy at the start (${status})`);
        break;
      }
      await sleep(200);
    }
  }
}

/**
 * The caps of the setup plan, as the checker judges them. The workspace's and users' caps were
 * written before the processes started (world.ts); channel caps are set the way an admin sets
 * them, with `/platdesk budget #channel daily <points>`, and checked whatever the app answers:
 * README promises caps "per person, channel and workspace".
 */
async function setCaps(world: World, notes: string[]): Promise<CapRecord[]> {
  const { setup } = world.schedule;
  const caps: CapRecord[] = [
    { scope: 'workspace', subject: '*', period: 'daily', points: setup.workspaceDaily },
    ...setup.userDaily.map(
      (u): CapRecord => ({
        scope: 'user',
        subject: USERS[u.user] ?? USERS[0],
        period: 'daily',
        points: u.points,
      }),
    ),
  ];
  for (const c of setup.channelDaily) {
    const channel = CHANNELS[c.channel] ?? CHANNELS[0];
    const responseUrlId = world.slack.nextId('setup');
    const sent = await world.slack.command(world.target(0), {
      command: '/platdesk',
      text: `budget <#${channel}|${channel.toLowerCase()}> daily ${c.points}`,
      userId: ADMINS[0],
      channelId: channel,
      responseUrlId,
    });
    const answer = sent.ok ? await world.slack.response(responseUrlId, () => true, 8000) : null;
    const said = answer ? textOf(answer).replace(/\s+/g, ' ').slice(0, 120) : 'no answer';
    notes.push(`channel cap ${channel} ${c.points}: ${said}`);
    caps.push({
      scope: 'channel',
      subject: channel,
      period: 'daily',
      points: c.points,
      note: `the app answered the cap: "${said.slice(0, 60)}"`,
    });
  }
  return caps;
}

/**
 * Waits until the app is quiet: no plat call for QUIET_MS, and no digest run or alert check
 * running or posting (nor a history check due within a minute). A run whose holder stopped is
 * given STRANDED_MS past its lease to be taken over (the scheduler promises about 22 s); a run
 * still held past that is stranded, and the drain ends. Past DRAIN_LIMIT_MS the checker judges
 * whatever is.
 */
async function drain(world: World): Promise<string> {
  const from = performance.now();
  const reader = await openReader(world.database);
  try {
    for (;;) {
      const now = performance.now();
      const lastCall = world.recorder.calls.at(-1)?.at ?? 0;
      const quiet = now - lastCall >= QUIET_MS && now - from >= QUIET_MS;
      const runs = await readRuns(reader).catch(() => []);
      const wall = Date.now();
      const held = runs.filter((r) => r.state === 'running' || r.state === 'posting');
      // A post whose outcome was unclear is looked up in the history 30 s later: wait for that too.
      const checkDue = runs.filter(
        (r) => r.state === 'unknown' && r.nextAttemptAt !== null && r.nextAttemptAt - wall < 60_000,
      );
      const stranded = held.filter((r) => r.leaseExpiresAt !== null && wall - r.leaseExpiresAt > STRANDED_MS);
      if (held.length === 0 && checkDue.length === 0 && quiet) return 'quiet';
      if (checkDue.length === 0 && held.length > 0 && stranded.length === held.length && quiet)
        return `stranded: ${stranded.map((r) => `${r.kind} ${r.id} ${r.state}`).join(', ')}`;
      if (now - from >= DRAIN_LIMIT_MS)
        return `limit reached; still busy: ${[...held, ...checkDue].map((r) => `${r.kind} ${r.id} ${r.state}`).join(', ') || 'plat calls'}`;
      await sleep(500);
    }
  } finally {
    await reader.close();
  }
}
