/**
 * One check behind the health routes (src/http-server.ts serves them): the store, the limiter,
 * the database lock, Socket Mode's connections (src/slack/socket-connections.ts).
 *
 * `/healthz` (Docker, compose) reports every check with its detail. `/readyz` (Kubernetes'
 * readiness) asks each `ready()`: whether this replica can take Slack traffic now. `/livez`
 * asks none of them: a dependency being down never makes a process worth restarting.
 */
export interface HealthCheck {
  /** Key in the /healthz body; the name /readyz lists while not ready. */
  name: string;
  check(): HealthResult | Promise<HealthResult>;
  /** Ready for traffic now; `check().ok` when absent. */
  ready?(): boolean | Promise<boolean>;
}

export type HealthResult = { ok: boolean; problem?: string; detail?: unknown };

/** /readyz: the names of the checks not ready now (none: ready). */
export async function notReady(checks: readonly HealthCheck[]): Promise<string[]> {
  const failing: string[] = [];
  for (const check of checks) {
    const ready = check.ready ? await check.ready() : (await check.check()).ok;
    if (!ready) failing.push(check.name);
  }
  return failing;
}
