/**
 * The process entry (`npm start`, the image): built to dist/main.js, it loads the app (the bundle
 * dist/app.js) only once the Node version is known to run it. undici fails on an older Node with a
 * raw TypeError while being imported, so the check comes first and says in one line which Node is
 * needed. Then it turns on Node's compile cache (where a directory can be written) and stack traces
 * that name src/ files and lines (the maps are read only when a stack is formatted, below), and
 * starts the app.
 *
 * Imports only Node's own modules, in syntax an old Node parses (built for node18).
 */
import { mkdirSync, readFileSync, realpathSync } from 'node:fs';
import * as module from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** package.json `engines.node`, in words (test/start.test.ts keeps the two equal). */
export const NODE_REQUIRED = {
  range: '^22.19.0 || >=24',
  words: 'Node.js 22.19 or newer (22 LTS or 24 LTS)',
};

/** Whether this Node satisfies NODE_REQUIRED.range. */
export function nodeSupported(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return (major === 22 && minor >= 19) || major >= 24;
}

interface Frame {
  getFileName(): string | undefined | null;
  getLineNumber(): number | null;
  getColumnNumber(): number | null;
  toString(): string;
}

/** The header V8 puts above the frames: what Error.prototype.toString gives, for any thrown value. */
function header(error: unknown): string {
  try {
    return error instanceof Error ? Error.prototype.toString.call(error) : String(error);
  } catch {
    return '<error>';
  }
}

/** Maps positions in the JavaScript files under `dir` to their sources, loading each map once. */
function createStackMapper(dir: string): (file: string, line: number, column: number) => string | null {
  const prefix = `${pathToFileURL(dir).href}/`;
  const maps = new Map<string, module.SourceMap | null>();
  const mapOf = (file: string): module.SourceMap | null => {
    let map = maps.get(file);
    if (map === undefined) {
      try {
        map = new module.SourceMap(JSON.parse(readFileSync(`${fileURLToPath(file)}.map`, 'utf8')));
      } catch {
        map = null; // no map beside it: the bundle's position is shown
      }
      maps.set(file, map);
    }
    return map;
  };
  return (file, line, column) => {
    const url = file.startsWith('file:') ? file : pathToFileURL(file).href;
    if (!url.startsWith(prefix)) return null;
    const entry = mapOf(url)?.findEntry(line - 1, column - 1);
    if (!entry || !('originalSource' in entry) || !entry.originalSource) return null;
    const source = new URL(entry.originalSource, url);
    const path = source.protocol === 'file:' ? fileURLToPath(source) : source.href;
    return `${path}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
  };
}

/**
 * Stack traces that name src/ files and lines, paid for only when a stack is formatted.
 * `process.setSourceMapsEnabled(true)` makes Node read and parse the source map of every module
 * as it loads it: at start, time and memory for maps that are never consulted. Instead,
 * `Error.prepareStackTrace` maps the frames that lie in the bundle's directory, reading a file's
 * `.map` the first time one of its frames is formatted (then kept). A frame the map does not cover
 * (a dependency: scripts/build.mjs keeps platdesk's own sources only) keeps its bundle position.
 */
function installLazySourceMaps(dir: string): void {
  const map = createStackMapper(dir);
  Error.prepareStackTrace = (error: unknown, frames: Frame[]) =>
    [
      header(error),
      ...frames.map((frame) => {
        const text = frame.toString();
        const file = frame.getFileName();
        const line = frame.getLineNumber();
        const column = frame.getColumnNumber();
        if (!file || line === null || column === null) return `    at ${text}`;
        const mapped = map(file, line, column);
        return `    at ${mapped ? text.replace(`${file}:${line}:${column}`, mapped) : text}`;
      }),
    ].join('\n');
}

/** Node's compile cache in `dist/.cache` if that can be written, else Node's default (tmpdir). */
function enableCompileCache(here: string): void {
  const enable = (module as { enableCompileCache?: (dir?: string) => { status: number } }).enableCompileCache;
  if (!enable) return;
  const { FAILED } = (module as unknown as { constants: { compileCacheStatus: { FAILED: number } } })
    .constants.compileCacheStatus;
  try {
    const dir = join(here, '.cache');
    mkdirSync(dir, { recursive: true });
    if (enable(dir).status !== FAILED) return;
  } catch {
    // Not writable (a read-only image layer): the default directory below.
  }
  try {
    enable();
  } catch {
    // No cache: start as before, only slower.
  }
}

export async function start(app: string): Promise<void> {
  if (!nodeSupported(process.versions.node)) {
    process.stderr.write(
      `platdesk needs ${NODE_REQUIRED.words}; this is Node.js ${process.versions.node}. Install a supported Node, or run it through npm (npm start), which uses the Node that npm ci installs.\n`,
    );
    process.exit(1);
  }
  const here = dirname(fileURLToPath(import.meta.url));
  installLazySourceMaps(here);
  enableCompileCache(here);
  const { main } = (await import(app)) as { main: () => Promise<void> };
  await main();
}

// The app's bundle sits beside this file (scripts/build.mjs); a variable, so tsc does not look for it.
const APP = './app.js';
/** Whether this module is the process's entry (Node runs the entry from its real path). */
function isEntry(): boolean {
  try {
    return !!process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
  } catch {
    return false;
  }
}

if (isEntry()) {
  start(APP).catch((error: unknown) => {
    process.stderr.write(
      `platdesk failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  });
}
