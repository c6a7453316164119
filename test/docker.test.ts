/**
 * Docker (issue 10, point 16): `docker run --env-file .env` with a .env copied from .env.sample
 * must keep the SQLite file on the /data volume. --env-file values override the image's ENV, so
 * the old sample's DATABASE_PATH=./data/... moved the database to /app/data, off the volume and
 * not writable by the `node` user. No Docker daemon is needed: the test applies Docker's rules
 * (image ENV, then --env-file; relative paths from WORKDIR; symlinks made in the image) to the
 * Dockerfile and .env.sample as committed, and reads the database path through loadConfig.
 * docker-compose.yml (the replicas example) is read the same way: its platdesk environment must
 * pass loadConfig (REDIS_URL with the postgres service's DATABASE_URL) in Socket Mode.
 */
import { readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { parseEnv } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';

const read = (name: string) => readFileSync(new URL(`../${name}`, import.meta.url), 'utf8');

interface Image {
  env: Record<string, string>;
  workdir: string;
  /** link → target, from `ln -s target link` in RUN lines. */
  links: Map<string, string>;
}

/** The runtime (last) stage of the Dockerfile: its ENV, WORKDIR and symlinks. */
function runtimeStage(dockerfile: string): Image {
  const stages = dockerfile.replace(/\\\n/g, ' ').split(/^FROM /m);
  const lines = (stages.at(-1) ?? '').split('\n');
  const image: Image = { env: {}, workdir: '/', links: new Map() };
  for (const line of lines) {
    const [instruction = '', ...rest] = line.trim().split(/\s+/);
    if (instruction === 'ENV')
      for (const pair of rest) {
        const [key = '', ...value] = pair.split('=');
        image.env[key] = value.join('=');
      }
    if (instruction === 'WORKDIR') image.workdir = rest[0] ?? '/';
    if (instruction === 'RUN')
      for (const m of rest.join(' ').matchAll(/ln -s (\S+) (\S+)/g)) image.links.set(m[2] ?? '', m[1] ?? '');
  }
  return image;
}

/** Where the database file ends up in the container for a given --env-file content. */
function databaseFileInContainer(envFile: string): string {
  const image = runtimeStage(read('Dockerfile'));
  // Docker: --env-file values override the image's ENV.
  const tokens = { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1' };
  const env = { ...tokens, ...image.env, ...parseEnv(envFile), PLAT_SANDBOX: '1' };
  let path = posix.resolve(image.workdir, loadConfig(env).database.path);
  for (const [link, target] of image.links)
    if (path.startsWith(`${link}/`)) path = `${target}${path.slice(link.length)}`;
  return path;
}

describe('Docker keeps the database on the /data volume', () => {
  it('with --env-file .env copied from .env.sample', async () => {
    expect(read('Dockerfile')).toMatch(/^VOLUME \["\/data"\]$/m);
    expect(databaseFileInContainer(read('.env.sample'))).toBe('/data/platdesk.sqlite');
  });

  it('also when the .env sets the default relative path DATABASE_PATH=./data/platdesk.sqlite', async () => {
    expect(databaseFileInContainer('DATABASE_PATH=./data/platdesk.sqlite\n')).toBe('/data/platdesk.sqlite');
  });
});

/** `KEY: value` lines of one block of docker-compose.yml (two-space YAML, no parser needed). */
function composeBlock(compose: string, path: string[]): string[] {
  let lines = compose.split('\n');
  for (const [depth, key] of path.entries()) {
    const indent = ' '.repeat(depth * 2);
    const start = lines.indexOf(`${indent}${key}:`);
    if (start === -1) throw new Error(`docker-compose.yml has no ${path.slice(0, depth + 1).join('.')}`);
    const rest = lines.slice(start + 1);
    const end = rest.findIndex((l) => l.trim() !== '' && !l.startsWith(`${indent}  `));
    lines = end === -1 ? rest : rest.slice(0, end);
  }
  return lines.filter((l) => l.trim() !== '' && !l.trim().startsWith('#'));
}

/**
 * Compose's interpolation: ${NAME:-default} and ${NAME:?message} (refuses to start with the
 * message when NAME is unset or empty), from the shell or the project's .env.
 */
function interpolate(value: string, vars: Record<string, string>): string {
  return value.replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_all, name: string, op?: string, arg = '') => {
    const set = vars[name];
    if (set !== undefined && set !== '') return set;
    if (op === '?') throw new Error(`required variable ${name} is missing a value: ${arg}`);
    return op === '-' ? arg : '';
  });
}

/** A password with every character a URL would need escaped. */
const PASSWORD = 'p@ss:w/rd#?%&= x';

describe('docker compose: postgres, redis and two platdesk replicas in Socket Mode', () => {
  const compose = read('docker-compose.yml');
  const map = (
    path: string[],
    vars: Record<string, string> = { POSTGRES_PASSWORD: PASSWORD, SLACK_APP_TOKEN: 'xapp-1' },
  ) =>
    Object.fromEntries(
      composeBlock(compose, path).map((l) => {
        const [key = '', ...value] = l.trim().split(': ');
        return [key, interpolate(value.join(': '), vars)];
      }),
    );

  it('refuses to start without a database password (no default) or without SLACK_APP_TOKEN (Socket Mode only)', () => {
    for (const service of ['postgres', 'platdesk'])
      expect(() => map(['services', service, 'environment'], { SLACK_APP_TOKEN: 'xapp-1' }), service).toThrow(
        /POSTGRES_PASSWORD.*no default/,
      );
    expect(() => map(['services', 'platdesk', 'environment'], { POSTGRES_PASSWORD: PASSWORD })).toThrow(
      /Socket Mode only/,
    );
    expect(compose).not.toMatch(/POSTGRES_PASSWORD:-/);
  });

  it('passes the password apart from the URL (PGPASSWORD), so any character is safe, and pg uses it', async () => {
    const env = map(['services', 'platdesk', 'environment']);
    const pgEnv = map(['services', 'postgres', 'environment']);
    expect(pgEnv.POSTGRES_PASSWORD).toBe(PASSWORD);
    expect(env.PGPASSWORD).toBe(PASSWORD);
    expect(env.DATABASE_URL).toBe(`postgres://${pgEnv.POSTGRES_USER}@postgres:5432/${pgEnv.POSTGRES_DB}`);
    const { default: pg } = await import('pg');
    const before = process.env.PGPASSWORD;
    process.env.PGPASSWORD = env.PGPASSWORD;
    try {
      const client = new pg.Client({ connectionString: env.DATABASE_URL });
      expect((client as unknown as { password: string }).password).toBe(PASSWORD);
      expect(client.user).toBe('platdesk');
    } finally {
      if (before === undefined) delete process.env.PGPASSWORD;
      else process.env.PGPASSWORD = before;
    }
  });

  it('every replica gets the same DATABASE_URL (the postgres service) and REDIS_URL, which loadConfig accepts', () => {
    const env = map(['services', 'platdesk', 'environment']);
    expect(env.REDIS_URL).toBe('redis://redis:6379');
    // A .env copied from .env.sample with the tokens filled, under the image's ENV and these.
    const image = runtimeStage(read('Dockerfile'));
    const config = loadConfig({
      ...image.env,
      ...parseEnv(read('.env.sample')),
      SLACK_BOT_TOKEN: 'xoxb-1',
      PLAT_SANDBOX: '1',
      ...env,
    });
    expect(config.database.url).toBe(env.DATABASE_URL);
    expect(config.redisUrl).toBe(env.REDIS_URL);
    expect(config.slack.mode).toBe('socket');
  });

  it('no anonymous /data volume per replica: a tmpfs takes the place of the image volume', () => {
    const volumes = composeBlock(compose, ['services', 'platdesk', 'volumes']).map((l) => l.trim());
    expect(volumes.slice(0, 2)).toEqual(['- type: tmpfs', 'target: /data']);
  });

  it('two replicas that wait for healthy postgres and redis, each service with a healthcheck', () => {
    expect(map(['services', 'platdesk', 'deploy'])).toEqual({ replicas: '2' });
    expect(composeBlock(compose, ['services', 'platdesk', 'depends_on']).map((l) => l.trim())).toEqual([
      'postgres:',
      'condition: service_healthy',
      'redis:',
      'condition: service_healthy',
    ]);
    for (const service of ['postgres', 'redis', 'platdesk'])
      expect(map(['services', service, 'healthcheck']).test, service).toBeTruthy();
    expect(map(['services', 'platdesk', 'healthcheck']).test).toContain('/healthz');
    // Socket Mode replicas need no published port (and two could not publish the same one).
    expect(composeBlock(compose, ['services', 'platdesk']).join('\n')).not.toMatch(/^\s{4}ports:/m);
  });
});
