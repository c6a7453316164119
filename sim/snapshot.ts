/**
 * What the checker is given, read after the app's processes have stopped: the recorder's calls,
 * the store's rows (plain SELECTs on either engine, so the snapshot does not depend on the store
 * code under test), and the messages the Slack stand-in holds.
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import type { CapRecord, LedgerRecord, Observations, PostRecord, RunRecord } from './checker.js';
import type { World } from './world.js';

type Row = Record<string, unknown>;

/** Runs read-only queries on the world's store, whichever engine. */
export interface StoreReader {
  all(sql: string): Promise<Row[]>;
  close(): Promise<void>;
}

export async function openReader(database: World['database']): Promise<StoreReader> {
  if ('url' in database) {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    return {
      all: async (sql) => (await client.query(sql)).rows as Row[],
      close: () => client.end(),
    };
  }
  const db = new Database(database.path, { readonly: true, fileMustExist: true, timeout: 10_000 });
  return {
    all: async (sql) => db.prepare(sql).all() as Row[],
    close: async () => {
      db.close();
    },
  };
}

const num = (v: unknown): number => Number(v);
const text = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

/** The state of every digest run and alert check. */
export async function readRuns(
  reader: StoreReader,
): Promise<(RunRecord & { leaseExpiresAt: number | null; nextAttemptAt: number | null })[]> {
  const columns = 'id, state, created_at, message_ts, lease_expires_at, next_attempt_at';
  const digests = await reader.all(
    `SELECT ${columns}, subscription_id, window_start, window_end FROM digest_runs`,
  );
  const alerts = await reader.all(`SELECT ${columns} FROM alert_checks`);
  const of = (kind: 'digest' | 'alert', prefix: string) => (r: Row) => ({
    kind,
    id: num(r.id),
    state: String(r.state),
    key: `${prefix}-${num(r.id)}-${num(r.created_at)}`,
    messageTs: text(r.message_ts),
    leaseExpiresAt: r.lease_expires_at === null ? null : num(r.lease_expires_at),
    nextAttemptAt: r.next_attempt_at === null ? null : num(r.next_attempt_at),
    ...(kind === 'digest'
      ? { digestOf: `${num(r.subscription_id)}:${num(r.window_start)}-${num(r.window_end)}` }
      : {}),
  });
  return [...digests.map(of('digest', 'digest-run')), ...alerts.map(of('alert', 'alert-check'))];
}

/** Every keyed message in the Slack stand-in: channel-level messages and thread replies. */
export function readPosts(world: World): PostRecord[] {
  const channels = new Set(
    world.fake
      .callsTo('chat.postMessage')
      .map((c) => c.body.channel)
      .filter((c): c is string => typeof c === 'string'),
  );
  const posts: PostRecord[] = [];
  for (const channel of channels) {
    const top = world.fake.messages(channel);
    const all = [...top, ...top.flatMap((m) => world.fake.replies(channel, m.ts))];
    for (const m of all) {
      const key = m.metadata?.event_payload?.key;
      if (m.metadata && typeof key === 'string')
        posts.push({ key, eventType: m.metadata.event_type, channel, ts: m.ts });
    }
  }
  return posts;
}

export async function collect(world: World, caps: CapRecord[]): Promise<Observations> {
  const reader = await openReader(world.database);
  try {
    const ledger: LedgerRecord[] = (
      await reader.all(
        'SELECT id, charge_id, at, user_id, channel_id, operation, points, code, request_id, source FROM ledger',
      )
    ).map((r) => ({
      id: num(r.id),
      chargeId: String(r.charge_id),
      at: num(r.at),
      userId: text(r.user_id),
      channelId: text(r.channel_id),
      operation: String(r.operation),
      points: num(r.points),
      code: num(r.code),
      requestId: text(r.request_id),
      source: String(r.source),
    }));
    const counters = (
      await reader.all('SELECT scope, subject, period, period_key, spent, reserved FROM spend_counters')
    ).map((r) => ({
      scope: String(r.scope),
      subject: String(r.subject),
      period: String(r.period) as 'daily' | 'monthly',
      periodKey: String(r.period_key),
      spent: num(r.spent),
      reserved: num(r.reserved),
    }));
    const [budgets] = await reader.all("SELECT value_json FROM settings WHERE key = 'budgets'");
    let budgetZone = 'Asia/Shanghai';
    try {
      const zone = (JSON.parse(String(budgets?.value_json ?? '{}')) as { timezone?: unknown }).timezone;
      if (typeof zone === 'string' && zone !== '') budgetZone = zone;
    } catch {
      // the default zone
    }
    const runs = (await readRuns(reader)).map(({ leaseExpiresAt: _, nextAttemptAt: __, ...run }) => run);
    return {
      calls: world.recorder.calls.map((c) => ({ ...c })),
      ledger,
      counters,
      budgetZone,
      caps,
      runs,
      posts: readPosts(world),
      kills: [...world.kills],
      outages: [...world.outages],
      stalls: [...world.recorder.stalls],
    };
  } finally {
    await reader.close();
  }
}
