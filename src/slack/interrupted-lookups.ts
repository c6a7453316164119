/**
 * Lookups left running by a crash or restart between Confirm and answer are never run again
 * (the call may already have been charged): they are marked failed and their users told.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import type { LookupRequest, Quote } from '../lookups/types.js';
import type { Store } from '../store/store.js';

/** Longer than any lookup can run (deadline × retries + queue), so a live one is never touched. */
export const INTERRUPTED_AFTER_MS = 5 * 60 * 1000;

export async function reportInterruptedLookups(deps: {
  store: Store;
  client: WebClient;
  logger: Pick<Logger, 'warn' | 'error'>;
}): Promise<number> {
  const stale = await deps.store.pending.staleRunning<LookupRequest, Quote>(INTERRUPTED_AFTER_MS);
  for (const pending of stale) {
    if (!(await deps.store.pending.finish(pending.id, 'failed', null))) continue;
    deps.logger.warn(
      { pendingId: pending.id, kind: pending.request.kind },
      'lookup interrupted by a restart',
    );
    await deps.client.chat
      .postMessage({
        channel: pending.userId,
        text: `Your lookup of ${pending.summary} was interrupted by a platdesk restart and was not repeated. It may have been charged: \`/platdesk usage\` shows your spend. Run it again if you still need it.`,
      })
      .catch((err: unknown) => deps.logger.error({ err, pendingId: pending.id }, 'could not tell the user'));
  }
  return stale.length;
}
