/**
 * One check behind `/healthz` (src/http-server.ts serves them): the store, the limiter, the
 * database lock, Socket Mode's connections (src/slack/socket-connections.ts).
 */
export interface HealthCheck {
  /** Key in the /healthz body. */
  name: string;
  check(): HealthResult | Promise<HealthResult>;
}

export type HealthResult = { ok: boolean; problem?: string; detail?: unknown };
