/**
 * Builds what `npm start` and the image run (tsc stays the type checker, `npm run typecheck`):
 * - dist/app.js: src/main.ts bundled by esbuild (ESM, code split so that what is loaded only when
 *   configured — pg and Kysely's PostgreSQL dialect, ioredis — sits in chunks of its own), with
 *   source maps; better-sqlite3 (a native addon) stays in node_modules;
 * - dist/main.js: src/start.ts, the entry that checks the Node version before loading the app;
 * - dist/chart-worker.js: the charts' renderer process (Vega, resvg), and dist/fonts: the chart font;
 * - dist/sandbox/cli.js: the plat API sandbox on its own (`npm run sandbox`);
 * - the operator's programs, run in the image with `node dist/<name>.js` (`kubectl exec`, a Job;
 *   docs/kubernetes.md): dist/store-copy.js, the SQLite → PostgreSQL copy (`npm run store:copy`),
 *   dist/rotate-keys.js, the re-sealing of stored secrets (`npm run rotate-keys`), and
 *   dist/migrate.js, the schema migrations and the rollout plan (`node dist/migrate.js --plan`).
 *
 * `--if-stale` builds only when a source is newer than the build (npm start on a built tree
 * starts at once). `--out DIR` writes elsewhere (bench/start.ts).
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const outIndex = args.indexOf('--out');
const OUT = resolve(ROOT, outIndex >= 0 ? (args[outIndex + 1] ?? 'dist') : 'dist');
/** assets/fonts files the built app needs (dist/fonts): the chart font and its licence. */
const CHART_FONT_FILES = ['NotoSansSC-charts.otf', 'OFL.txt'];
/** The file whose age says when the build was made: written last. */
const STAMP = join(OUT, 'main.js');

/** The newest modification time of the build's inputs. */
function newestInput() {
  let newest = 0;
  const visit = (path) => {
    const stat = statSync(path);
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
    else newest = Math.max(newest, stat.mtimeMs);
  };
  for (const input of ['src', 'assets/fonts', 'package.json', 'package-lock.json', 'scripts/build.mjs'])
    visit(join(ROOT, input));
  return newest;
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function decodeSegment(text) {
  const values = [];
  let value = 0;
  let shift = 0;
  for (const char of text) {
    const digit = B64.indexOf(char);
    value += (digit & 31) << shift;
    if (digit & 32) shift += 5;
    else {
      values.push(value & 1 ? -(value >>> 1) : value >>> 1);
      value = 0;
      shift = 0;
    }
  }
  return values;
}

function encodeValue(n) {
  let v = n < 0 ? (-n << 1) | 1 : n << 1;
  let out = '';
  do {
    let digit = v & 31;
    v >>>= 5;
    if (v > 0) digit |= 32;
    out += B64[digit];
  } while (v > 0);
  return out;
}

/**
 * Keeps in a source map only what maps to platdesk's own files: Node parses every map it finds
 * when source maps are on, and the dependencies' mappings were most of its memory and start time.
 * A stack frame in a dependency then shows the bundle's line instead.
 */
function ownSourcesOnly(file) {
  const map = JSON.parse(readFileSync(file, 'utf8'));
  const keep = map.sources.map((s) => !s.includes('node_modules/'));
  const newIndex = [];
  const sources = [];
  map.sources.forEach((s, i) => {
    if (keep[i]) newIndex[i] = sources.push(s) - 1;
  });
  let src = 0;
  let line = 0;
  let col = 0;
  let prev = { src: 0, line: 0, col: 0 };
  const lines = map.mappings.split(';').map((text) => {
    let genCol = 0;
    let prevGenCol = 0;
    const out = [];
    for (const segment of text ? text.split(',') : []) {
      const v = decodeSegment(segment);
      genCol += v[0];
      if (v.length < 4) continue;
      src += v[1];
      line += v[2];
      col += v[3];
      if (!keep[src]) continue;
      const ns = newIndex[src];
      out.push(
        encodeValue(genCol - prevGenCol) +
          encodeValue(ns - prev.src) +
          encodeValue(line - prev.line) +
          encodeValue(col - prev.col),
      );
      prevGenCol = genCol;
      prev = { src: ns, line, col };
    }
    return out.join(',');
  });
  writeFileSync(file, JSON.stringify({ version: 3, sources, names: [], mappings: lines.join(';') }));
}

/** The names platdesk imports from '@slack/bolt' as values (test/start.test.ts keeps this true). */
export const BOLT_PARTS = [
  'App',
  'Assistant',
  'LogLevel',
  'HTTPReceiver',
  'HTTPModuleFunctions',
  'SocketModeReceiver',
  'webApi',
];

/** The names platdesk imports from 'prom-client' (test/start.test.ts keeps this true). */
export const PROM_CLIENT_PARTS = ['Counter', 'Gauge', 'Histogram', 'Registry', 'collectDefaultMetrics'];

/**
 * Packages whose index loads much platdesk never uses: the bundle gets an entry of its own for
 * each (getters that require a part when first read), which names exactly the parts src/ imports.
 * - '@slack/bolt': Bolt's index loads every receiver (Express and its body parsers, AWS Lambda)
 *   and Socket Mode's client at start, HTTP mode or not;
 * - 'prom-client': its index loads the Summary (and its t-digest), the Pushgateway (an HTTP
 *   client) and the cluster aggregator (node:cluster), none of which platdesk uses.
 */
const PART_ENTRIES = {
  '@slack/bolt': 'scripts/build/bolt-entry.cjs',
  'prom-client': 'scripts/build/prom-client-entry.cjs',
};

/**
 * The same for a package imported from one package only: 'undici' from @slack/socket-mode, which
 * reads undici's WebSocket, its events and dispatcher: the entry gives it those names backed by the
 * `ws` package (undici's WebSocket runs its handshake on undici's fetch machinery and dispatcher,
 * most of what Socket Mode added to start's CPU; the tests run the same entry:
 * test/helpers/socket-websocket.ts). The plat client's own import of undici (first plat call)
 * stays the whole package.
 */
const PART_ENTRIES_FROM = {
  undici: { importer: '/node_modules/@slack/socket-mode/', entry: 'scripts/build/ws-socket-entry.cjs' },
};
/** The names @slack/socket-mode reads from undici (test/start.test.ts keeps this true). */
export const UNDICI_SOCKET_PARTS = [
  'WebSocket',
  'ping',
  'CloseEvent',
  'ErrorEvent',
  'MessageEvent',
  'Agent',
  'buildConnector',
  'fetch',
];

/**
 * Requires made at load that platdesk's configuration never uses, made lazy (a getter that
 * requires on first read), by file under node_modules: the exact line each replaces must be
 * there, or the build fails (an upgrade changed it: check and update the list).
 * - Bolt's App.js: the Socket Mode receiver and the HTTP receiver, read only when the App builds
 *   its own receiver (platdesk always gives one: src/http-server.ts), so Socket Mode never loads
 *   the HTTP receiver (raw-body, http-errors, iconv-lite) and HTTP mode loads it from
 *   src/http-server.ts;
 * - Bolt's HTTPReceiver.js, SocketModeReceiver.js: @slack/oauth (and jsonwebtoken), read only
 *   with an OAuth installer configured (platdesk runs its own: slack/installs.ts);
 * - prom-client's CPU metric: OpenTelemetry's API (51 modules), read only for exemplars, which
 *   platdesk does not turn on;
 * - ws's WebSocket (Socket Mode, scripts/build/ws-socket-entry.cjs): Node's https and tls, read
 *   only for a wss: link, when it opens (~15 ms of CPU to load; a ws: link never needs them).
 */
const LAZY_REQUIRES = {
  '@slack/bolt/dist/App.js': [
    ['SocketModeReceiver_1', '__importDefault(require("./receivers/SocketModeReceiver"))'],
    ['HTTPReceiver_1', '__importDefault(require("./receivers/HTTPReceiver"))'],
  ],
  '@slack/bolt/dist/receivers/HTTPReceiver.js': [['oauth_1', 'require("@slack/oauth")']],
  '@slack/bolt/dist/receivers/SocketModeReceiver.js': [['oauth_1', 'require("@slack/oauth")']],
  'prom-client/lib/metrics/processCpuTotal.js': [['OtelApi', "require('@opentelemetry/api')"]],
  'ws/lib/websocket.js': [
    ['https', "require('https')"],
    ['tls', "require('tls')"],
  ],
};

/**
 * Loads such packages' parts only when used: each package in PART_ENTRIES resolves to its entry
 * (scripts/build/*-entry.cjs), and the requires above wait until read. In HTTP mode Socket Mode's
 * client, and in both modes Express, its body parsers, the AWS receiver and OAuth, are never run.
 */
const lazyParts = {
  name: 'lazy-parts',
  setup(build) {
    const applied = new Set();
    const pattern = (paths) => new RegExp(`(${paths.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`);
    build.onResolve({ filter: new RegExp(`^${pattern(Object.keys(PART_ENTRIES)).source}`) }, (args) => ({
      path: join(ROOT, PART_ENTRIES[args.path]),
    }));
    build.onResolve({ filter: new RegExp(`^${pattern(Object.keys(PART_ENTRIES_FROM)).source}`) }, (args) => {
      const { importer, entry } = PART_ENTRIES_FROM[args.path];
      return args.importer.replace(/\\/g, '/').includes(importer) ? { path: join(ROOT, entry) } : undefined;
    });
    build.onLoad({ filter: pattern(Object.keys(LAZY_REQUIRES).map((f) => `node_modules/${f}`)) }, (args) => {
      const file = args.path.replace(/\\/g, '/').replace(/.*\/node_modules\//, '');
      const lazy = LAZY_REQUIRES[file];
      if (!lazy) return undefined;
      let text = readFileSync(args.path, 'utf8');
      for (const [name, load] of lazy) {
        const eager = `const ${name} = ${load};`;
        if (!text.includes(eager)) throw new Error(`lazy-parts: ${args.path} changed; update scripts/build.mjs`);
        // A namespace read property by property (X_1.Y), so a Proxy that loads on the first read.
        text = text.replace(eager, `const ${name} = new Proxy({}, { get: (_, key) => (${load})[key] });`);
      }
      applied.add(file);
      return { contents: text, loader: 'js' };
    });
    // A file that moved (a package upgrade) would otherwise stay eager without a word.
    build.onEnd((result) => {
      const missed = Object.keys(LAZY_REQUIRES).filter((f) => !applied.has(f));
      if (missed.length && !result.errors.length) throw new Error(`lazy-parts: not in the build: ${missed.join(', ')}`);
    });
  },
};

export function isStale() {
  return !existsSync(STAMP) || statSync(STAMP).mtimeMs < newestInput();
}

/** Builds into OUT (or `out`); resolves with the time taken and esbuild's metafile. */
export async function buildApp(out = OUT) {
  const { build } = await import('esbuild');
  const started = performance.now();
  rmSync(out, { recursive: true, force: true });
  const common = {
    absWorkingDir: ROOT,
    platform: 'node',
    format: 'esm',
    sourcemap: true,
    // Stack traces need file and line only: without the sources' text the maps Node reads at
    // start are a third of the size (memory and start time).
    sourcesContent: false,
    // Keep names in stack traces and in the logs (pino, errors by class name).
    keepNames: true,
    minify: true,
    logLevel: 'warning',
  };
  const { metafile } = await build({
    ...common,
    metafile: true,
    plugins: [lazyParts],
    entryPoints: {
      app: 'src/main.ts',
      // The other programs: the sandbox where the tsc build put it (README), the operator's
      // beside the app (the image has no tsx and no src/).
      'sandbox/cli': 'src/sandbox/cli.ts',
      'store-copy': 'src/store/copy-cli.ts',
      'rotate-keys': 'src/store/rotate-keys-cli.ts',
      // The schema migrations on their own, for a Job before a rollout (docs/operations.md "Upgrades").
      migrate: 'src/store/migrate-cli.ts',
      // The charts' renderer process (src/charts/files.ts finds it here), with Vega: the app itself
      // never loads Vega or resvg.
      'chart-worker': 'src/charts/worker.ts',
    },
    outdir: out,
    bundle: true,
    splitting: true,
    target: 'node22',
    chunkNames: 'chunks/[name]-[hash]',
    // Native addons (resvg: the charts' rasteriser, a prebuilt .node per platform) and pg's
    // optional native binding, never used.
    external: ['better-sqlite3', '@resvg/resvg-js', 'pg-native'],
    // Bundled CommonJS packages call require() and read __dirname; ESM has neither.
    banner: {
      js: [
        "import { createRequire as __platdeskRequire } from 'node:module';",
        "import { fileURLToPath as __platdeskPath } from 'node:url';",
        'const require = __platdeskRequire(import.meta.url);',
        'const __filename = __platdeskPath(import.meta.url);',
        "const __dirname = __filename.slice(0, __filename.lastIndexOf('/'));",
      ].join('\n'),
    },
  });
  for (const output of Object.keys(metafile.outputs))
    if (output.endsWith('.js.map')) ownSourcesOnly(resolve(ROOT, output));
  // The chart font (and its licence), where src/charts/files.ts looks for it in the build.
  mkdirSync(join(out, 'fonts'), { recursive: true });
  for (const file of CHART_FONT_FILES) copyFileSync(join(ROOT, 'assets/fonts', file), join(out, 'fonts', file));
  // Last: its time is the build's (STAMP).
  await build({ ...common, entryPoints: { main: 'src/start.ts' }, outdir: out, bundle: false, target: 'node18' });
  return { ms: performance.now() - started, metafile };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (args.includes('--if-stale') && !isStale()) process.exit(0);
  const { ms } = await buildApp();
  process.stderr.write(`platdesk built in ${Math.round(ms)} ms (${OUT.replace(`${ROOT}/`, '')})\n`);
}
