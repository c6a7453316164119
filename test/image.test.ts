/**
 * The container image (issue 21, points 3 and 4), built from the Dockerfile as committed and run
 * as a real container with podman (Debian's package; .ci/run installs it), every run:
 * scripts/container/build.sh makes the base images locally where Docker Hub cannot be reached (and
 * says so) and builds with no compiler and no Node download; scripts/container/run.sh holds this
 * machine's podman constraints. The container shares the host's network namespace so it reaches the
 * local Slack-compatible server, PostgreSQL and Redis that the test starts on loopback.
 *
 * Each container: /healthz 200, its process is not root, the image's HEALTHCHECK passes inside it,
 * a signed slash command is answered through Slack's response_url, and SIGTERM (podman stop)
 * drains it and exits 0 well inside the grace period. Once on SQLite (the image's default on
 * /data) and once with DATABASE_URL and REDIS_URL. Its chart worker renders with the font the
 * image carries (issue 26).
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rasterise } from '../src/charts/rasterise.js';
import { SMALL_ZH_CHART } from './helpers/chart-spec.js';
import { freePort } from './helpers/free-port.js';
import { type RedisServer, startRedisServer } from './helpers/redis-server.js';
import { type FakeSlack, startSlackApiServer } from './helpers/slack-api-server.js';
import { signedRequest } from './helpers/slack-http.js';
import { slashCommand } from './helpers/slack-payloads.js';
import { createPostgresDatabase, dropPostgresDatabase } from './helpers/store-engines.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '..');
const TAG = 'localhost/platdesk:test';
const SIGNING_SECRET = 'image-test-signing-secret';
/** Seconds podman waits after SIGTERM before SIGKILL (Kubernetes' default grace period is 30). */
const GRACE_S = 30;
/** Issue 21.4's goal for the image's uncompressed size. */
const SIZE_GOAL_MB = 250;

async function podman(...args: string[]): Promise<string> {
  const { stdout } = await run('podman', args, { cwd: ROOT, maxBuffer: 16 << 20 });
  return stdout.trim();
}

let slack: FakeSlack;
let buildReport = '';

beforeAll(async () => {
  const { stdout } = await run('bash', ['scripts/container/build.sh', TAG], {
    cwd: ROOT,
    maxBuffer: 16 << 20,
    timeout: 20 * 60_000,
  });
  buildReport = stdout;
  // Visible in CI's output: whether the base image is a local stand-in, the size, the build time.
  process.stdout.write(`${stdout.trim()}\n`);
  slack = await startSlackApiServer();
}, 25 * 60_000);

afterAll(async () => {
  await slack?.close();
});

interface Container {
  name: string;
  port: number;
  /** METRICS_PORT: /metrics and /healthz with its details. */
  metricsPort: number;
}

async function startContainer(env: Record<string, string>): Promise<Container> {
  const port = await freePort();
  const metricsPort = await freePort();
  const name = `platdesk-test-${process.pid}-${port}`;
  const vars = {
    PORT: String(port),
    METRICS_PORT: String(metricsPort),
    PLAT_SANDBOX: '1',
    SLACK_BOT_TOKEN: 'xoxb-image-test',
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.apiUrl,
    ...env,
  };
  await run(
    'bash',
    [
      'scripts/container/run.sh',
      '--detach',
      '--name',
      name,
      '--network',
      'host',
      // The image's HEALTHCHECK is run by hand below: podman's timer needs systemd, absent here.
      '--no-healthcheck',
      ...Object.entries(vars).flatMap(([k, v]) => ['--env', `${k}=${v}`]),
      TAG,
    ],
    { cwd: ROOT },
  );
  return { name, port, metricsPort };
}

async function waitHealthy(c: Container, timeoutMs = 60_000): Promise<{ status: number; body: unknown }> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`http://127.0.0.1:${c.port}/healthz`);
      const body: unknown = await res.json();
      // The public /healthz says ok or not; its details are on the internal port.
      if (res.status === 200) {
        expect(body).toEqual({ ok: true });
        const details = await fetch(`http://127.0.0.1:${c.metricsPort}/healthz`);
        return { status: details.status, body: (await details.json()) as unknown };
      }
      last = `${res.status} ${JSON.stringify(body)}`;
    } catch (error) {
      last = String(error);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  const logs = await podman('logs', c.name).catch(() => '');
  throw new Error(`container ${c.name} not healthy in ${timeoutMs} ms (${last})\n${logs}`);
}

/** Runs the HEALTHCHECK command the image declares, inside the container. */
async function imageHealthcheck(c: Container): Promise<void> {
  const test = JSON.parse(
    await podman('image', 'inspect', '--format', '{{json .Config.Healthcheck.Test}}', TAG),
  );
  expect(test[0]).toBe('CMD-SHELL');
  await podman('exec', c.name, 'sh', '-c', test[1]);
}

async function checkContainer(c: Container): Promise<void> {
  const health = await waitHealthy(c);
  expect(health.body).toMatchObject({ ok: true });

  // PID 1 (node) runs as the image's `node` user, not root.
  const status = await podman('exec', c.name, 'cat', '/proc/1/status');
  const uids = /^Uid:\s+(\d+)\s+(\d+)/m.exec(status);
  expect(uids?.[1]).toBe('1000');
  expect(uids?.[2]).toBe('1000');
  expect(await podman('exec', c.name, 'cat', '/proc/1/cmdline')).toMatch(/^node/);
  await imageHealthcheck(c);

  // A signed slash command, answered privately through its response_url (no plat call).
  const id = `image-${c.port}`;
  const sent = await signedRequest(`http://127.0.0.1:${c.port}/slack/events`, SIGNING_SECRET, {
    kind: 'form',
    body: slashCommand({ command: '/item', text: 'help', responseUrl: slack.responseUrl(id) }),
  });
  expect(sent.status).toBe(200);
  const answer = await slack.waitFor('response_url', (call) => call.id === id, 15_000);
  expect(answer.body.response_type).toBe('ephemeral');
  expect(JSON.stringify(answer.body)).toContain('/item');

  // A forged request is refused inside the container too.
  const forged = await signedRequest(`http://127.0.0.1:${c.port}/slack/events`, SIGNING_SECRET, {
    kind: 'form',
    body: slashCommand({ command: '/item', text: 'help', responseUrl: slack.responseUrl('forged') }),
    signature: 'v0=0000',
  });
  expect(forged.status).toBe(401);

  // SIGTERM: platdesk drains and exits 0 well inside the grace period (no SIGKILL by podman).
  const started = Date.now();
  await podman('stop', '--time', String(GRACE_S), c.name);
  const stopMs = Date.now() - started;
  expect(stopMs).toBeLessThan(GRACE_S * 1000 - 5000);
  expect(await podman('inspect', '--format', '{{.State.ExitCode}}', c.name)).toBe('0');
  const logs = await podman('logs', c.name);
  expect(logs).toContain('platdesk stopped');
  process.stdout.write(`container ${c.name}: SIGTERM → exit 0 in ${stopMs} ms\n`);
}

async function removeContainer(c: Container | undefined): Promise<void> {
  if (c) await podman('rm', '--force', '--ignore', c.name).catch(() => undefined);
}

describe('the image', () => {
  it('is built with no compiler, keeps its HEALTHCHECK, runs as node, and is under the size goal', async () => {
    expect(buildReport).toMatch(/^base image: docker\.io\/library\/node:24-bookworm-slim/m);
    const config = JSON.parse(await podman('image', 'inspect', '--format', '{{json .Config}}', TAG));
    expect(config.User).toBe('node');
    const healthcheck = JSON.parse(
      await podman('image', 'inspect', '--format', '{{json .Config.Healthcheck}}', TAG),
    );
    expect(healthcheck.Test[0]).toBe('CMD-SHELL');
    // No compile toolchain anywhere in the image.
    const { stdout: tools } = await run(
      'bash',
      [
        'scripts/container/run.sh',
        '--rm',
        '--entrypoint',
        'sh',
        TAG,
        '-c',
        'for t in cc gcc g++ make python3; do command -v $t; done; true',
      ],
      { cwd: ROOT },
    );
    expect(tools.trim()).toBe('');
    const sizeMb = Number(await podman('image', 'inspect', '--format', '{{.Size}}', TAG)) / 1e6;
    expect(sizeMb).toBeLessThan(SIZE_GOAL_MB);
  });

  it('renders a zh-CN chart in its chart renderer process with the font it carries: the same PNG as the sources', async () => {
    const request = JSON.stringify({ id: 1, spec: SMALL_ZH_CHART, width: 480 });
    const script = [
      "const { fork } = require('node:child_process');",
      "const w = fork('/app/dist/chart-worker.js', [], { serialization: 'advanced' });",
      "w.once('message', (r) => { process.stdout.write(JSON.stringify({ ...r, png: r.ok ? Buffer.from(r.png).toString('base64') : null })); w.kill(); });",
      `w.send(${request});`,
    ].join('\n');
    const { stdout } = await run(
      'bash',
      ['scripts/container/run.sh', '--rm', '--entrypoint', 'node', TAG, '-e', script],
      {
        cwd: ROOT,
        maxBuffer: 16 << 20,
      },
    );
    const reply = JSON.parse(stdout) as { ok: boolean; message?: string; svg: string; png: string };
    expect(reply.ok, reply.message).toBe(true);
    const fromSources = await rasterise(SMALL_ZH_CHART, 480);
    expect(reply.svg).toBe(fromSources.svg);
    // Without its font the image's renderer would draw no text: the pictures would differ.
    expect(Buffer.from(reply.png, 'base64').equals(fromSources.png)).toBe(true);
  }, 120_000);

  it('runs on SQLite: healthy, not root, answers a signed command, drains on SIGTERM', async () => {
    let c: Container | undefined;
    try {
      c = await startContainer({});
      await checkContainer(c);
    } finally {
      await removeContainer(c);
    }
  }, 180_000);

  it('runs with DATABASE_URL and REDIS_URL: the same, on PostgreSQL and Redis', async () => {
    let c: Container | undefined;
    let redis: RedisServer | undefined;
    const databaseUrl = await createPostgresDatabase();
    try {
      redis = await startRedisServer();
      c = await startContainer({ DATABASE_URL: databaseUrl, REDIS_URL: redis.url });
      const health = await waitHealthy(c);
      expect(JSON.stringify(health.body)).toMatch(/postgres/i);
      await checkContainer(c);
    } finally {
      await removeContainer(c);
      await redis?.close();
      await dropPostgresDatabase(databaseUrl);
    }
  }, 180_000);
});
