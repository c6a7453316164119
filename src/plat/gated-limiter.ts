/**
 * A limiter that refuses while a gate is closed. Two gates close it (main.ts):
 * - on PostgreSQL, the database lock that makes a process's limiter the only one with its rate
 *   (store/sole-lock.ts, issue 20 pt 4): while it is not held, another process may be calling
 *   under the same limit (PlatLockLostError);
 * - the database watch (store/database-watch.ts, DESIGN rule 9): this replica's clock is too far
 *   from the database's, or the database was migrated past its build (PlatOutOfServiceError).
 * Checked when a job is scheduled and again as the limiter starts it (a job queued before the
 * gate closed must not go out after). Refused: nothing sent.
 */
import { type OutOfServiceReason, PlatLockLostError, PlatOutOfServiceError } from './errors.js';
import type { Limiter } from './limiter.js';
import type { Operation } from './operations.js';

/** Why calls may not start now (`why` is for the error's message, never shown raw to users). */
export type GateClosed =
  | { kind: 'lock_lost'; why: string }
  | { kind: 'out_of_service'; reason: OutOfServiceReason; why: string };

/** null while calls may start. */
export type LimiterGate = () => GateClosed | null;

export function gatedLimiter(limiter: Limiter, gate: LimiterGate): Limiter {
  const refusal = (operation: Operation | null | undefined, closed: GateClosed) => {
    const message = `${operation ?? 'plat call'} not sent: ${closed.why}`;
    const options = { operation: operation ?? null };
    return closed.kind === 'lock_lost'
      ? new PlatLockLostError(message, options)
      : new PlatOutOfServiceError(message, closed.reason, options);
  };
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
