/**
 * Slack's `table` block (https://docs.slack.dev/reference/block-kit/blocks/table-block), built
 * inside its limits: at most 100 rows (the header row included) of at most 20 raw_text cells,
 * 20 column settings, and at most 10,000 characters in all its cells (the budget integrators
 * report Slack enforcing; the reference states none per cell). Slack shows one table per message,
 * so a longer table is split into parts, each with the header row again: the caller posts each
 * part in a message of its own, or shows the first and keeps the rest as text. The message's
 * `text` keeps today's lines for notifications and clients without tables.
 */
import type { TableBlock } from '@slack/types';

export const TABLE_LIMITS = {
  /** Rows in one table block, the header row included. */
  rows: 100,
  /** Cells in a row, and column settings. */
  cells: 20,
  /** Characters in all the cells of one table. */
  characters: 10_000,
  /** Our own cap per cell: a phone shows a short cell whole. */
  cellText: 200,
} as const;

export interface TableColumn {
  header: string;
  /** Numbers are right-aligned so digits line up. */
  align?: 'left' | 'right' | 'center';
  wrap?: boolean;
}

type Cell = { type: 'raw_text'; text: string };

/**
 * A raw_text cell: shown as written, so nothing is escaped; angle brackets are swapped for ‹ › so
 * no cell (shop text included) can read as a mention or a link in any client.
 */
const cell = (text: string): Cell => ({
  type: 'raw_text',
  // Slack rejects an empty cell; a dash reads as "none".
  text:
    text.trim() === ''
      ? '—'
      : [...text.replace(/</g, '‹').replace(/>/g, '›')].slice(0, TABLE_LIMITS.cellText).join(''),
});

const charactersOf = (row: readonly Cell[]) => row.reduce((n, c) => n + c.text.length, 0);

/**
 * The rows as table blocks, each within TABLE_LIMITS (rows and characters, header repeated),
 * columns beyond TABLE_LIMITS.cells dropped. Raw text: nothing in a cell is read as mrkdwn, so
 * cells are never escaped.
 */
export function tableBlocks(
  columns: readonly TableColumn[],
  rows: readonly (readonly string[])[],
): TableBlock[] {
  const cols = columns.slice(0, TABLE_LIMITS.cells);
  const head = cols.map((c) => cell(c.header));
  const body = rows.map((r) => cols.map((_, i) => cell(r[i] ?? '')));
  const column_settings = cols.map((c) => ({ align: c.align ?? 'left', is_wrapped: c.wrap ?? false }));
  const tables: TableBlock[] = [];
  let part: Cell[][] = [head];
  let characters = charactersOf(head);
  for (const row of body) {
    const size = charactersOf(row);
    if (
      part.length > 1 &&
      (part.length >= TABLE_LIMITS.rows || characters + size > TABLE_LIMITS.characters)
    ) {
      tables.push({ type: 'table', column_settings, rows: part });
      part = [head];
      characters = charactersOf(head);
    }
    part.push(row);
    characters += size;
  }
  tables.push({ type: 'table', column_settings, rows: part });
  return tables;
}
