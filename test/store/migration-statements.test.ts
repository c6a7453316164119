/**
 * How a migration's text is cut into statements (src/store/migrations.ts statements): at ';' at
 * the end of a line, except inside a $$-quoted PostgreSQL function body; and a statement marked
 * `-- postgres only` is left out on SQLite (the money functions' migration).
 */
import { describe, expect, it } from 'vitest';
import { MIGRATIONS, statements } from '../../src/store/migrations.js';

const DDL = `
  CREATE TABLE t (a INTEGER);
  -- postgres only: a function
  CREATE FUNCTION f() RETURNS integer LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM 1;
    RETURN 2;
  END $$;

  -- a comment alone;
  CREATE INDEX t_a ON t (a);
`;

describe('migration statements', () => {
  it('keeps a $$ body whole and leaves postgres-only statements out on SQLite', () => {
    const pg = statements(DDL, 'postgres');
    expect(pg).toHaveLength(3);
    expect(pg[1]).toMatch(
      /^-- postgres only: a function\n\s*CREATE FUNCTION f\(\)[\s\S]*RETURN 2;\n\s*END \$\$$/,
    );
    expect(statements(DDL, 'sqlite')).toEqual([pg[0], pg[2]]);
  });

  it('the money functions come after the tenants migration: three functions on PostgreSQL, nothing on SQLite', () => {
    const at = MIGRATIONS.findIndex((m) => m.sql.includes('FUNCTION platdesk_reserve'));
    const tenants = MIGRATIONS.findIndex((m) => m.sql.includes('CREATE TABLE spend_counters_v11'));
    expect(tenants).toBeGreaterThanOrEqual(0);
    expect(at).toBeGreaterThan(tenants);
    const last = MIGRATIONS[at]?.sql ?? '';
    expect(statements(last, 'postgres').map((s) => /CREATE FUNCTION (\w+)/.exec(s)?.[1])).toEqual([
      'platdesk_reserve',
      'platdesk_give_back',
      'platdesk_record',
    ]);
    expect(statements(last, 'sqlite')).toEqual([]);
  });
});
