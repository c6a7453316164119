/**
 * platdesk as `npm start` runs it (src/main.ts), as a real child process in HTTP mode with only
 * the given environment, for tests that kill it (SIGKILL: no shutdown code runs) and start
 * platdesk again on the same database. Resolves once its log says it started, with the URL its
 * Slack requests go to.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

const ROOT = resolve(import.meta.dirname, '../..');

export interface PlatdeskChild {
  child: ChildProcess;
  /** http://127.0.0.1:PORT/slack/events */
  eventsUrl: string;
  /** Its log lines (JSON), as written so far. */
  logs(): string[];
  /** SIGKILL, and waits for it to be gone. */
  kill(): Promise<void>;
}

export async function startPlatdeskChild(env: Record<string, string>): Promise<PlatdeskChild> {
  const child = spawn(join(ROOT, 'node_modules/.bin/node'), ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      LOG_LEVEL: 'info',
      PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: string[] = [];
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const port = await new Promise<number>((resolvePort, reject) => {
    const timer = setTimeout(() => reject(new Error(`platdesk did not start: ${stderr}`)), 60_000);
    child.once('exit', (code) => reject(new Error(`platdesk exited (${code}): ${stderr}`)));
    lines.on('line', (line) => {
      logs.push(line);
      const entry = JSON.parse(line) as { msg?: string; port?: number };
      if (entry.msg === 'platdesk started' && entry.port) {
        clearTimeout(timer);
        resolvePort(entry.port);
      }
    });
  });
  return {
    child,
    eventsUrl: `http://127.0.0.1:${port}/slack/events`,
    logs: () => [...logs],
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await once(child, 'exit');
    },
  };
}
