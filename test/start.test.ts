/**
 * Issues 22.4 and 21.1: the process entry (src/start.ts → dist/main.js) refuses an older Node in
 * one line naming the Node it needs, before anything imports undici; the production build is an
 * esbuild bundle whose entry chunk does not load pg, Kysely's PostgreSQL dialect or ioredis (they
 * are reached only by dynamic import, when configured), whose stack traces name src/ files through its source maps (read only when a stack is formatted),
 * and which starts and answers /healthz in both Slack modes. Issue 26: Vega and resvg are only in
 * the chart worker (dist/chart-worker.js), which renders with the font the build copies to dist/fonts.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chartFiles } from '../src/charts/files.js';
import { rasterise } from '../src/charts/rasterise.js';
import { createChartRenderer } from '../src/charts/renderer.js';
import { createSandbox, type Sandbox } from '../src/sandbox/index.js';
import { NODE_REQUIRED, nodeSupported } from '../src/start.js';
import { openStore } from '../src/store/engine.js';
import { SMALL_ZH_CHART } from './helpers/chart-spec.js';
import { textOf } from './helpers/platdesk-harness.js';
import { replicaSlack } from './helpers/replica-slack.js';
import { type FakeSlack, startSlackApiServer } from './helpers/slack-api-server.js';
import { slashCommand } from './helpers/slack-payloads.js';

const ROOT = resolve(import.meta.dirname, '..');
const execFileAsync = promisify(execFile);
const read = (name: string) => JSON.parse(readFileSync(join(ROOT, name), 'utf8'));

describe('the Node version check', () => {
  it('accepts exactly the range package.json names (and the lockfile repeats)', () => {
    expect(read('package.json').engines.node).toBe(NODE_REQUIRED.range);
    expect(read('package-lock.json').packages[''].engines.node).toBe(NODE_REQUIRED.range);
    expect(['20.20.2', '22.18.1', '23.11.0', '18.0.0'].filter(nodeSupported)).toEqual([]);
    expect(['22.19.0', '22.21.1', '24.0.0', '24.21.0', '25.2.0'].every(nodeSupported)).toBe(true);
    expect(nodeSupported(process.versions.node)).toBe(true);
  });

  it('on an older Node the entry exits 1 with one line naming the Node it needs, loading nothing', () => {
    // The entry as Node runs it (type stripping), on a Node that says it is 20.20.2.
    const pretend = `Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '20.20.2' } });`;
    const result = spawnSyncText(process.execPath, [
      '--import',
      `data:text/javascript,${encodeURIComponent(pretend)}`,
      join(ROOT, 'src/start.ts'),
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('platdesk needs Node.js 22.19 or newer');
    expect(lines[0]).toContain('this is Node.js 20.20.2');
  });
});

describe("Node's flags for the app", () => {
  it('npm start and the image run the entry with the same flags', () => {
    const start = (read('package.json').scripts.start as string).split(' ');
    expect(start[0]).toBe('node');
    expect(start.at(-1)).toBe('dist/main.js');
    const cmd = /^CMD (\[.*\])$/m.exec(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))?.[1];
    expect(JSON.parse(cmd ?? 'null')).toEqual(start);
    // A smaller young generation (idle RSS); docs/operations.md ("Node's flags") says why.
    expect(start).toContain('--max-semi-space-size=1');
    // A 256 MB old generation: V8 grows its heap by smaller steps below a small limit, and keeps
    // fewer freed pages resident (docs/benchmarks.md, "Memory after 10,000 lookups").
    expect(start).toContain('--max-old-space-size=256');
  });
});

function spawnSyncText(cmd: string, args: string[]): { code: number; stdout: string; stderr: string } {
  try {
    const stdout = execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return { code: 0, stdout, stderr: '' };
  } catch (error) {
    const e = error as { status: number; stdout: string; stderr: string };
    return { code: e.status, stdout: e.stdout, stderr: e.stderr };
  }
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject()));
    });
  });
}

describe('the bundle (scripts/build.mjs)', () => {
  let out: string;
  let metafile: { outputs: Record<string, { imports: { path: string; kind: string }[]; inputs: object }> };
  let fake: FakeSlack;
  let sandbox: Sandbox;
  let platUrl: string;

  beforeAll(async () => {
    mkdirSync(join(ROOT, 'node_modules/.cache'), { recursive: true });
    out = mkdtempSync(join(ROOT, 'node_modules/.cache/platdesk-build-test-'));
    const { buildApp } = (await import(join(ROOT, 'scripts/build.mjs'))) as {
      buildApp: (out: string) => Promise<{ metafile: typeof metafile }>;
    };
    ({ metafile } = await buildApp(out));
    fake = await startSlackApiServer();
    sandbox = createSandbox({ token: 'test' });
    platUrl = await sandbox.listen(0);
  }, 120_000);
  afterAll(async () => {
    await fake?.close();
    await sandbox?.close();
    if (out) rmSync(out, { recursive: true, force: true });
  });

  it('loads pg, the PostgreSQL dialect, ioredis, undici and the sandbox only by dynamic import', () => {
    const outputs = metafile.outputs;
    const name = (path: string) => Object.keys(outputs).find((o) => o.endsWith(path)) ?? path;
    /** Every output the app's entry chunk loads before it runs: static imports, transitively. */
    const loaded = new Set<string>();
    const visit = (output: string) => {
      if (loaded.has(output)) return;
      loaded.add(output);
      for (const i of outputs[output]?.imports ?? []) if (i.kind === 'import-statement') visit(i.path);
    };
    visit(name('/app.js'));
    const inputs = [...loaded].flatMap((o) => Object.keys(outputs[o]?.inputs ?? {}));
    expect(inputs.some((i) => i.startsWith('src/main.ts'))).toBe(true);
    expect(inputs.filter((i) => /node_modules\/(pg|pg-pool|ioredis)\//.test(i))).toEqual([]);
    expect(inputs.filter((i) => /kysely\/dist\/esm\/dialect\/postgres\//.test(i))).toEqual([]);
    expect(inputs).not.toContain('src/store/postgres-dialect.ts');
    // The built-in sandbox only with PLAT_SANDBOX=1.
    expect(inputs.filter((i) => i.startsWith('src/sandbox/'))).toEqual([]);
    // Charts (Vega, Vega-Lite, resvg's native addon) with the first chart; the OAuth install in
    // distributed mode only.
    expect(inputs.filter((i) => /node_modules\/(vega|vega-lite|d3-[a-z-]+)\//.test(i))).toEqual([]);
    expect(inputs.filter((i) => i.startsWith('src/charts/'))).toEqual([]);
    expect(inputs).not.toContain('src/slack/installs.ts');
    // undici (the plat client's HTTP) with the first plat call: no file of it is loaded at start,
    // Socket Mode's WebSocket included (the ws entry).
    expect(inputs.filter((i) => /node_modules\/undici\//.test(i))).toEqual([]);
    const staticImports = [...loaded].flatMap((o) => outputs[o]?.imports ?? []);
    expect(staticImports.filter((i) => i.path.includes('resvg'))).toEqual([]);
    // …and they are in the build, behind a dynamic import.
    const all = Object.values(outputs).flatMap((o) => Object.keys(o.inputs));
    expect(all.some((i) => /node_modules\/pg\//.test(i))).toBe(true);
    expect(all.some((i) => /node_modules\/ioredis\//.test(i))).toBe(true);
    expect(all.some((i) => /node_modules\/vega-lite\//.test(i))).toBe(true);
    expect(all.some((i) => /node_modules\/undici\//.test(i))).toBe(true);
    expect(all).toContain('src/slack/installs.ts');
  });

  it("gives the bundle every name src/ imports from 'prom-client', each loaded when first read", async () => {
    const { PROM_CLIENT_PARTS } = (await import(join(ROOT, 'scripts/build.mjs'))) as {
      PROM_CLIENT_PARTS: string[];
    };
    const used = new Set<string>();
    for (const [, names = ''] of readFileSync(join(ROOT, 'src/metrics.ts'), 'utf8').matchAll(
      /import \{([^}]*)\} from 'prom-client';/g,
    ))
      for (const name of names.split(',').map((n) => n.trim()))
        if (name && !name.startsWith('type ')) used.add(name);
    expect([...used].sort()).toEqual([...PROM_CLIENT_PARTS].sort());
    // metrics.ts is the only importer.
    const importers = execFileSync('grep', ['-rl', "from 'prom-client'", join(ROOT, 'src')], {
      encoding: 'utf8',
    });
    expect(importers.trim().split('\n')).toEqual([join(ROOT, 'src/metrics.ts')]);
    const entry = createRequire(import.meta.url)(join(ROOT, 'scripts/build/prom-client-entry.cjs')) as Record<
      string,
      unknown
    >;
    expect(Object.keys(entry).sort()).toEqual([...PROM_CLIENT_PARTS].sort());
    for (const name of PROM_CLIENT_PARTS) expect(typeof entry[name], name).toBe('function');
  });

  it("gives the bundle every name src/ imports from '@slack/bolt' as a value, each loaded when first read", async () => {
    const { BOLT_PARTS } = (await import(join(ROOT, 'scripts/build.mjs'))) as { BOLT_PARTS: string[] };
    const used = new Set<string>();
    const visit = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) visit(path);
        else if (path.endsWith('.ts'))
          for (const [, names = ''] of readFileSync(path, 'utf8').matchAll(
            /import \{([^}]*)\} from '@slack\/bolt';/g,
          ))
            for (const name of names.split(',').map((n) => n.trim()))
              if (name && !name.startsWith('type ')) used.add(name.split(' as ')[0] ?? name);
      }
    };
    visit(join(ROOT, 'src'));
    expect([...used].sort()).toEqual([...BOLT_PARTS].sort());
    const entry = createRequire(import.meta.url)(join(ROOT, 'scripts/build/bolt-entry.cjs')) as object;
    expect(Object.keys(entry).sort()).toEqual([...BOLT_PARTS].sort());
    // Bolt's index would have run Express's receiver: the app's entry chunk holds none of it.
    const app = Object.entries(metafile.outputs).find(([o]) => o.endsWith('/app.js'))?.[1];
    expect(
      Object.keys(app?.inputs ?? {}).filter((i) => /node_modules\/(express|body-parser)\//.test(i)),
    ).toEqual([]);
  });

  it("gives @slack/socket-mode every name it reads from 'undici' from the ws entry, and none of undici", async () => {
    const { UNDICI_SOCKET_PARTS } = (await import(join(ROOT, 'scripts/build.mjs'))) as {
      UNDICI_SOCKET_PARTS: string[];
    };
    const dir = join(ROOT, 'node_modules/@slack/socket-mode/dist/src');
    const used = new Set<string>();
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.js')))
      for (const [, name = ''] of readFileSync(join(dir, file), 'utf8').matchAll(/\bundici_1\.(\w+)/g))
        used.add(name);
    expect([...used].sort()).toEqual([...UNDICI_SOCKET_PARTS].sort());
    const entry = createRequire(import.meta.url)(join(ROOT, 'scripts/build/ws-socket-entry.cjs')) as Record<
      string,
      unknown
    >;
    expect(Object.keys(entry).sort()).toEqual([...UNDICI_SOCKET_PARTS].sort());
    for (const name of UNDICI_SOCKET_PARTS) expect(entry[name], name).toBeDefined();
    // In the bundle, socket-mode's client requires the entry, no file of undici.
    const inputs = (metafile as unknown as { inputs: Record<string, { imports: { path: string }[] }> })
      .inputs;
    const importersOf = (suffix: string) =>
      Object.entries(inputs)
        .filter(([, input]) => input.imports.some((i) => i.path.endsWith(suffix)))
        .map(([file]) => file);
    const undiciFromSocketMode = Object.entries(inputs).filter(
      ([file, input]) =>
        file.includes('@slack/socket-mode/') &&
        input.imports.some((i) => i.path.includes('node_modules/undici/')),
    );
    expect(undiciFromSocketMode).toEqual([]);
    expect(importersOf('scripts/build/ws-socket-entry.cjs').length).toBeGreaterThan(0);
    expect(
      importersOf('scripts/build/ws-socket-entry.cjs').every((f) => f.includes('@slack/socket-mode/')),
    ).toBe(true);
  });

  it('builds the sandbox and the operator programs where the commands name them', () => {
    for (const program of [
      'sandbox/cli.js',
      'store-copy.js',
      'rotate-keys.js',
      'migrate.js',
      'main.js',
      'app.js',
    ])
      expect(existsSync(join(out, program)), program).toBe(true);
  });

  it('runs rotate-keys and store-copy from the build alone (no tsx, no src/), as `kubectl exec` does in the image', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'platdesk-operator-programs-'));
    try {
      // A secret sealed under the old key, in a SQLite store.
      const oldKey = { id: 'old', key: Buffer.alloc(32, 1) };
      const newKey = { id: 'new', key: Buffer.alloc(32, 2) };
      const path = join(dir, 'platdesk.sqlite');
      const store = await openStore({ url: null, path, encryptionKeys: [oldKey] });
      await store.platAccounts.set(
        'T0001',
        { baseUrl: 'https://plat.example.invalid', token: 'plat-secret' },
        'U1',
      );
      await store.close();
      // The keys from a mounted Secret file, new first (PLATDESK_ENCRYPTION_KEY_FILE).
      const keyFile = join(dir, 'encryption-key');
      writeFileSync(keyFile, `new:${newKey.key.toString('base64')},old:${oldKey.key.toString('base64')}\n`);
      const run = (program: string, args: string[] = []) =>
        execFileAsync(process.execPath, [join(out, program), ...args], {
          cwd: dir,
          env: { PATH: process.env.PATH ?? '', DATABASE_PATH: path, PLATDESK_ENCRYPTION_KEY_FILE: keyFile },
        });
      const rotated = await run('rotate-keys.js');
      expect(rotated.stdout).toContain('0 installation(s) and 1 plat account(s) re-sealed under key "new"');
      expect(rotated.stdout + rotated.stderr).not.toContain('plat-secret');
      // The secret now opens with the new key alone.
      const after = await openStore({ url: null, path, encryptionKeys: [newKey] });
      try {
        expect((await after.platAccounts.get('T0001'))?.token).toBe('plat-secret');
      } finally {
        await after.close();
      }
      const help = await run('store-copy.js', ['--help']);
      expect(help.stdout).toContain('--from');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('node dist/migrate.js --plan runs from the build alone: what the next rollout needs, then the migrations', () => {
    const dir = mkdtempSync(join(ROOT, 'node_modules/.cache/platdesk-migrate-test-'));
    try {
      const env = { PATH: process.env.PATH ?? '', DATABASE_PATH: join(dir, 'platdesk.sqlite') };
      const node = join(ROOT, 'node_modules/.bin/node');
      const plan = execFileSync(node, [join(out, 'migrate.js'), '--plan', '--json'], {
        cwd: dir,
        env,
      }).toString();
      expect(JSON.parse(plan)).toMatchObject({ engine: 'sqlite', found: 0, needs: 'stop-older-replicas' });
      const applied = execFileSync(node, [join(out, 'migrate.js')], { cwd: dir, env }).toString();
      expect(applied).toMatch(/migrated from version 0 to \d+/);
      const again = execFileSync(node, [join(out, 'migrate.js'), '--plan'], { cwd: dir, env }).toString();
      expect(again).toContain('up to date: the next rollout needs no migration');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps Vega and resvg out of the app: only the chart worker (dist/chart-worker.js) loads them', () => {
    const outputs = metafile.outputs;
    const inputsOf = (entry: string) => {
      const loaded = new Set<string>();
      const visit = (output: string) => {
        if (loaded.has(output)) return;
        loaded.add(output);
        for (const i of outputs[output]?.imports ?? []) if (i.kind === 'import-statement') visit(i.path);
      };
      visit(Object.keys(outputs).find((o) => o.endsWith(entry)) ?? entry);
      return [...loaded].flatMap((o) => [
        ...Object.keys(outputs[o]?.inputs ?? {}),
        ...(outputs[o]?.imports ?? []).map((i) => i.path),
      ]);
    };
    const charting = (i: string) =>
      /node_modules\/(vega|vega-lite)\/|@resvg\/resvg-js|src\/charts\/rasterise\.ts/.test(i);
    expect(inputsOf('/app.js').filter(charting)).toEqual([]);
    const worker = inputsOf('/chart-worker.js');
    expect(worker).toContain('src/charts/rasterise.ts');
    expect(worker).toContain('@resvg/resvg-js');
    expect(worker.some((i) => /node_modules\/vega-lite\//.test(i))).toBe(true);
  });

  it('finds the chart worker and font from wherever the bundle put src/charts/files.ts', () => {
    const homes = Object.entries(metafile.outputs)
      .filter(([o, meta]) => o.endsWith('.js') && 'src/charts/files.ts' in meta.inputs)
      .map(([o]) => pathToFileURL(resolve(ROOT, o)).href);
    expect(homes.length).toBeGreaterThan(0);
    for (const home of homes) {
      const files = chartFiles(home);
      expect(fileURLToPath(files.worker)).toBe(join(out, 'chart-worker.js'));
      expect(files.font).toBe(join(out, 'fonts/NotoSansSC-charts.otf'));
      expect(existsSync(files.font)).toBe(true);
      expect(files.execArgv).toEqual([]);
    }
  });

  it('renders a zh-CN chart in the built renderer process with the built font: the same SVG and PNG as the sources', async () => {
    const spec = SMALL_ZH_CHART;
    const renderer = createChartRenderer({
      files: { worker: pathToFileURL(join(out, 'chart-worker.js')), execArgv: [] },
    });
    try {
      const chart = await renderer.render(spec, 480);
      const fromSources = await rasterise(spec, 480);
      expect(chart.svg).toContain('近 30 天每日扣费点数');
      expect(chart.svg).toBe(fromSources.svg);
      // Without the font the built renderer would draw no text: the pictures would differ.
      expect(chart.png.equals(fromSources.png)).toBe(true);
    } finally {
      await renderer.close();
    }
  }, 60_000);

  it('maps stack traces to src/ files through the entry, reading the maps only when a stack is formatted', async () => {
    // Start-up fails (nothing listens on the Slack URL); at debug level the error's stack is logged.
    const port = await freePort();
    const child = spawn(process.execPath, [join(out, 'main.js')], {
      cwd: out,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        SLACK_BOT_TOKEN: 'xoxb-test',
        SLACK_SIGNING_SECRET: 'test-secret',
        SLACK_API_URL: `http://127.0.0.1:${port}/api/`,
        PLAT_BASE_URL: 'http://127.0.0.1:9',
        PLAT_TOKEN: 'test',
        DATABASE_PATH: join(out, 'stack.sqlite'),
        PORT: String(port),
        METRICS_PORT: '0',
        LOG_LEVEL: 'debug',
        NODE_OPTIONS: `--import ${JSON.stringify(`data:text/javascript,process.on('exit',()=>process.stderr.write('maps-on-load:'+process.sourceMapsEnabled+'\\n'))`)}`,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => {
      output += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      output += c.toString();
    });
    await new Promise((r) => child.once('close', r));
    const failed = output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg?: string; err?: { stack?: string } })
      .find((entry) => entry.msg === 'start-up failed');
    const stack = failed?.err?.stack ?? '';
    expect(stack, output).toMatch(/^\w*Error: /);
    // platdesk's own frames name their source file, line and column…
    expect(stack).toMatch(/\/src\/slack\/start-check\.ts:\d+:\d+/);
    // …and no frame is left in the bundle where a map covers it.
    const ownFrames = stack.split('\n').filter((l) => /\/src\/\S+\.ts:\d+:\d+/.test(l));
    expect(ownFrames.length).toBeGreaterThan(0);
    // Node's own source-map support stayed off: no map was read at load.
    expect(output).toContain('maps-on-load:false');
  }, 60_000);

  it.each([
    ['HTTP mode', { SLACK_SIGNING_SECRET: 'test-secret' }],
    ['Socket Mode', { SLACK_APP_TOKEN: 'xapp-test' }],
  ])(
    'starts in %s through the entry, answers /healthz 200 having loaded only what start needs, and answers Slack (a paid lookup; a command over the socket)',
    async (mode, modeEnv) => {
      const port = await freePort();
      const child = spawn(process.execPath, [join(out, 'main.js')], {
        cwd: out,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '/tmp',
          SLACK_BOT_TOKEN: 'xoxb-test',
          SLACK_API_URL: fake.apiUrl,
          PLAT_BASE_URL: platUrl,
          PLAT_TOKEN: 'test',
          DATABASE_PATH: join(out, `${port}.sqlite`),
          PORT: String(port),
          METRICS_PORT: '0',
          LOG_LEVEL: 'warn',
          ...modeEnv,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString();
      });
      try {
        let status = 0;
        for (let i = 0; i < 600 && status !== 200 && child.exitCode === null; i++) {
          status = await fetch(`http://127.0.0.1:${port}/healthz`).then(
            (r) => r.status,
            () => 0,
          );
          if (status !== 200) await new Promise((r) => setTimeout(r, 50));
        }
        expect(status, stderr).toBe(200);
        // Node's compile cache beside the build (writable here).
        expect(existsSync(join(out, '.cache'))).toBe(true);

        // At /healthz resvg's native addon (charts) is not mapped; better-sqlite3's is, so the
        // check sees addons at all.
        const maps = readFileSync(`/proc/${child.pid}/maps`, 'utf8');
        expect(maps).toMatch(/better-sqlite3\/\S*\.node/);
        expect(maps).not.toMatch(/resvg/);
        // Ready for real: a signed command is answered with a confirmation, and the Confirm click
        // with the plat API's answer (undici loaded at this first call, from the bundle's chunk).
        if (mode === 'HTTP mode') {
          const slack = replicaSlack(fake, 'test-secret', 'start');
          const target = { eventsUrl: `http://127.0.0.1:${port}/slack/events` };
          const calls = sandbox.stats().calls;
          const { answer } = await slack.lookup(target, target, '/shop', 'ww start-bundle', {
            timeoutMs: 15_000,
          });
          expect(textOf(answer), stderr).toContain('Charged 2 points');
          expect(sandbox.stats().calls - calls).toBe(1);
        } else {
          // Socket Mode on the bundle's WebSocket (scripts/build/ws-socket-entry.cjs): a command
          // pushed over the socket is acked over it and answered at its response_url.
          const envelopeId = fake.socket.send({
            type: 'slash_commands',
            payload: slashCommand({
              command: '/item',
              text: 'help',
              responseUrl: fake.responseUrl('start-socket'),
            }),
            accepts_response_payload: true,
          });
          await fake.socket.waitForAck(envelopeId, 5000);
          const reply = await fake.waitFor('response_url', (c) => c.id === 'start-socket', 5000);
          expect(textOf(reply.body), stderr).toContain('/item');
        }
      } finally {
        const closed = new Promise((r) => child.once('close', r));
        if (child.exitCode === null) child.kill('SIGTERM');
        await closed;
      }
    },
    60_000,
  );
});
