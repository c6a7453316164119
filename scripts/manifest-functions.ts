/**
 * Prints manifest.yml's `functions:` block as the tool catalog derives it (blocks/tools.ts), in
 * the YAML subset test/helpers/manifest.ts reads. `npx tsx scripts/manifest-functions.ts --write`
 * replaces the block in manifest.yml (from the `functions:` line to the end of the file);
 * test/manifest.test.ts fails while the file and the catalog differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { wordsFor } from '../src/blocks/i18n/words.js';
import { manifestFunctions } from '../src/blocks/tools.js';

const scalar = (value: string | number | boolean): string => {
  if (typeof value !== 'string') return String(value);
  // Plain unless YAML would read it otherwise: then JSON's double quotes (a YAML subset).
  return /^[\s\-?:,[\]{}#&*!|>'"%@`]|: | #|\s$|^(true|false|null|~|-?\d+(\.\d+)?)$/.test(value) || value === ''
    ? JSON.stringify(value)
    : value;
};

export function functionsYaml(): string {
  const lines = ['functions:'];
  for (const [id, f] of Object.entries(manifestFunctions(wordsFor('en')))) {
    lines.push(`  ${id}:`, `    title: ${scalar(f.title)}`, `    description: ${scalar(f.description)}`);
    for (const kind of ['input_parameters', 'output_parameters'] as const) {
      lines.push(`    ${kind}:`);
      for (const [name, p] of Object.entries(f[kind])) {
        lines.push(`      ${name}:`);
        for (const [key, value] of Object.entries(p))
          if (value !== undefined) lines.push(`        ${key}: ${scalar(value as string | number | boolean)}`);
      }
    }
  }
  return `${lines.join('\n')}\n`;
}

if (process.argv.includes('--write')) {
  const path = new URL('../manifest.yml', import.meta.url);
  const text = readFileSync(path, 'utf8');
  const at = text.search(/^functions:/m);
  if (at < 0) throw new Error('manifest.yml has no functions: block');
  writeFileSync(path, text.slice(0, at) + functionsYaml());
} else process.stdout.write(functionsYaml());
