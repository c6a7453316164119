/**
 * An attacker in a process of its own (forked with an IPC channel by
 * test/security/m2-cheap-refusals.test.ts and `npm run bench:security`), so its 200 MB of writes
 * do not share the event loop whose acks are measured: `count` unsigned posts of `bytes` each,
 * all at once, to the URL it is given; it answers with their statuses.
 */
import { fork } from 'node:child_process';
import { rawPost } from './raw-http.js';

async function flood(url: string, count: string, bytes: string) {
  const body = Buffer.alloc(Number(bytes), 'a');
  const results = await Promise.all(
    Array.from({ length: Number(count) }, () =>
      rawPost(url, {
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-slack-request-timestamp': String(Math.floor(Date.now() / 1000)),
        },
        contentLength: body.length,
        body,
        waitMs: 60_000,
      }),
    ),
  );
  process.send?.({ statuses: results.map((r) => r.status) });
}

if (process.argv[1] === import.meta.filename) {
  const [url = '', count = '50', bytes = String(4 * 1024 * 1024)] = process.argv.slice(2);
  await flood(url, count, bytes);
}

/** Forks this file: the flood's statuses once every post was answered or cut off. */
export function unsignedFlood(url: string, count: number, bytes: number): Promise<(number | null)[]> {
  const child = fork(import.meta.filename, [url, String(count), String(bytes)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (m) => resolve((m as { statuses: (number | null)[] }).statuses));
    child.once('exit', (code) => reject(new Error(`the flood exited (${code})`)));
  });
}
