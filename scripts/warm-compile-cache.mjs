/**
 * Fills Node's compile cache for the built app (dist/.cache, where src/start.ts turns the cache
 * on), so that the first start of a container starts as fast as the next: the image runs this
 * after `npm run build` (Dockerfile). Importing the bundle compiles it and its static chunks; it
 * does not start the app (dist/app.js starts only as the process entry).
 *
 * The cache is valid only for the Node binary that wrote it and for the files at the same paths:
 * run it where, and with the Node that, the app runs (a stale entry is ignored, never wrong).
 */
import * as module from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const DIST = resolve(dirname(fileURLToPath(import.meta.url)), '..', process.argv[2] ?? 'dist');
const { status, directory, message } = module.enableCompileCache(join(DIST, '.cache'));
if (status === module.constants.compileCacheStatus.FAILED) {
  process.stderr.write(`compile cache not written: ${message}\n`);
  process.exit(1);
}
await import(pathToFileURL(join(DIST, 'app.js')).href);
module.flushCompileCache();
process.stderr.write(`compile cache written to ${directory}\n`);
