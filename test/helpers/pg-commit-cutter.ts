/**
 * A TCP proxy in front of PostgreSQL that, once armed, lets the next COMMIT reach the server,
 * waits for the server's answer (so the commit happened) and then cuts the client's connection
 * without passing that answer on: the client sees "Connection terminated" for a transaction
 * that did commit, which is what a network cut at the wrong moment looks like. A charge written
 * as one autocommitted statement (platdesk_record, migration 13) commits the same way: the
 * server answers it only once it has committed, so that statement is cut like a COMMIT.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface CommitCutter {
  /** postgres://… through the proxy (same database and user as the target). */
  url: string;
  /** Cuts the connection that sends the next COMMIT (or charge), after the server answered it. */
  arm(): void;
  /** How many commits were cut so far. */
  cut(): number;
  close(): Promise<void>;
}

// The simple-query message of pg's `client.query('commit')`: 'Q', length, "commit\0"; or the
// Parse message of the statement that writes a charge in its own implicit transaction.
const COMMITS = ['commit\0', 'platdesk_record('];

export async function startCommitCutter(targetUrl: string): Promise<CommitCutter> {
  const target = new URL(targetUrl);
  let armed = false;
  let cuts = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.add(client);
    sockets.add(upstream);
    let cutting = false;
    client.on('data', (chunk: Buffer) => {
      const text = chunk.toString('latin1').toLowerCase();
      if (armed && COMMITS.some((c) => text.includes(c))) {
        armed = false;
        cutting = true;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (cutting) {
        // The server answered the COMMIT: it is durable. The client never hears it.
        cuts++;
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', end);
    upstream.on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('commit cutter: no port');
  const url = new URL(targetUrl);
  url.hostname = '127.0.0.1';
  url.port = String(address.port);
  return {
    url: url.toString(),
    arm() {
      armed = true;
    },
    cut: () => cuts,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
