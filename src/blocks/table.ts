/**
 * Slack's `table` block (https://docs.slack.dev/reference/block-kit/blocks/table-block), built
 * inside its limits: at most 100 rows (the header row included) of at most 20 raw_text cells,
 * 20 column settings. Slack shows one table per message, so a longer table is split into pages,
 * each with the header row again, to be posted as separate messages (or linked as a CSV). The
 * message's `text` keeps today's lines for notifications and clients without tables.
 */
import type { TableBlock } from '@slack/types';

export const TABLE_LIMITS = {
  /** Rows in one table block, the header row included. */
  rows: 100,
  /** Cells in a row, and column settings. */
  cells: 20,
  /** Our own cap per cell: a phone shows a short cell whole. */
  cellText: 200,
} as const;

export interface TableColumn {
  header: string;
  /** Numbers are right-aligned so digits line up. */
  align?: 'left' | 'right' | 'center';
  wrap?: boolean;
}

const cell = (text: string) => ({
  type: 'raw_text' as const,
  // Slack rejects an empty cell; a dash reads as "none".
  text: text.trim() === '' ? '—' : [...text].slice(0, TABLE_LIMITS.cellText).join(''),
});

/**
 * The rows as table blocks of at most TABLE_LIMITS.rows rows each (header repeated), columns
 * beyond TABLE_LIMITS.cells dropped. Raw text: nothing in a cell is read as mrkdwn.
 */
export function tableBlocks(
  columns: readonly TableColumn[],
  rows: readonly (readonly string[])[],
): TableBlock[] {
  const cols = columns.slice(0, TABLE_LIMITS.cells);
  const head = cols.map((c) => cell(c.header));
  const body = rows.map((r) => cols.map((_, i) => cell(r[i] ?? '')));
  const perTable = TABLE_LIMITS.rows - 1;
  const column_settings = cols.map((c) => ({ align: c.align ?? 'left', is_wrapped: c.wrap ?? false }));
  const tables: TableBlock[] = [];
  for (let start = 0; start < Math.max(body.length, 1); start += perTable)
    tables.push({ type: 'table', column_settings, rows: [head, ...body.slice(start, start + perTable)] });
  return tables;
}
