/**
 * Docker (issue 10, point 16): `docker run --env-file .env` with a .env copied from .env.sample
 * must keep the SQLite file on the /data volume. --env-file values override the image's ENV, so
 * the old sample's DATABASE_PATH=./data/... moved the database to /app/data, off the volume and
 * not writable by the `node` user. No Docker daemon is needed: the test applies Docker's rules
 * (image ENV, then --env-file; relative paths from WORKDIR; symlinks made in the image) to the
 * Dockerfile and .env.sample as committed, and reads the database path through loadConfig.
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
