/**
 * What @slack/socket-mode gets for `require('undici')` (scripts/build.mjs, PART_ENTRIES_FROM; in the
 * tests, test/helpers/socket-websocket.ts): the names its client reads from undici (SlackWebSocket.js,
 * SocketModeClient.js), backed by the `ws` package instead of undici's WebSocket. undici runs its
 * WebSocket handshake on its fetch machinery, dispatcher and WebIDL (about 40 modules), which
 * was most of what Socket Mode added to start's CPU; `ws` opens the link on `node:http`, which
 * platdesk's Slack Web clients have loaded already (src/slack/web-fetch.ts).
 *
 * What the client relies on, kept as undici does it (undici 8, lib/web/websocket/websocket.js):
 * - `new WebSocket(url, { dispatcher })`, `addEventListener` / `removeEventListener` for open, message,
 *   error and close, `readyState` with the static CONNECTING / OPEN / CLOSING / CLOSED, `send`,
 *   `close(code)`;
 * - events that are instances of the exported MessageEvent (text as a string, binary as a Blob),
 *   ErrorEvent and CloseEvent (checked with instanceof);
 * - a link that ends without a close frame from the peer (or a failed handshake) fires an `error`
 *   event, then `close` with code 1006, the ready state already CLOSED; a close frame from the peer
 *   is answered, then `close` with its code;
 * - `ping(ws, payload)` sends a ping frame only while OPEN; pings from the peer are answered with a
 *   pong; received pings and pongs are published on the diagnostics channels
 *   'undici:websocket:ping' / 'undici:websocket:pong' as `{ websocket, payload }`, which the
 *   client's ping monitoring subscribes to;
 * - `Agent({ connect })` and `buildConnector()`: the client builds its dispatcher from them so that
 *   its connect hook sees (and on cleanup destroys) the TCP or TLS socket of the link; the
 *   WebSocket here opens its link through that hook.
 *
 * A dispatcher of the caller's (an undici Dispatcher given to SocketModeClient, which platdesk never
 * gives) is refused, and `fetch`, read by the client only with such a dispatcher, throws: a
 * `require('undici')` here would make the bundle load undici's chunk (750 KB) at every start, where
 * the plat client loads it only with its first call (src/plat/undici.ts).
 */
'use strict';

const { channel } = require('node:diagnostics_channel');
const WS = require('ws');

const CONNECTING = 0;
const OPEN = 1;
const CLOSING = 2;
const CLOSED = 3;

const pingChannel = channel('undici:websocket:ping');
const pongChannel = channel('undici:websocket:pong');

class MessageEvent extends Event {
  constructor(type, init = {}) {
    super(type);
    this.data = init.data;
    this.origin = init.origin ?? '';
  }
}

class ErrorEvent extends Event {
  constructor(type, init = {}) {
    super(type);
    this.message = init.message ?? '';
    this.error = init.error;
  }
}

class CloseEvent extends Event {
  constructor(type, init = {}) {
    super(type);
    this.wasClean = init.wasClean ?? false;
    this.code = init.code ?? 0;
    this.reason = init.reason ?? '';
  }
}

/**
 * Opens a TCP (http:, ws:) or TLS (https:, wss:) connection and calls back once it is connected,
 * as undici's connector does: no delay, TCP keep-alive after 60 s, 10 s to connect.
 */
function buildConnector(_options) {
  return (opts, callback) => {
    const secure = opts.protocol === 'https:' || opts.protocol === 'wss:';
    const port = Number(opts.port) || (secure ? 443 : 80);
    const net = require('node:net');
    const socket = secure
      ? require('node:tls').connect({
          host: opts.hostname,
          port,
          servername: opts.servername || (net.isIP(opts.hostname) ? undefined : opts.hostname),
          ALPNProtocols: ['http/1.1'],
        })
      : net.connect({ host: opts.hostname, port });
    let done = false;
    const finish = (error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.removeListener('error', finish);
      if (error) {
        socket.destroy();
        callback(error, null);
      } else callback(null, socket.setNoDelay(true).setKeepAlive(true, 60_000));
    };
    const timer = setTimeout(
      () => finish(new Error(`Connect Timeout Error (attempted address: ${opts.hostname}:${port}, timeout: 10000ms)`)),
      10_000,
    );
    socket.once(secure ? 'secureConnect' : 'connect', () => finish());
    socket.once('error', finish);
  };
}

/** Only what the client gives the WebSocket: the connect hook it wraps around buildConnector's. */
class Agent {
  constructor(options = {}) {
    this.connect = typeof options.connect === 'function' ? options.connect : buildConnector(options.connect);
  }
}

class WebSocket extends EventTarget {
  static CONNECTING = CONNECTING;
  static OPEN = OPEN;
  static CLOSING = CLOSING;
  static CLOSED = CLOSED;
  #ws;
  #state = CONNECTING;

  constructor(url, options = {}) {
    super();
    const { dispatcher } = options;
    if (dispatcher !== undefined && !(dispatcher instanceof Agent))
      throw new TypeError('This WebSocket takes only the Agent it exports as its dispatcher');
    const connect = dispatcher?.connect;
    const { protocol, origin } = new URL(url);
    const ws = new WS(url, {
      // The link goes through the dispatcher's connect hook, as undici's WebSocket does.
      ...(connect
        ? {
            createConnection: (opts, oncreate) => {
              connect(
                { protocol, hostname: opts.host, port: opts.port, servername: opts.servername },
                (error, socket) => oncreate(error, socket ?? undefined),
              );
            },
          }
        : {}),
    });
    this.#ws = ws;
    let failure;
    ws.on('open', () => {
      this.#state = OPEN;
      this.dispatchEvent(new Event('open'));
    });
    ws.on('message', (data, isBinary) => {
      if (this.readyState !== OPEN) return;
      this.dispatchEvent(
        new MessageEvent('message', {
          data: isBinary ? new Blob([data]) : data.toString(),
          origin,
        }),
      );
    });
    ws.on('ping', (payload) => {
      if (pingChannel.hasSubscribers) pingChannel.publish({ payload, websocket: this });
    });
    ws.on('pong', (payload) => {
      if (pongChannel.hasSubscribers) pongChannel.publish({ payload, websocket: this });
    });
    // ws reports an error, then closes; the events are fired together on close, as undici does.
    ws.on('error', (error) => {
      failure ??= error;
    });
    ws.on('close', (code, reason) => {
      this.#state = CLOSED;
      // 1006: no close frame came from the peer (ws never takes 1006 from a frame).
      const received = code !== 1006;
      if (!received) this.dispatchEvent(new ErrorEvent('error', { error: new TypeError('', { cause: failure }) }));
      this.dispatchEvent(
        // ws answers a peer's close frame with its own: received means both were sent.
        new CloseEvent('close', { wasClean: received, code, reason: reason.toString() }),
      );
    });
  }

  /** CLOSING too once the peer's close frame came (ws answers it), as undici. */
  get readyState() {
    return this.#state === OPEN ? this.#ws.readyState : this.#state;
  }

  get url() {
    return this.#ws.url;
  }

  send(data) {
    if (this.#state === CONNECTING) throw new DOMException('Sent before connected.', 'InvalidStateError');
    if (this.#state !== OPEN) return;
    this.#ws.send(data);
  }

  close(code, reason) {
    if (this.#state === CLOSING || this.#state === CLOSED) return;
    this.#state = CLOSING;
    // Before the handshake ends ws aborts it (and reports an error, then closes), like undici.
    this.#ws.close(code, reason);
  }

  /** undici's `ping(ws, payload)`: a ping frame only while OPEN. */
  static ping(websocket, payload) {
    if (payload !== undefined && !Buffer.isBuffer(payload)) throw new TypeError('Expected buffer payload');
    if (payload && payload.length > 125)
      throw new TypeError('A PING frame cannot have a body larger than 125 bytes.');
    if (websocket.#state === OPEN) websocket.#ws.ping(payload);
  }
}

const parts = {
  WebSocket: () => WebSocket,
  ping: () => WebSocket.ping,
  CloseEvent: () => CloseEvent,
  ErrorEvent: () => ErrorEvent,
  MessageEvent: () => MessageEvent,
  Agent: () => Agent,
  buildConnector: () => buildConnector,
  // Read by SocketModeClient only with a dispatcher of the caller's (never in platdesk).
  fetch: () => () => {
    throw new TypeError('Socket Mode with a dispatcher of its own is not supported (scripts/build/ws-socket-entry.cjs)');
  },
};
Object.defineProperty(exports, '__esModule', { value: true });
for (const [name, load] of Object.entries(parts)) {
  Object.defineProperty(exports, name, { enumerable: true, get: load });
}
