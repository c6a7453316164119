/**
 * Socket Mode with several connections per process. Slack delivers each payload to one of an app's
 * open connections (up to 10 per app), so while one connection is being recycled the others keep
 * receiving: @slack/socket-mode 3.1 (the newest release) closes at once on `refresh_requested` and
 * reconnects only after its ping timeout (5 s), which with one connection left every command sent
 * in those seconds unanswered.
 *
 * Each connection is a Bolt SocketModeReceiver handing envelopes to the same App; the first also
 * serves the health routes on PORT. This module tracks their state for /healthz (failing once no
 * connection has been open for `livenessMs`), counts reconnects by reason in /metrics, and logs
 * the socket client's routine link errors as warnings with their reason instead of error-level
 * lines with empty text.
 */
import type { Server } from 'node:http';
import {
  type App,
  type Logger as BoltLogger,
  LogLevel,
  type Receiver,
  SocketModeReceiver,
} from '@slack/bolt';
import type { CustomRoute } from '@slack/bolt/dist/receivers/custom-routes.js';
import type { Logger } from 'pino';
import type { HealthCheck } from '../health.js';
import type { Metrics } from '../metrics.js';
import { withoutPayload } from './bolt-logger.js';
import { slackClientOptions } from './web-fetch.js';

export interface SocketConnectionsOptions {
  appToken: string;
  /** Open connections to keep (1–10). */
  connections: number;
  /** Port of the health server (routes). */
  port: number;
  routes: CustomRoute[];
  apiUrl: string | null;
  logger: Logger;
  metrics: Metrics;
  /** /healthz fails once no connection has been open for this long. */
  livenessMs: number;
  /**
   * Called once when no connection has been open for `livenessMs` (checked every few seconds while
   * the receivers run): the process runner exits non-zero so a restart policy replaces a replica
   * that stays deaf, since Docker restarts only containers that exit, not unhealthy ones.
   */
  onDeaf?: (downForMs: number) => void;
  now?: () => number;
}

export interface SocketConnections {
  receiver: Receiver;
  /** The health server Bolt runs beside the first connection. */
  httpServer: Server | undefined;
  health: HealthCheck;
  /** The socket clients (start-up watches them for a failure before Slack's hello). */
  clients: SocketModeReceiver['client'][];
}

export const SOCKET_LIVENESS_MS = 60_000;

/** Link errors the socket client logs at error level although it recovers from them by itself. */
const ROUTINE_LINK_ERROR = /^(WebSocket error occurred: ?|WebSocket error! ?)(.*)$/s;

/**
 * Bolt's and the socket client's lines on pino. The client reports every closed link as an error,
 * often with empty text ("WebSocket error occurred: "): those become warnings that say so.
 */
export function socketLogger(logger: Logger, connection: number): BoltLogger {
  const child = logger.child({ component: 'socket-mode', connection });
  let level = LogLevel.INFO;
  const text = (msg: unknown[]) => msg.map(String).join(' ');
  return {
    debug: (...msg: unknown[]) => child.debug(withoutPayload(text(msg))),
    info: (...msg: unknown[]) => child.info(text(msg)),
    warn: (...msg: unknown[]) => child.warn(text(msg)),
    error: (...msg: unknown[]) => {
      const line = text(msg);
      const routine = ROUTINE_LINK_ERROR.exec(line);
      if (!routine) {
        child.error(line);
        return;
      }
      const reason = routine[2]?.trim() || 'the link closed without a reason';
      child.warn({ reason }, 'Socket Mode link closed; the client reconnects');
    },
    setLevel: (l: LogLevel) => {
      level = l;
    },
    getLevel: () => level,
    setName: () => {},
  };
}

class SocketReceivers implements Receiver {
  private watchdog: NodeJS.Timeout | undefined;
  constructor(
    private readonly parts: SocketModeReceiver[],
    private readonly deafCheck: { everyMs: number; check: () => void } | null,
  ) {}
  init(app: App): void {
    for (const part of this.parts) part.init(app);
  }
  async start(): Promise<unknown> {
    if (this.deafCheck && !this.watchdog) {
      this.watchdog = setInterval(this.deafCheck.check, this.deafCheck.everyMs);
      this.watchdog.unref();
    }
    const [first] = await Promise.all(this.parts.map((part) => part.start()));
    return first;
  }
  async stop(): Promise<void> {
    clearInterval(this.watchdog);
    this.watchdog = undefined;
    await Promise.all(this.parts.map((part) => part.stop()));
  }
}

export function createSocketConnections(options: SocketConnectionsOptions): SocketConnections {
  const now = options.now ?? Date.now;
  const { logger, metrics } = options;
  const up = new Set<number>();
  let downSince: number | null = now();
  /** Until a first connection opens, the process is still starting: /healthz says so (503). */
  let connectedOnce = false;

  const parts = Array.from({ length: options.connections }, (_, index) => {
    const part = new SocketModeReceiver({
      appToken: options.appToken,
      // Only the first serves the routes: one health server on PORT.
      ...(index === 0 ? { customRoutes: options.routes } : {}),
      installerOptions: {
        port: options.port,
        // The socket client's own WebClient (apps.connections.open) must reach SLACK_API_URL too.
        clientOptions: slackClientOptions(options.apiUrl ? { slackApiUrl: options.apiUrl } : {}),
      },
      logger: socketLogger(logger, index),
    });
    watch(part, index);
    return part;
  });

  function watch(part: SocketModeReceiver, index: number): void {
    let reason = 'link_lost';
    const client = part.client;
    client.on('ws_message', (data: unknown) => {
      // Slack's `disconnect` message says why it closes the link (refresh_requested, warning…).
      const text = typeof data === 'string' ? data : Buffer.isBuffer(data) ? data.toString() : '';
      if (!text.includes('"disconnect"')) return;
      try {
        const message = JSON.parse(text) as { type?: unknown; reason?: unknown };
        if (message.type === 'disconnect') reason = String(message.reason ?? 'unspecified');
      } catch {
        // not ours to judge: the client ignores it too
      }
    });
    client.on('connected', () => {
      up.add(index);
      downSince = null;
      connectedOnce = true;
    });
    client.on('close', () => {
      if (!up.delete(index)) return;
      if (up.size === 0) downSince = now();
    });
    client.on('reconnecting', () => {
      metrics.inc('platdesk_socket_reconnects_total', 'Socket Mode reconnects by reason', { reason });
      logger.info({ component: 'socket-mode', connection: index, reason }, 'Socket Mode reconnecting');
      reason = 'link_lost';
    });
  }

  metrics.gauge('platdesk_socket_connections_open', 'Socket Mode connections open', () => up.size);

  const { onDeaf } = options;
  let toldDeaf = false;
  const deafCheck = onDeaf
    ? {
        everyMs: Math.min(5000, Math.max(100, Math.floor(options.livenessMs / 4))),
        check: () => {
          const downForMs = downSince === null ? 0 : now() - downSince;
          if (downForMs < options.livenessMs || toldDeaf) return;
          toldDeaf = true;
          onDeaf(downForMs);
        },
      }
    : null;

  return {
    receiver: new SocketReceivers(parts, deafCheck),
    httpServer: (parts[0] as unknown as { httpServer?: Server } | undefined)?.httpServer,
    clients: parts.map((part) => part.client),
    health: {
      name: 'socket',
      // Readiness is now, not after the liveness bound: a replica with no connection open takes
      // no Slack payload, and a rollout should wait for its successor's.
      ready: () => up.size > 0,
      check() {
        const downForMs = downSince === null ? 0 : now() - downSince;
        const detail = { open: up.size, connections: options.connections, downForMs };
        if (!connectedOnce)
          return { ok: false, detail, problem: 'Slack Socket Mode: not connected yet (starting)' };
        if (downForMs < options.livenessMs) return { ok: true, detail };
        return {
          ok: false,
          detail,
          problem: `Slack Socket Mode: no connection open for ${Math.round(downForMs / 1000)} s`,
        };
      },
    },
  };
}
