import type { DigestScheduler } from '../../digest/scheduler.js';

/** What `/orders digest` and the digest buttons need besides SlackDeps. */
export interface DigestSlackDeps {
  scheduler: DigestScheduler;
  /**
   * A shop alias or owner id → the owner id, or null when unknown. Default: the text itself (the
   * shop alias registry, store setting 'shops', is not wired here yet).
   */
  resolveShop?: (aliasOrOwner: string) => Promise<string | null>;
}
