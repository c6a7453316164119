/** README.md's sections and its Quick start command line, for tests that hold README to its word. */
import { readdirSync, readFileSync } from 'node:fs';

const ROOT = new URL('../../', import.meta.url);
export const README = readFileSync(new URL('README.md', ROOT), 'utf8');

/** The text of a `## title` section, up to the next `## `. */
export function readmeSection(title: string): string {
  const start = README.indexOf(`\n## ${title}\n`);
  if (start === -1) throw new Error(`README has no section "${title}"`);
  const end = README.indexOf('\n## ', start + 1);
  return README.slice(start, end === -1 ? undefined : end);
}

/** The environment the Quick start's "run the app" command line sets: NAME=value before `npm start`. */
export function quickStartEnv(): Record<string, string> {
  const line = readmeSection('Quick start')
    .split('\n')
    .find((l) => l.includes('npm start'));
  if (!line) throw new Error('the Quick start has no npm start line');
  return Object.fromEntries(
    [...line.matchAll(/(?:^|\s)([A-Z][A-Z0-9_]*)=(\S+)/g)].map((m) => [m[1] ?? '', m[2] ?? '']),
  );
}

/** The docs' pages, by name, and README: every text a reader follows. */
export function docPages(): { name: string; text: string }[] {
  const docs = new URL('docs/', ROOT);
  return [
    { name: 'README.md', text: README },
    ...readdirSync(docs)
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map((f) => ({ name: `docs/${f}`, text: readFileSync(new URL(f, docs), 'utf8') })),
  ];
}

/**
 * The sample exchanges README and the docs show: ```text blocks whose first line is a command,
 * then (after a blank line) what the app answers, and after another the page Confirm brings.
 */
export function sampleExchanges(): {
  page: string;
  command: string;
  confirmation: string;
  answer?: string;
}[] {
  return docPages().flatMap(({ name, text }) =>
    [...text.matchAll(/```text\n(\/[\s\S]*?)\n```/g)].map((m) => {
      const [command = '', confirmation = '', answer] = (m[1] ?? '').split('\n\n');
      return { page: name, command, confirmation, ...(answer ? { answer } : {}) };
    }),
  );
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The emoji codes the README's examples show, as a Slack client draws them. */
const EMOJI: Record<string, string> = {
  money_with_wings: '💸',
  receipt: '🧾',
  warning: '⚠️',
  no_entry: '⛔',
};

/** mrkdwn as a reader sees it: markers gone, links by their label, entities and emoji drawn. */
function seen(text: string): string {
  return text
    .replace(/<([^<>|]+)\|([^<>]*)>/g, '$2')
    .replace(/<([^<>]+)>/g, '$1')
    .replace(/(^|[\s(（])[*_~]([^*_~\n]+)[*_~](?=$|[\s.,;:!?)，。：；）])/g, '$1$2')
    .replace(/:([a-z0-9_+-]+):/g, (all, name: string) => EMOJI[name] ?? all)
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/**
 * A Slack message as plain lines, the way README shows one: sections and context as read,
 * buttons as `[ label ]`, a table's rows with ` | ` between cells.
 */
export function messageAsText(message: unknown): string {
  const blocks = isObject(message) && Array.isArray(message.blocks) ? message.blocks : [];
  const lines: string[] = [];
  const text = (t: unknown) => (isObject(t) && typeof t.text === 'string' ? seen(t.text) : '');
  for (const b of blocks) {
    if (!isObject(b)) continue;
    switch (b.type) {
      case 'header':
      case 'section':
        if (b.text) lines.push(text(b.text));
        if (Array.isArray(b.fields)) lines.push(...b.fields.map(text));
        break;
      case 'context':
        lines.push((Array.isArray(b.elements) ? b.elements : []).map(text).filter(Boolean).join(' '));
        break;
      case 'actions':
        lines.push(
          (Array.isArray(b.elements) ? b.elements : [])
            .map((e) => `[ ${isObject(e) ? text(e.text) : ''} ]`)
            .join('  '),
        );
        break;
      case 'table':
        for (const row of Array.isArray(b.rows) ? b.rows : [])
          lines.push((row as Json[]).map((c) => String(c.text ?? '')).join(' | '));
        break;
      default:
        lines.push(`[${String(b.type)}]`);
    }
  }
  return lines.join('\n');
}

/**
 * What changes with the day an example is run: dates and times, and the order numbers that begin
 * with the day (YYMMDD-…). Both sides of a comparison are normalized the same way.
 */
export function withoutDates(text: string): string {
  return text
    .replace(/\d{4}年\d{1,2}月\d{1,2}日( \d{2}:\d{2})?/g, 'DATE')
    .replace(/\d{4}-\d{2}-\d{2}( \d{2}:\d{2})?/g, 'DATE')
    .replace(/\b\d{6}-(\d{6,})\b/g, 'YYMMDD-$1');
}
