/**
 * Runs platdesk's entry point (src/main.ts) as `npm start` does, as a child process with only the
 * given environment, and resolves with its exit code and output once it ends. For start-up paths
 * that are expected to end (refusals, first-run errors): a process still running after
 * `killAfterMs` is killed, and the test then fails on its code.
 */
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const MAIN = join(ROOT, 'src/main.ts');
const TSX = join(ROOT, 'node_modules/tsx/dist/loader.mjs');

export interface MainRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runMain(
  env: Record<string, string>,
  options: { cwd: string; killAfterMs: number },
): Promise<MainRun> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, ['--import', TSX, MAIN], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolveRun({ code, stdout, stderr });
    });
  });
}
