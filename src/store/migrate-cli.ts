/**
 * `node dist/migrate.js [--plan] [--json] [--while-running]` (`npm run migrate` from a checkout):
 * this build's schema migrations, from the image, for a Job run before a rollout (and with
 * PLATDESK_MIGRATE=job, the replicas leave migrating to it). Reads DATABASE_URL / DATABASE_PATH
 * (from `.env` too, as `npm start` does) and nothing else: no Slack or plat secret.
 *
 * - `--plan`: changes nothing; prints the database's schema version, this build's, each pending
 *   migration with its rollout class, and what the next rollout needs: nothing, a rolling update
 *   (every pending step is online: older replicas run on), or every older replica stopped first
 *   (a step is offline). `--json` prints the same as one JSON object (migrations.ts RolloutPlan,
 *   plus the platdesk processes connected now on PostgreSQL).
 * - without it: applies the pending migrations (each in its own transaction, under the migration
 *   lock; migrations.ts). An offline step is refused (exit 3) while platdesk processes are
 *   connected to the PostgreSQL database (they hold its database lock), unless `--while-running`
 *   says to go on under them: their writes then wait for the step and land after it or fail, and
 *   they stop taking paid work when it commits (store/database-watch.ts).
 *
 * Exit: 0 done (or planned), 1 failed (unreachable, a schema newer than this build may write),
 * 2 wrong arguments or settings, 3 refused.
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadDatabaseConfig, loadEnvFile } from '../config.js';
import { connectDatabase } from './engine.js';
import {
  MIGRATIONS,
  migrate,
  planRollout,
  type RolloutPlan,
  recordedCompatibleFrom,
  StoreSchemaTooNewError,
  schemaVersion,
} from './migrations.js';

const USAGE = 'usage: node dist/migrate.js [--plan] [--json] [--while-running]';
/** A step may wait for an older replica's open write, or rebuild a large table: minutes, not 10 s. */
const MIGRATION_QUERY_TIMEOUT_MS = 10 * 60_000;

function describePlan(plan: RolloutPlan, location: string, connected: number | null): string {
  const lines = [`platdesk migrations for ${location}`];
  lines.push(`  database schema: version ${plan.found}; this build knows ${plan.known}`);
  if (connected !== null) lines.push(`  platdesk processes connected now: ${connected}`);
  if (plan.needs === 'newer') {
    lines.push(
      plan.compatible
        ? '  a newer build migrated it, by online steps only since this build: this build may still run on it'
        : '  a newer build migrated it past what this build may write: run the newer build',
    );
    return lines.join('\n');
  }
  if (plan.pending.length === 0) {
    lines.push('  up to date: the next rollout needs no migration');
    return lines.join('\n');
  }
  lines.push(`  pending: ${plan.pending.length}`);
  for (const step of plan.pending)
    lines.push(`    ${String(step.version).padStart(3)}  ${step.rollout.padEnd(7)}  ${step.summary}`);
  const offline = plan.pending.filter((p) => p.rollout === 'offline').map((p) => p.version);
  lines.push(
    plan.needs === 'stop-older-replicas'
      ? `  next rollout: stop every replica of the older build first (offline: ${offline.join(', ')}), then migrate and start this build (Recreate, not RollingUpdate)`
      : '  next rollout: a rolling update; every pending step is online, so older replicas run on while it is applied and until they are replaced',
  );
  return lines.join('\n');
}

async function main(argv: string[]): Promise<number> {
  let values: { plan?: boolean; json?: boolean; 'while-running'?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        plan: { type: 'boolean' },
        json: { type: 'boolean' },
        'while-running': { type: 'boolean' },
        help: { type: 'boolean' },
      },
      strict: true,
    }));
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  let settings: ReturnType<typeof loadDatabaseConfig>;
  try {
    loadEnvFile('.env');
    settings = loadDatabaseConfig();
  } catch (error) {
    console.error(`migrate: ${error instanceof ConfigError ? error.message : String(error)}`);
    return 2;
  }
  const { db, engine, location } = await connectDatabase({
    ...settings,
    poolMax: 2,
    queryTimeoutMs: MIGRATION_QUERY_TIMEOUT_MS,
  });
  try {
    // Every platdesk on PostgreSQL holds its database lock for its whole life (sole-lock.ts).
    const connected =
      engine === 'postgres' ? await (await import('./sole-lock.js')).platdeskProcessesConnected(db) : null;
    const found = await schemaVersion(db, engine);
    const plan = planRollout(found, found > MIGRATIONS.length ? await recordedCompatibleFrom(db) : null);
    if (values.plan) {
      console.log(
        values.json
          ? JSON.stringify({ location, engine, connected, ...plan })
          : describePlan(plan, location, connected),
      );
      return 0;
    }
    if (
      plan.needs === 'stop-older-replicas' &&
      connected !== null &&
      connected > 0 &&
      !values['while-running']
    ) {
      console.error(
        `${describePlan(plan, location, connected)}\nmigrate: refused: ${connected} platdesk process(es) still use this database; ` +
          'stop every replica of the older build first, or pass --while-running to migrate under them',
      );
      return 3;
    }
    const reached = await migrate(db, engine);
    console.log(
      reached === found
        ? `migrate: ${location}: nothing to do (schema version ${found})`
        : `migrate: ${location}: migrated from version ${found} to ${reached} (${plan.pending
            .map((p) => `${p.version} ${p.rollout}`)
            .join(', ')})`,
    );
    return 0;
  } catch (error) {
    console.error(
      `migrate: ${error instanceof StoreSchemaTooNewError || error instanceof Error ? error.message : String(error)}`,
    );
    return 1;
  } finally {
    await db.destroy();
  }
}

process.exitCode = await main(process.argv.slice(2));
