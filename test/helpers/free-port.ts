/**
 * A loopback port nothing listens on (it was free a moment ago): for servers that cannot be asked
 * for port 0 and report it (Redis, the Socket Mode health server), and for "Slack unreachable".
 */
import { once } from 'node:events';
import { createServer } from 'node:net';

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  server.close();
  await once(server, 'close');
  return port;
}
