/**
 * The layers of DESIGN.md hold in the sources: each layer imports only the ones below it
 * (mcp → slack → charts → blocks → agent → lookups → alerts → digest → plat → store → sandbox), the small shared
 * modules at the top of src/ (clock, config, logger, …) import no layer above them, and the
 * composition modules (main.ts and what it wires: http-server, tenant-services, schedule-wakes, plat-wiring,
 * shutdown, start) are imported by no layer. Type-only imports count too: a type is a dependency.
 * One module is both: config.ts, the one reader of the environment, checks settings against the
 * layers' own tables (operations, locales, key formats) and is read by them (its types).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../src');
/** Top to bottom: a layer may import the layers after it, never those before it. */
const LAYERS = [
  // The MCP server (issue 37): a surface beside Slack's that answers through Slack (its consent DM).
  'mcp',
  'slack',
  'charts',
  'blocks',
  'agent',
  'lookups',
  'alerts',
  'digest',
  'plat',
  'store',
  'sandbox',
];
/** Modules at the top of src/ that only the top level may import. */
const COMPOSITION = [
  'main',
  'start',
  'http-server',
  'tenant-services',
  'schedule-wakes',
  'plat-wiring',
  'shutdown',
];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The layer of a file: its folder under src/, or `top:<name>` for a module at the top. */
function layerOf(file: string): string {
  const [first = '', second] = relative(SRC, file).split('/');
  return second === undefined ? `top:${first.replace(/\.(ts|js)$/, '')}` : first;
}

/** Every relative module a file imports or re-exports, statically or dynamically. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [
    ...text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+'(\.[^']+)'/gm),
    ...text.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g),
  ].map((m) => m[1] as string);
  return specifiers.map((s) => resolve(dirname(file), s));
}

/** Why `from` may not import `to`, or null when it may. */
function breach(from: string, to: string): string | null {
  if (from === to) return null;
  if (from.startsWith('top:')) {
    const name = from.slice(4);
    if (COMPOSITION.includes(name) || name === 'config') return null;
    // A shared module at the top imports no layer and no composition module.
    return to.startsWith('top:') && !COMPOSITION.includes(to.slice(4))
      ? null
      : 'a shared module imports upward';
  }
  if (to.startsWith('top:'))
    return COMPOSITION.includes(to.slice(4)) ? 'a layer imports the composition' : null;
  const a = LAYERS.indexOf(from);
  const b = LAYERS.indexOf(to);
  if (a < 0 || b < 0) return `a folder outside DESIGN.md's layers (${a < 0 ? from : to})`;
  return b < a ? `${from} imports ${to}, a layer above it` : null;
}

describe('layers (DESIGN.md)', () => {
  const files = sources(SRC);

  it('finds the sources and their imports (the check below has something to check)', () => {
    expect(files.length).toBeGreaterThan(100);
    const edges = files.flatMap((f) => importsOf(f));
    expect(edges.length).toBeGreaterThan(500);
    // Dynamic imports are seen too (main.ts loads the chart module only at stop).
    expect(importsOf(join(SRC, 'shutdown.ts')).some((p) => p.endsWith('charts/render.js'))).toBe(true);
  });

  it('every import goes down or sideways, never up', () => {
    const breaches = files.flatMap((file) =>
      importsOf(file).flatMap((target) => {
        const why = breach(layerOf(file), layerOf(target));
        return why ? [`${relative(SRC, file)} → ${relative(SRC, target)}: ${why}`] : [];
      }),
    );
    expect(breaches).toEqual([]);
  });

  it('would catch a breach: the rule refuses an upward import and a layer importing the composition', () => {
    expect(breach('plat', 'store')).toBeNull();
    expect(breach('store', 'plat')).toMatch(/above/);
    expect(breach('blocks', 'slack')).toMatch(/above/);
    expect(breach('slack', 'top:http-server')).toMatch(/composition/);
    expect(breach('top:clock', 'plat')).toMatch(/upward/);
    expect(breach('top:main', 'slack')).toBeNull();
    expect(breach('top:config', 'plat')).toBeNull();
  });
});
