/**
 * A loopback TCP forwarder in front of a real server, so a test can cut ONE process off from it
 * (a network partition without iptables): `cut()` destroys every forwarded connection and stops
 * listening (new connections are refused); `restore()` listens again on the same port.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  readonly port: number;
  /** Connections forwarded so far, and those open now (a client's pool keeps them alive). */
  connections(): { accepted: number; open: number };
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const clients = new Set<Socket>();
  let accepted = 0;
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
  };
  const server: Server = createServer((client) => {
    const upstream = createConnection(target);
    accepted++;
    clients.add(client);
    client.on('close', () => clients.delete(client));
    track(client);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.removeListener('error', reject);
        const address = server.address();
        resolve(typeof address === 'object' && address ? address.port : port);
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      if (!server.listening) return resolve();
      server.close(() => resolve());
    });
  const port = await listen(0);
  return {
    port,
    connections: () => ({ accepted, open: clients.size }),
    cut: stop,
    restore: async () => {
      await listen(port);
    },
    close: stop,
  };
}
