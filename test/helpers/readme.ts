/** README.md's sections and its Quick start command line, for tests that hold README to its word. */
import { readFileSync } from 'node:fs';

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
