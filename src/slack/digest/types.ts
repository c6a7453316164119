import type { AlertScheduler } from '../../alerts/scheduler.js';
import type { DigestScheduler } from '../../digest/scheduler.js';
import type { ResolveShop } from '../../digest/subscriptions.js';
import type { PriceOf } from '../../digest/types.js';

/** What `/orders digest`, `/orders alert` and their buttons need besides SlackDeps. */
export interface DigestSlackDeps {
  scheduler: DigestScheduler;
  /** A shop alias or owner id → the owner id (the shop registry), or null when unknown. */
  resolveShop: ResolveShop;
  /** Points per call as quotes and estimates use them (PLAT_PRICES, admins' overrides, last charge). */
  priceOf: PriceOf;
  /** Ship-by alerts; absent where they are not wired. */
  alerts?: AlertScheduler;
}
