/**
 * HTTP requests written by hand on a socket, for what fetch cannot do: a body that is announced
 * but not (yet) sent, a body cut off mid-way, a status read while the body is still going out.
 */
import { connect } from 'node:net';

export interface RawPost {
  /** The response's status once its first line arrived; null when none came within the wait. */
  status: number | null;
  /** Milliseconds from connecting to the status line (or to giving up). */
  ms: number;
}

/**
 * POSTs to `url` with `headers` and `contentLength` announced, writes `body` (all of it, or what
 * is given), and waits up to `waitMs` for the status line. The socket is closed afterwards.
 */
export function rawPost(
  url: string,
  options: {
    headers: Record<string, string>;
    contentLength: number;
    body: Buffer | string;
    waitMs: number;
  },
): Promise<RawPost> {
  const { hostname, port, pathname } = new URL(url);
  const started = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const done = (status: number | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ status, ms: performance.now() - started });
    };
    const socket = connect(Number(port), hostname, () => {
      const head = [
        `POST ${pathname} HTTP/1.1`,
        `host: ${hostname}:${port}`,
        `content-length: ${options.contentLength}`,
        ...Object.entries(options.headers).map(([k, v]) => `${k}: ${v}`),
        '',
        '',
      ].join('\r\n');
      socket.write(head);
      socket.write(options.body);
    });
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const line = /^HTTP\/1\.1 (\d{3})/.exec(received);
      if (line) done(Number(line[1]));
    });
    // A server that answers and closes while the body is still going out resets the socket.
    socket.on('error', () => done(null));
    socket.on('close', () => done(null));
    const timer = setTimeout(() => done(null), options.waitMs);
  });
}
