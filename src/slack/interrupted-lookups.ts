/**
 * Tells the users of confirmed lookups that a crash cut (lookups/interrupted.ts), and keeps this
 * process's own claims held: every CLAIM_RENEW_MS it renews their leases and looks for claims of
 * holders that are gone since (another process that died while this one runs).
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { renderInterrupted } from '../blocks/confirmation.js';
import { renderOutcome } from '../blocks/outcome.js';
import type { Instance } from '../instance.js';
import { CLAIM_RENEW_MS, interruptedTruth, interruptGoneClaims } from '../lookups/interrupted.js';
import type { Pending } from '../lookups/types.js';
import type { ClaimHolder, Store } from '../store/store.js';
import type { LocaleResolver } from './locale-resolver.js';
import { sendPrivately } from './private-reply.js';

/** How a claim's user is reached: by its tenant's Slack client, in their own language. */
export interface ClaimSlack {
  client: WebClient;
  language: Pick<LocaleResolver, 'user'>;
}

export type ClaimWatchDeps = ClaimWatchBase &
  (
    | ClaimSlack
    | {
        /** Distributed mode: the Slack of a claim's tenant (null: no longer installed). */
        slackOf: (tenant: string) => Promise<ClaimSlack | null>;
      }
  );

interface ClaimWatchBase {
  store: Store;
  logger: Pick<Logger, 'warn' | 'error'>;
  instance: Instance;
  holder: ClaimHolder;
  now: () => Date;
  /**
   * The longest a plat call can take (plat/client.ts longestCallMs): a claim whose lease ran out
   * is taken as gone only this long after, when a cut-off holder's last call is surely over.
   */
  longestCallMs: number;
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
      const interrupted = await interruptGoneClaims(deps.store, deps.instance, deps.longestCallMs);
      for (const p of interrupted)
        deps.logger.warn(
          { pendingId: p.id, kind: p.request.kind, holder: p.claimedBy },
          'lookup interrupted: its process is gone',
        );
      return interrupted;
    },
    async tell(interrupted) {
      for (const p of interrupted) {
        // What is known first (sent? charged? its answer kept?): told as it is, never offered again once sent.
        const truth = await interruptedTruth(deps.store.forTenant(p.tenantId), p);
        const slack = 'slackOf' in deps ? await deps.slackOf(p.tenantId) : deps;
        if (!slack) {
          deps.logger.warn(
            { pendingId: p.id },
            'interrupted lookup of a tenant no longer installed: not told',
          );
          continue;
        }
        const w = await slack.language.user(p.userId);
        const to = { userId: p.userId, channelId: null };
        await sendPrivately(
          slack.client,
          to,
          renderInterrupted(w, p.request, truth, { offerAgain: false }),
          deps.logger,
        );
        if (truth.sent && truth.answer)
          await sendPrivately(
            slack.client,
            to,
            renderOutcome(w, truth.answer, { now: deps.now() }),
            deps.logger,
          );
      }
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
