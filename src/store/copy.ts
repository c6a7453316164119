/**
 * Moving up from the embedded SQLite store to PostgreSQL (issue 12 "Moving up"): copies every
 * table of a platdesk SQLite file into an empty PostgreSQL database, in one transaction, and
 * verifies the row counts before it commits. `npm run store:copy` (store/copy-cli.ts) runs it.
 *
 * Generic on purpose: no table or column is named here. The tables and columns come from the
 * source (sqlite_master, PRAGMA table_info), the target schema from the store's own migrations
 * (migrations.ts, the same path `openStore` takes), and each value is converted to what the
 * target column's PostgreSQL type needs (information_schema.columns). A table added by a later
 * migration is copied without a change here.
 *
 * Order of checks, so that a refusal never leaves anything half done:
 *   1. the source is a platdesk database at exactly this build's schema version (older: start
 *      platdesk on it once so it migrates; newer: copy with the newer build);
 *   2. the target is migrated to this build's version (refused if it is newer) and then holds
 *      nothing but what the migrations themselves insert (the lock rows), and the same tables
 *      and columns as the source;
 *   3. one transaction: rows copied in batches (parents before children, by the source's foreign
 *      keys), identity sequences moved past every id the source ever used, row counts compared;
 *      any failure or mismatch rolls everything back.
 *
 * The source is read inside one read transaction (a consistent snapshot, even with platdesk
 * running on it), but rows written after the copy are not in the copy: stop platdesk first.
 */
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { describeUrl } from './engine.js';
import { MIGRATIONS, type Migration, migrate, StoreSchemaTooNewError } from './migrations.js';
import type { Schema } from './schema.js';

export interface CopyOptions {
  /** The SQLite file (DATABASE_PATH of the platdesk that wrote it). */
  from: string;
  /** postgres://… of an empty database (a fresh one, or one platdesk only migrated). */
  to: string;
  /** Rows per INSERT (also bounded by PostgreSQL's 65,535 parameters per statement). */
  batchRows?: number;
  /** This build's migrations (tests pass another list to play an older or newer build). */
  migrations?: readonly Migration[];
}

export interface TableCopied {
  table: string;
  /** Rows in the SQLite source. */
  source: number;
  /** Rows in PostgreSQL after the copy, counted before commit. */
  target: number;
}

export interface CopyReport {
  /** The schema version of both databases. */
  version: number;
  /** Where from and where to, without secrets. */
  from: string;
  to: string;
  tables: TableCopied[];
}

/** Nothing was written: the source or target is not fit for a copy. */
export class StoreCopyRefusedError extends Error {
  readonly code = 'store_copy_refused';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreCopyRefusedError';
  }
}

/** The copy was rolled back: the row counts after copying differ from the source's. */
export class StoreCopyMismatchError extends Error {
  readonly code = 'store_copy_mismatch';
  constructor(readonly tables: TableCopied[]) {
    const wrong = tables.filter((t) => t.source !== t.target);
    super(
      `Row counts differ after copying, nothing was kept (rolled back): ${wrong
        .map((t) => `${t.table} ${t.source} in SQLite, ${t.target} in PostgreSQL`)
        .join('; ')}`,
    );
    this.name = 'StoreCopyMismatchError';
  }
}

export function isStoreCopyError(error: unknown): error is StoreCopyRefusedError | StoreCopyMismatchError {
  return error instanceof StoreCopyRefusedError || error instanceof StoreCopyMismatchError;
}

/**
 * PostgreSQL keeps the schema version in platdesk_schema (migrations.ts readVersion); SQLite keeps
 * it in PRAGMA user_version. Both keep what older builds may still write in platdesk_rollout,
 * written by the migration runner of the engine itself. Bookkeeping of each engine, not data, so
 * neither is copied.
 */
const BOOKKEEPING_TABLES = ['platdesk_schema', 'platdesk_rollout'];
/** PostgreSQL's limit of bound parameters in one statement is 65,535. */
const MAX_PARAMETERS = 65_000;

/** A value as better-sqlite3 reads it with safeIntegers (INTEGER as bigint, so none is rounded). */
type SqliteValue = null | bigint | number | string | Buffer;

interface SourceTable {
  name: string;
  columns: string[];
  /** Tables this one references (PRAGMA foreign_key_list): copied first. */
  parents: string[];
  rows: number;
  /** sqlite_sequence: the highest AUTOINCREMENT id ever handed out, deleted rows included. */
  sequence: bigint | null;
}

interface TargetColumn {
  name: string;
  /** information_schema data_type, e.g. 'bigint', 'boolean', 'timestamp with time zone'. */
  type: string;
  /** Filled by a sequence (identity or serial): moved past the copied ids. */
  sequenced: boolean;
}

/** Copies `from` into `to`; throws StoreCopyRefusedError or StoreCopyMismatchError (nothing kept). */
export async function copySqliteToPostgres(options: CopyOptions): Promise<CopyReport> {
  const migrations = options.migrations ?? MIGRATIONS;
  if (!/^postgres(ql)?:\/\//.test(options.to))
    throw new StoreCopyRefusedError('--to must be a postgres:// or postgresql:// URL.');
  const to = describeUrl(options.to);
  if (!existsSync(options.from))
    throw new StoreCopyRefusedError(`There is no SQLite database at ${options.from}.`);

  let source: Database.Database;
  try {
    source = new Database(options.from, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new StoreCopyRefusedError(`Cannot open ${options.from} as SQLite: ${reason(error)}`, {
      cause: error,
    });
  }
  try {
    const version = sourceVersion(source, options.from, migrations.length);
    // One read transaction from here to the end: counts and rows are one snapshot.
    source.exec('BEGIN');
    try {
      const tables = readSourceTables(source);
      const seeded = await seedCounts(migrations);
      const target = new Kysely<Schema>({
        dialect: new PostgresDialect({
          pool: new pg.Pool({ connectionString: options.to, max: 2, connectionTimeoutMillis: 5000 }),
        }),
      });
      try {
        const copied = await copyInto(target, {
          source,
          tables,
          seeded,
          version,
          migrations,
          to,
          batchRows: options.batchRows ?? 500,
        });
        return { version, from: options.from, to, tables: copied };
      } catch (error) {
        if (isStoreCopyError(error)) throw error;
        throw new StoreCopyRefusedError(
          `Copy to ${to} failed, nothing was kept: ${redact(reason(error), options.to)}`,
          { cause: error },
        );
      } finally {
        await target.destroy();
      }
    } finally {
      source.exec('ROLLBACK');
    }
  } finally {
    source.close();
  }
}

// ---- the source ---------------------------------------------------------------------------------

function sourceVersion(source: Database.Database, path: string, known: number): number {
  const version = source.pragma('user_version', { simple: true }) as number;
  if (version === 0)
    throw new StoreCopyRefusedError(`${path} is not a platdesk database (its schema version is 0).`);
  if (version > known)
    throw new StoreCopyRefusedError(
      `${path} is at schema version ${version} but this build of platdesk knows only up to ${known}: ` +
        'a newer platdesk wrote it. Copy it with that newer build.',
    );
  if (version < known)
    throw new StoreCopyRefusedError(
      `${path} is at schema version ${version} and this build is at ${known}. Start this platdesk once ` +
        `with DATABASE_PATH=${path} (it migrates at start), stop it, then copy again.`,
    );
  return version;
}

const quoteSqlite = (name: string) => `"${name.replaceAll('"', '""')}"`;

function readSourceTables(source: Database.Database): SourceTable[] {
  const names = source
    .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'`)
    .pluck()
    .all()
    .filter((name) => !BOOKKEEPING_TABLES.includes(name as string)) as string[];
  const hasSequence =
    source.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_sequence'`).get() !==
    undefined;
  const sequences = new Map<string, bigint>(
    hasSequence
      ? (
          source.prepare('SELECT name, seq FROM sqlite_sequence').safeIntegers(true).raw(true).all() as [
            string,
            bigint,
          ][]
        ).map(([name, seq]) => [name, seq])
      : [],
  );
  const tables = names.map((name): SourceTable => {
    const columns = (source.pragma(`table_info(${quoteSqlite(name)})`) as { name: string }[]).map(
      (c) => c.name,
    );
    const parents = (source.pragma(`foreign_key_list(${quoteSqlite(name)})`) as { table: string }[])
      .map((fk) => fk.table)
      .filter((parent) => parent !== name);
    const rows = source
      .prepare(`SELECT count(*) FROM ${quoteSqlite(name)}`)
      .pluck()
      .get() as number;
    return { name, columns, parents: [...new Set(parents)], rows, sequence: sequences.get(name) ?? null };
  });
  return parentsFirst(tables);
}

/** Tables ordered so that every table comes after the tables it references. */
function parentsFirst(tables: SourceTable[]): SourceTable[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const ordered: SourceTable[] = [];
  const visiting = new Set<string>();
  const done = new Set<string>();
  const visit = (table: SourceTable) => {
    if (done.has(table.name)) return;
    if (visiting.has(table.name))
      throw new StoreCopyRefusedError(
        `The foreign keys of ${table.name} form a cycle; cannot order the copy.`,
      );
    visiting.add(table.name);
    for (const parent of table.parents) {
      const p = byName.get(parent);
      if (p) visit(p);
    }
    visiting.delete(table.name);
    done.add(table.name);
    ordered.push(table);
  };
  for (const table of [...tables].sort((a, b) => a.name.localeCompare(b.name))) visit(table);
  return ordered;
}

/**
 * Rows the migrations insert themselves (store_locks' lock rows), per table: a freshly migrated
 * target holds exactly these, and the copy replaces them with the source's. Found by migrating
 * a private in-memory database, so no table is named here.
 */
async function seedCounts(migrations: readonly Migration[]): Promise<Map<string, number>> {
  const db = new Kysely<Schema>({ dialect: new SqliteDialect({ database: new Database(':memory:') }) });
  try {
    await migrate(db, 'sqlite', migrations);
    const { rows: tables } = await sql<{ name: string }>`
      SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'`.execute(
      db,
    );
    const counts = new Map<string, number>();
    for (const { name } of tables.filter((t) => !BOOKKEEPING_TABLES.includes(t.name))) {
      const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.id(name)}`.execute(db);
      counts.set(name, rows[0]?.n ?? 0);
    }
    return counts;
  } finally {
    await db.destroy();
  }
}

// ---- the target ---------------------------------------------------------------------------------

interface CopyPlan {
  source: Database.Database;
  tables: SourceTable[];
  seeded: Map<string, number>;
  version: number;
  migrations: readonly Migration[];
  to: string;
  batchRows: number;
}

async function copyInto(target: Kysely<Schema>, plan: CopyPlan): Promise<TableCopied[]> {
  let version: number;
  try {
    version = await migrate(target, 'postgres', plan.migrations);
  } catch (error) {
    if (error instanceof StoreSchemaTooNewError)
      throw new StoreCopyRefusedError(
        `${plan.to} is at schema version ${error.found}, newer than this build (${error.known}): ` +
          'it is not an empty platdesk database.',
        { cause: error },
      );
    throw error;
  }
  if (version !== plan.version)
    throw new StoreCopyRefusedError(
      `Schema versions differ: the SQLite source is at ${plan.version}, ${plan.to} at ${version}.`,
    );
  const columns = await targetColumns(target);
  checkSameTables(plan.tables, columns, plan.to);
  // Every conversion is known before the first row is written (an unknown type is refused here).
  const copies = plan.tables.map((table) => {
    const tableColumns = columns.get(table.name) ?? new Map<string, TargetColumn>();
    const targets = table.columns.map((name) => tableColumns.get(name) as TargetColumn);
    return { table, tableColumns, targets, convert: targets.map((c) => converterFor(table.name, c)) };
  });

  return target.transaction().execute(async (trx) => {
    // No one else writes these tables until we commit, so "empty" still holds when we fill them.
    await sql`LOCK TABLE ${sql.join(plan.tables.map((t) => sql.id(t.name)))} IN EXCLUSIVE MODE`.execute(trx);
    await checkEmpty(trx, plan.tables, plan.seeded, plan.to);
    for (const { table, tableColumns, targets, convert } of copies) {
      // Rows the migrations inserted (lock rows) make way for the source's own.
      if ((plan.seeded.get(table.name) ?? 0) > 0) await sql`DELETE FROM ${sql.id(table.name)}`.execute(trx);
      await copyTable(trx, plan, table, targets, convert);
      await moveSequences(trx, table, tableColumns);
    }
    const copied: TableCopied[] = [];
    for (const table of plan.tables) {
      const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM ${sql.id(table.name)}`.execute(trx);
      copied.push({ table: table.name, source: table.rows, target: Number(rows[0]?.n ?? -1) });
    }
    if (copied.some((t) => t.source !== t.target)) throw new StoreCopyMismatchError(copied);
    return copied;
  });
}

async function targetColumns(target: Kysely<Schema>): Promise<Map<string, Map<string, TargetColumn>>> {
  const { rows } = await sql<{
    table_name: string;
    column_name: string;
    data_type: string;
    is_identity: string;
    column_default: string | null;
  }>`
    SELECT c.table_name, c.column_name, c.data_type, c.is_identity, c.column_default
    FROM information_schema.columns c
    JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
    WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE' AND c.table_name <> ALL(${BOOKKEEPING_TABLES})
    ORDER BY c.table_name, c.ordinal_position`.execute(target);
  const tables = new Map<string, Map<string, TargetColumn>>();
  for (const row of rows) {
    const table = tables.get(row.table_name) ?? new Map<string, TargetColumn>();
    table.set(row.column_name, {
      name: row.column_name,
      type: row.data_type,
      sequenced: row.is_identity === 'YES' || (row.column_default ?? '').startsWith('nextval('),
    });
    tables.set(row.table_name, table);
  }
  return tables;
}

/** Same tables, same columns: otherwise a row could not land whole, so nothing is copied. */
function checkSameTables(
  tables: SourceTable[],
  target: Map<string, Map<string, TargetColumn>>,
  to: string,
): void {
  const problems: string[] = [];
  const sourceNames = new Set(tables.map((t) => t.name));
  for (const table of tables) {
    const columns = target.get(table.name);
    if (!columns) {
      problems.push(`table ${table.name} is missing in ${to}`);
      continue;
    }
    for (const column of table.columns)
      if (!columns.has(column)) problems.push(`column ${table.name}.${column} is missing in ${to}`);
    for (const column of columns.keys())
      if (!table.columns.includes(column))
        problems.push(`column ${table.name}.${column} is not in the source`);
  }
  for (const name of target.keys())
    if (!sourceNames.has(name)) problems.push(`${to} has a table ${name} that the source has not`);
  if (problems.length > 0)
    throw new StoreCopyRefusedError(
      `The two schemas differ (${problems.join('; ')}). Copy into a database that holds nothing else.`,
    );
}

async function checkEmpty(
  target: Kysely<Schema>,
  tables: SourceTable[],
  seeded: Map<string, number>,
  to: string,
): Promise<void> {
  const full: string[] = [];
  for (const table of tables) {
    const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM ${sql.id(table.name)}`.execute(
      target,
    );
    const n = Number(rows[0]?.n ?? 0);
    if (n !== (seeded.get(table.name) ?? 0)) full.push(`${table.name} holds ${n} rows`);
  }
  if (full.length > 0)
    throw new StoreCopyRefusedError(
      `${to} is not empty (${full.join(', ')}); refusing to copy over existing data. ` +
        'Create an empty database and copy into that.',
    );
}

async function copyTable(
  trx: Kysely<Schema>,
  plan: CopyPlan,
  table: SourceTable,
  targets: TargetColumn[],
  convert: Converter[],
): Promise<void> {
  if (table.rows === 0) return;
  // Explicit ids into identity columns (a no-op for GENERATED BY DEFAULT, needed for ALWAYS).
  const overriding = targets.some((c) => c.sequenced) ? sql`OVERRIDING SYSTEM VALUE` : sql``;
  const perBatch = Math.max(1, Math.min(plan.batchRows, Math.floor(MAX_PARAMETERS / targets.length)));
  const insert = (batch: unknown[][]) =>
    sql`INSERT INTO ${sql.id(table.name)} (${sql.join(targets.map((c) => sql.id(c.name)))}) ${overriding}
        VALUES ${sql.join(batch.map((row) => sql`(${sql.join(row)})`))}`.execute(trx);
  const rows = plan.source
    .prepare(`SELECT ${table.columns.map(quoteSqlite).join(', ')} FROM ${quoteSqlite(table.name)}`)
    .safeIntegers(true)
    .raw(true)
    .iterate() as IterableIterator<SqliteValue[]>;
  let batch: unknown[][] = [];
  let n = 0;
  for (const row of rows) {
    n += 1;
    batch.push(row.map((value, i) => (convert[i] as Converter)(value, n)));
    if (batch.length >= perBatch) {
      await insert(batch);
      batch = [];
    }
  }
  if (batch.length > 0) await insert(batch);
}

/**
 * Identity columns continue after the highest id the source handed out: the larger of the
 * copied MAX(id) and SQLite's AUTOINCREMENT counter (which remembers ids of deleted rows too, so
 * an id is never used twice, as on SQLite).
 */
async function moveSequences(
  trx: Kysely<Schema>,
  table: SourceTable,
  columns: Map<string, TargetColumn>,
): Promise<void> {
  for (const column of columns.values()) {
    if (!column.sequenced) continue;
    const { rows } = await sql<{ max: string | null }>`
      SELECT max(${sql.id(column.name)})::text AS max FROM ${sql.id(table.name)}`.execute(trx);
    const copiedMax = rows[0]?.max ? BigInt(rows[0].max) : 0n;
    const last = table.sequence !== null && table.sequence > copiedMax ? table.sequence : copiedMax;
    if (last <= 0n) continue; // nothing used yet: the sequence starts at its start
    await sql`SELECT setval(pg_get_serial_sequence(quote_ident(${table.name}), ${column.name}), ${last.toString()}::bigint, true)`.execute(
      trx,
    );
  }
}

// ---- values ---------------------------------------------------------------------------------------

/** SQLite value → what `pg` binds for the target column's type; `row` numbers the row for messages. */
export type Converter = (value: SqliteValue, row: number) => unknown;

const INTEGER_TYPES = new Set(['bigint', 'integer', 'smallint']);
const FLOAT_TYPES = new Set(['double precision', 'real']);
const TEXT_TYPES = new Set(['text', 'character varying', 'character', 'uuid']);

/**
 * How a stored value becomes a value of the target column's type. platdesk's migrations declare
 * INTEGER (→ BIGINT: times in epoch milliseconds, 0/1 flags, counts), REAL (→ DOUBLE PRECISION:
 * points) and TEXT (JSON included); a port that declares BOOLEAN, TIMESTAMPTZ, JSONB or NUMERIC
 * on PostgreSQL is converted here too. An unknown type is refused before any row is written.
 */
export function converterFor(table: string, column: TargetColumn): Converter {
  const where = (row: number) => `${table}.${column.name} (row ${row})`;
  const fail = (value: SqliteValue, row: number): never => {
    throw new StoreCopyRefusedError(
      `Cannot convert ${describeValue(value)} in ${where(row)} to PostgreSQL ${column.type}.`,
    );
  };
  const type = column.type;
  if (INTEGER_TYPES.has(type))
    return (value, row) => {
      if (value === null || typeof value === 'bigint') return value;
      if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
      if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) return value.trim();
      return fail(value, row);
    };
  if (FLOAT_TYPES.has(type) || type === 'numeric')
    return (value, row) => {
      if (value === null || typeof value === 'number') return value;
      // NUMERIC takes the exact digits; a double takes the nearest value, as SQLite's REAL did.
      if (typeof value === 'bigint') return type === 'numeric' ? value.toString() : Number(value);
      if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)))
        return value.trim();
      return fail(value, row);
    };
  if (TEXT_TYPES.has(type))
    return (value, row) => {
      if (value === null || typeof value === 'string') return value;
      if (typeof value === 'bigint' || typeof value === 'number') return String(value);
      return fail(value, row);
    };
  if (type === 'boolean')
    return (value, row) => {
      if (value === null) return null;
      if (value === 0n || value === 0) return false;
      if (value === 1n || value === 1) return true;
      if (typeof value === 'string') {
        const word = value.trim().toLowerCase();
        if (['true', 't', '1'].includes(word)) return true;
        if (['false', 'f', '0'].includes(word)) return false;
      }
      return fail(value, row);
    };
  if (type === 'timestamp with time zone' || type === 'timestamp without time zone' || type === 'date')
    return (value, row) => {
      if (value === null) return null;
      // platdesk stores times as epoch milliseconds; written as UTC so no local zone creeps in.
      if (typeof value === 'bigint' || typeof value === 'number') {
        const date = new Date(Number(value));
        if (Number.isNaN(date.getTime())) return fail(value, row);
        const iso = date.toISOString();
        if (type === 'date') return iso.slice(0, 10);
        return type === 'timestamp with time zone' ? iso : iso.slice(0, -1);
      }
      if (typeof value === 'string') return value;
      return fail(value, row);
    };
  if (type === 'json' || type === 'jsonb')
    return (value, row) => {
      if (value === null) return null;
      const text = typeof value === 'string' ? value : typeof value === 'object' ? null : String(value);
      if (text === null) return fail(value, row);
      try {
        JSON.parse(text);
      } catch {
        return fail(value, row);
      }
      // Bound as text; PostgreSQL parses it as the column's JSON type.
      return text;
    };
  if (type === 'bytea')
    return (value, row) => {
      if (value === null || Buffer.isBuffer(value)) return value;
      if (typeof value === 'string') return Buffer.from(value, 'utf8');
      return fail(value, row);
    };
  throw new StoreCopyRefusedError(
    `Column ${table}.${column.name} has PostgreSQL type ${type}, which the copier does not know how to fill.`,
  );
}

function describeValue(value: SqliteValue): string {
  if (value === null) return 'NULL';
  if (Buffer.isBuffer(value)) return `a ${value.length}-byte blob`;
  const text = String(value);
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}

function reason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.message || (error as { code?: string }).code || error.name;
}

/** A driver message must never carry the password of the URL, whatever it quotes. */
export function redact(text: string, url: string): string {
  // Any user:password@ in the text, then the password itself wherever it appears.
  let out = text.replace(/(\/\/[^:/@\s]*:)[^@\s]*@/g, '$1***@');
  let password = '';
  try {
    password = new URL(url).password;
  } catch {
    return out;
  }
  if (password === '') return out;
  let decoded = password;
  try {
    decoded = decodeURIComponent(password);
  } catch {
    // a malformed %-escape: the raw form is the one to hide
  }
  for (const form of new Set([password, decoded])) out = out.split(form).join('***');
  return out;
}
