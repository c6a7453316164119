/**
 * Tells the users of confirmed lookups that a crash cut (lookups/interrupted.ts), and keeps this
 * process's own claims held: every CLAIM_RENEW_MS it renews their leases and looks for claims of
 * holders that are gone since (another process that died while this one runs).
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { renderInterrupted } from '../blocks/confirmation.js';
import type { Instance } from '../instance.js';
import { CLAIM_RENEW_MS, interruptGoneClaims } from '../lookups/interrupted.js';
import type { Pending } from '../lookups/types.js';
import type { ClaimHolder, Store } from '../store/store.js';
import type { LocaleResolver } from './locale-resolver.js';
import { sendPrivately } from './private-reply.js';

export interface ClaimWatchDeps {
  store: Store;
  client: WebClient;
  /** Each user is told in their own language. */
  language: Pick<LocaleResolver, 'user'>;
  logger: Pick<Logger, 'warn' | 'error'>;
  instance: Instance;
  holder: ClaimHolder;
  now: () => Date;
  everyMs?: number;
}

export interface ClaimWatch {
  /** Marks interrupted the claims of holders that are gone (at start: before taking requests). */
  sweep(): Promise<Pending[]>;
  /** Tells each user by direct message; resolves when every message was tried. */
  tell(interrupted: readonly Pending[]): Promise<void>;
  start(): void;
  stop(): void;
}

export function createClaimWatch(deps: ClaimWatchDeps): ClaimWatch {
  let timer: NodeJS.Timeout | undefined;
  const watch: ClaimWatch = {
    async sweep() {
      const interrupted = await interruptGoneClaims(deps.store, deps.instance, deps.now());
      for (const p of interrupted)
        deps.logger.warn(
          { pendingId: p.id, kind: p.request.kind, holder: p.claimedBy },
          'lookup interrupted: its process is gone',
        );
      return interrupted;
    },
    async tell(interrupted) {
      for (const p of interrupted)
        await sendPrivately(
          deps.client,
          { userId: p.userId, channelId: null },
          renderInterrupted(await deps.language.user(p.userId), p.request, { offerAgain: false }),
          deps.logger,
        );
    },
    start() {
      timer ??= setInterval(() => {
        void (async () => {
          await deps.store.pending.renewClaims(deps.holder);
          await watch.tell(await watch.sweep());
        })().catch((err: unknown) => {
          // The store failing now is reported by /healthz; the next beat tries again.
          deps.logger.error({ err }, 'could not renew lookup claims');
        });
      }, deps.everyMs ?? CLAIM_RENEW_MS);
      timer.unref();
    },
    stop() {
      clearInterval(timer);
      timer = undefined;
    },
  };
  return watch;
}
