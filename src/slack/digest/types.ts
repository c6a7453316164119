import type { AlertScheduler } from '../../alerts/scheduler.js';
import type { DigestScheduler } from '../../digest/scheduler.js';
import type { ResolveShop } from '../../digest/subscriptions.js';

/** What `/orders digest`, `/orders alert` and their buttons need besides SlackDeps. */
export interface DigestSlackDeps {
  scheduler: DigestScheduler;
  /** A shop alias or owner id → the owner id (the shop registry), or null when unknown. */
  resolveShop: ResolveShop;
  /** Ship-by alerts; absent where they are not wired. */
  alerts?: AlertScheduler;
}
