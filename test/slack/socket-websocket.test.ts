/**
 * The WebSocket @slack/socket-mode runs on (scripts/build/ws-socket-entry.cjs: `ws` behind the names
 * socket-mode reads from undici) behaves as undici's WebSocket did, seen from the client: the same
 * scenarios against a real `ws` server give the same trace of events, ready states, close codes
 * and ping/pong diagnostics with undici 8's WebSocket and with the entry. Then socket-mode's own
 * SlackWebSocket, on the entry, against a server that answers pings and one that does not.
 */
import { channel } from 'node:diagnostics_channel';
import { EventEmitter } from 'node:events';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo, Socket } from 'node:net';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type WebSocket as ServerSocket, WebSocketServer } from 'ws';
import { freePort } from '../helpers/free-port.js';
import { SOCKET_WEBSOCKET_ENTRY } from '../helpers/socket-websocket.js';

const require = createRequire(import.meta.url);
const UNDICI = resolve(import.meta.dirname, '../../node_modules/undici/lib');
const SOCKET_MODE = resolve(import.meta.dirname, '../../node_modules/@slack/socket-mode/dist/src');

interface Impl {
  WebSocket: new (
    url: string,
    init?: { dispatcher?: unknown },
  ) => EventTarget & {
    readyState: number;
    send(data: string): void;
    close(code?: number): void;
  };
  ping: (ws: unknown, payload?: Buffer) => void;
  ErrorEvent: abstract new (...args: never[]) => Event & { message: string };
  MessageEvent: abstract new (...args: never[]) => Event & { data: unknown };
  CloseEvent: abstract new (...args: never[]) => Event & { code: number; reason: string; wasClean: boolean };
  Agent: new (options: { connect: unknown }) => unknown;
  buildConnector: (
    options: object,
  ) => (opts: object, cb: (err: Error | null, socket: Socket | null) => void) => void;
}

const websocket = require(join(UNDICI, 'web/websocket/websocket.js')) as Pick<Impl, 'WebSocket' | 'ping'>;
const events = require(join(UNDICI, 'web/websocket/events.js')) as Pick<
  Impl,
  'ErrorEvent' | 'MessageEvent' | 'CloseEvent'
>;
const IMPLS: [string, Impl][] = [
  [
    "undici's WebSocket",
    {
      ...websocket,
      ...events,
      Agent: require(join(UNDICI, 'dispatcher/agent.js')),
      buildConnector: require(join(UNDICI, 'core/connect.js')),
    },
  ],
  ['the ws entry', require(SOCKET_WEBSOCKET_ENTRY) as Impl],
];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the WebSocket socket-mode gets', () => {
  it("is the ws entry in the tests as in the bundle (socket-mode's require('undici'))", () => {
    const fromSocketMode = createRequire(join(SOCKET_MODE, 'SlackWebSocket.js'))('undici') as Impl;
    expect(fromSocketMode.WebSocket).toBe((require(SOCKET_WEBSOCKET_ENTRY) as Impl).WebSocket);
  });
});

describe.each(IMPLS)('%s, seen from @slack/socket-mode', (_name, impl) => {
  let http: Server;
  let wss: WebSocketServer;
  let url: string;
  let onConnection: (socket: ServerSocket) => void;
  const serverSockets: ServerSocket[] = [];

  beforeEach(async () => {
    http = createServer((_req, res) => res.writeHead(404).end());
    wss = new WebSocketServer({ noServer: true });
    http.on('upgrade', (req, socket, head) => {
      if (req.url === '/refuse') {
        socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => {
        serverSockets.push(ws);
        onConnection(ws);
      });
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    url = `ws://127.0.0.1:${(http.address() as AddressInfo).port}`;
    onConnection = () => {};
  });

  afterEach(async () => {
    for (const s of serverSockets.splice(0)) s.terminate();
    wss.close();
    await new Promise((r) => http.close(r));
  });

  /** Opens a client, records what socket-mode's listeners would see; resolves at `close`. */
  function trace(
    path: string,
    steps: (ws: InstanceType<Impl['WebSocket']>, log: string[]) => void = () => {},
  ) {
    const log: string[] = [];
    const ws = new impl.WebSocket(`${url}${path}`);
    const ping = (m: unknown) => {
      const { websocket: w, payload } = m as { websocket: unknown; payload: unknown };
      if (w === ws)
        log.push(`ping-channel ${Buffer.isBuffer(payload) ? payload.toString() : typeof payload}`);
    };
    const pong = (m: unknown) => {
      const { websocket: w, payload } = m as { websocket: unknown; payload: unknown };
      if (w === ws)
        log.push(`pong-channel ${Buffer.isBuffer(payload) ? payload.toString() : typeof payload}`);
    };
    channel('undici:websocket:ping').subscribe(ping);
    channel('undici:websocket:pong').subscribe(pong);
    ws.addEventListener('open', () => {
      log.push(`open ${ws.readyState}`);
      steps(ws, log);
    });
    ws.addEventListener('message', (e) => {
      if (!(e instanceof impl.MessageEvent)) log.push('message: not a MessageEvent');
      const { data } = e as MessageEvent;
      log.push(`message ${typeof data === 'string' ? data : (data as object).constructor.name}`);
    });
    ws.addEventListener('error', (e) => {
      if (!(e instanceof impl.ErrorEvent)) log.push('error: not an ErrorEvent');
      log.push(`error ${ws.readyState} "${(e as Event & { message: string }).message}"`);
    });
    const closed = new Promise<string[]>((done) => {
      ws.addEventListener('close', (e) => {
        if (!(e instanceof impl.CloseEvent)) log.push('close: not a CloseEvent');
        const { code, reason, wasClean } = e as CloseEvent;
        log.push(`close ${ws.readyState} ${code} "${reason}" ${wasClean ? 'clean' : 'unclean'}`);
        channel('undici:websocket:ping').unsubscribe(ping);
        channel('undici:websocket:pong').unsubscribe(pong);
        done(log);
      });
    });
    return { ws, closed };
  }

  it('text and binary messages, then a close frame from the peer: answered, closed cleanly with its code', async () => {
    onConnection = (s) => {
      s.send('{"type":"hello"}');
      s.send(Buffer.from([1, 2, 3]), { binary: true });
      setTimeout(() => s.close(4001, 'bye'), 20);
    };
    const { ws, closed } = trace('/');
    expect(() => ws.send('too early')).toThrow();
    expect(await closed).toEqual([
      'open 1',
      'message {"type":"hello"}',
      'message Blob',
      'close 3 4001 "bye" clean',
    ]);
  });

  it("the peer's pings are answered and published; ping() sends one whose pong is published; close(1000) is a clean close", async () => {
    const seen: string[] = [];
    onConnection = (s) => {
      s.on('ping', (d) => seen.push(`server got ping ${d}`));
      s.on('pong', (d) => seen.push(`server got pong ${d}`));
      s.on('message', (d) => seen.push(`server got ${d}`));
      s.on('close', (code) => seen.push(`server got close ${code}`));
      s.ping('from-server');
    };
    const { closed } = trace('/', (ws, log) => {
      impl.ping(ws, Buffer.from('from-client'));
      ws.send('an ack');
      setTimeout(() => {
        log.push(`closing ${ws.readyState}`);
        ws.close(1000);
        log.push(`close called ${ws.readyState}`);
        // Closing or closed: no frame, no error (socket-mode pings on a timer).
        impl.ping(ws, Buffer.from('late'));
        ws.send('late');
      }, 100);
    });
    expect(await closed).toEqual([
      'open 1',
      'ping-channel from-server',
      'pong-channel from-client',
      'closing 1',
      'close called 2',
      'close 3 1000 "" clean',
    ]);
    await sleep(20);
    // (the pong to the server's ping may come before or after the client's own frames)
    expect(seen.filter((l) => !l.includes('pong'))).toEqual([
      'server got ping from-client',
      'server got an ack',
      'server got close 1000',
    ]);
    expect(seen).toContain('server got pong from-server');
    expect(() => impl.ping({}, Buffer.from('x'))).toThrow();
    expect(() => impl.ping(new impl.WebSocket(url), Buffer.alloc(126))).toThrow(TypeError);
  });

  it('a link cut without a close frame: error (already CLOSED, empty text), then close 1006', async () => {
    onConnection = (s) => setTimeout(() => s.terminate(), 20);
    expect(await trace('/').closed).toEqual(['open 1', 'error 3 ""', 'close 3 1006 "" unclean']);
  });

  it('a refused connection: error, then close 1006, never open', async () => {
    url = `ws://127.0.0.1:${await freePort()}`;
    expect(await trace('/').closed).toEqual(['error 3 ""', 'close 3 1006 "" unclean']);
  });

  it('a handshake answered 401: error, then close 1006, never open', async () => {
    expect(await trace('/refuse').closed).toEqual(['error 3 ""', 'close 3 1006 "" unclean']);
  });

  it('close() before the handshake ends: error, then close 1006', async () => {
    onConnection = () => {};
    const { ws, closed } = trace('/');
    ws.close(1000);
    expect(ws.readyState).toBe(2);
    expect(await closed).toEqual(['error 3 ""', 'close 3 1006 "" unclean']);
  });

  it("opens its link through the dispatcher's connect hook (socket-mode keeps that socket to destroy it)", async () => {
    let hooked: Socket | null = null;
    let hookedPort: number | undefined;
    const base = impl.buildConnector({ allowH2: false });
    const dispatcher = new impl.Agent({
      connect: (opts: object, cb: (err: Error | null, socket: Socket | null) => void) =>
        base(opts, (err, socket) => {
          hooked = socket;
          hookedPort = socket?.localPort;
          cb(err, socket);
        }),
    });
    const peer = new Promise<number | undefined>((r) => {
      onConnection = (s) => r((s as unknown as { _socket: Socket })._socket.remotePort);
    });
    const ws = new impl.WebSocket(url, { dispatcher });
    const closed = new Promise((r) => ws.addEventListener('close', r));
    // Destroying that socket (socket-mode's cleanup of a stalled peer) ends the link.
    ws.addEventListener('open', () => (hooked as Socket | null)?.destroy());
    const remotePort = await peer;
    await closed;
    expect(hookedPort).toBe(remotePort);
    expect(ws.readyState).toBe(3);
  });
});

describe("socket-mode's SlackWebSocket on the ws entry: ping monitoring and the close handshake", () => {
  const { SlackWebSocket } = require(join(SOCKET_MODE, 'SlackWebSocket.js')) as {
    SlackWebSocket: new (
      options: object,
    ) => {
      connect(): void;
      disconnect(): void;
      isActive(): boolean;
      lastPongReceivedTimestamp?: number;
    };
  };
  let wss: WebSocketServer;
  let port: number;
  const quiet = {
    debug() {},
    info() {},
    warn() {},
    error() {},
    getLevel: () => 'info',
    setLevel() {},
    setName() {},
  };

  beforeEach(async () => {
    port = await freePort();
  });
  afterEach(async () => {
    for (const c of wss.clients) c.terminate();
    await new Promise((r) => wss.close(r));
  });

  function start(options: object) {
    const client = new EventEmitter();
    const closed = new Promise<number>((r) => client.once('close', () => r(Date.now())));
    const sws = new SlackWebSocket({ url: `ws://127.0.0.1:${port}`, client, logger: quiet, ...options });
    sws.connect();
    return { sws, client, closed, startedAt: Date.now() };
  }

  it('a peer that answers pings keeps the link; one that stops answering is dropped after the pong timeout', async () => {
    wss = new WebSocketServer({ port, host: '127.0.0.1', autoPong: true });
    const { sws, closed } = start({ clientPingTimeoutMS: 150 });
    await sleep(700);
    expect(sws.isActive()).toBe(true);
    expect(sws.lastPongReceivedTimestamp).toBeGreaterThan(0);
    // Stop answering: the server's socket no longer reads, so no pong comes back.
    const [peer] = [...wss.clients];
    (peer as unknown as { _socket: Socket })._socket.pause();
    const pausedAt = Date.now();
    const at = await closed;
    // Dropped after the pong timeout (150 ms), well before the 30 s close handshake bound.
    expect(at - pausedAt).toBeGreaterThanOrEqual(100);
    expect(at - pausedAt).toBeLessThan(5000);
  });

  it('a peer that never pongs: dropped after 4 unanswered pings', async () => {
    wss = new WebSocketServer({ port, host: '127.0.0.1', autoPong: false });
    const { closed, startedAt } = start({ clientPingTimeoutMS: 150 });
    const at = await closed;
    // Pings every 50 ms; the 4th unanswered one disconnects, then the close handshake ends it.
    expect(at - startedAt).toBeGreaterThanOrEqual(150);
    expect(at - startedAt).toBeLessThan(5000);
  });

  it("the server's pings are watched: a server that stops pinging is dropped after serverPingTimeoutMS", async () => {
    wss = new WebSocketServer({ port, host: '127.0.0.1' });
    wss.on('connection', (s) => s.ping('once'));
    const { closed, startedAt } = start({ serverPingTimeoutMS: 300, clientPingTimeoutMS: 60_000 });
    const at = await closed;
    expect(at - startedAt).toBeGreaterThanOrEqual(250);
    expect(at - startedAt).toBeLessThan(5000);
  });

  it('disconnect(): a close frame 1000, the peer answers, the client is told closed and the socket is gone', async () => {
    wss = new WebSocketServer({ port, host: '127.0.0.1' });
    const code = new Promise<number>((r) => wss.on('connection', (s) => s.on('close', r)));
    const { sws, closed } = start({});
    await new Promise<void>((r) => wss.once('connection', () => r()));
    await sleep(50);
    sws.disconnect();
    expect(await code).toBe(1000);
    await closed;
    expect(sws.isActive()).toBe(false);
  });
});
