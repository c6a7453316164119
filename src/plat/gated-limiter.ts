/**
 * A limiter that refuses while a gate is closed (issue 20 pt 4): on PostgreSQL a process holds the
 * database lock that makes its limiter the only one with its rate (store/sole-lock.ts); while it
 * does not hold it, another process may be calling under the same limit, so no call is started.
 * Checked when a job is scheduled and again as the limiter starts it (a job queued before the
 * lock was lost must not go out after). Refused with PlatLockLostError: nothing sent.
 */
import { PlatLockLostError } from './errors.js';
import type { Limiter } from './limiter.js';
import type { Operation } from './operations.js';

/** null while calls may start; otherwise why not (for the error, never shown raw to users). */
export type LimiterGate = () => string | null;

export function gatedLimiter(limiter: Limiter, gate: LimiterGate): Limiter {
  const refusal = (operation: Operation | null | undefined, why: string) =>
    new PlatLockLostError(`${operation ?? 'plat call'} not sent: ${why}`, { operation: operation ?? null });
  return {
    schedule(task, options = {}) {
      const closed = gate();
      if (closed !== null) return Promise.reject(refusal(options.operation, closed));
      return limiter.schedule((progress) => {
        const late = gate();
        if (late !== null) throw refusal(options.operation, late);
        return task(progress);
      }, options);
    },
    estimate: (priority) => limiter.estimate(priority),
    stats: () => limiter.stats(),
    ready: () => limiter.ready(),
    health: () => limiter.health(),
    stop: () => limiter.stop(),
  };
}
