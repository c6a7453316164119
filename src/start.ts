/**
 * The process entry (`npm start`, the image): built to dist/main.js, it loads the app (the bundle
 * dist/app.js) only once the Node version is known to run it. undici fails on an older Node with a
 * raw TypeError while being imported, so the check comes first and says in one line which Node is
 * needed. Then it turns on Node's compile cache (where a directory can be written) and source maps
 * (stack traces name src/ files and lines), and starts the app.
 *
 * Imports only Node's own modules, in syntax an old Node parses (built for node18).
 */
import { mkdirSync } from 'node:fs';
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
  process.setSourceMapsEnabled(true);
  const here = dirname(fileURLToPath(import.meta.url));
  enableCompileCache(here);
  const { main } = (await import(app)) as { main: () => Promise<void> };
  await main();
}

// The app's bundle sits beside this file (scripts/build.mjs); a variable, so tsc does not look for it.
const APP = './app.js';
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  start(APP).catch((error: unknown) => {
    process.stderr.write(
      `platdesk failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  });
}
