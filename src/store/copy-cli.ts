/**
 * `npm run store:copy -- --from ./data/platdesk.sqlite --to "$DATABASE_URL"`: copies a platdesk
 * SQLite database into an empty PostgreSQL database (store/copy.ts), prints the row counts per
 * table, and exits 0 only when every count matches. Exit 1: refused or rolled back (the message
 * says why; nothing was kept); exit 2: wrong arguments. The URL's password is never printed.
 *
 * A separate program with its own arguments, like the sandbox's cli.ts: it reads no setting from
 * the environment, so it needs none of the app's Slack or plat settings.
 */
import { parseArgs } from 'node:util';
import { type CopyReport, copySqliteToPostgres, isStoreCopyError, redact } from './copy.js';

const USAGE =
  'usage: npm run store:copy -- --from <platdesk.sqlite> --to <postgres://user:password@host:5432/db>';

/** The report as a table: one line per table, then the total. */
function formatReport(report: CopyReport, seconds: number): string {
  const width = Math.max('table'.length, ...report.tables.map((t) => t.table.length));
  const line = (a: string, b: string, c: string) => `${a.padEnd(width)}  ${b.padStart(8)}  ${c.padStart(10)}`;
  const total = (k: 'source' | 'target') => report.tables.reduce((sum, t) => sum + t[k], 0);
  return [
    `Copied ${report.from} (schema version ${report.version}) to ${report.to} in ${seconds.toFixed(1)} s:`,
    line('table', 'SQLite', 'PostgreSQL'),
    ...report.tables.map((t) => line(t.table, String(t.source), String(t.target))),
    line('total', String(total('source')), String(total('target'))),
    'Row counts match. Point DATABASE_URL at the PostgreSQL database and start platdesk.',
  ].join('\n');
}

async function main(argv: string[]): Promise<number> {
  let from: string | undefined;
  let to: string | undefined;
  try {
    const { values } = parseArgs({
      args: argv,
      options: { from: { type: 'string' }, to: { type: 'string' }, help: { type: 'boolean' } },
      strict: true,
    });
    if (values.help) {
      console.log(USAGE);
      return 0;
    }
    from = values.from;
    to = values.to;
  } catch (error) {
    // parseArgs names the unknown option, never a value.
    console.error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  if (!from || !to) {
    console.error(`Both --from and --to are needed.\n${USAGE}`);
    return 2;
  }
  const started = performance.now();
  try {
    const report = await copySqliteToPostgres({ from, to });
    console.log(formatReport(report, (performance.now() - started) / 1000));
    return 0;
  } catch (error) {
    const message = isStoreCopyError(error)
      ? error.message
      : `unexpected failure: ${error instanceof Error ? error.message : String(error)}`;
    console.error(`store:copy: ${redact(message, to)}`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
