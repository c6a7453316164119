/**
 * Lookups left running by a crash or restart between Confirm and answer are never run again
 * (the call may already have been charged): they are marked failed and their users told.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { escapeClip } from '../blocks/text.js';
import { describeRequest } from '../blocks/words-of.js';
import type { LookupRequest, Quote } from '../lookups/types.js';
import type { Store } from '../store/store.js';
import type { LocaleResolver } from './locale-resolver.js';

/** Longer than any lookup can run (deadline × retries + queue), so a live one is never touched. */
export const INTERRUPTED_AFTER_MS = 5 * 60 * 1000;

export async function reportInterruptedLookups(deps: {
  store: Store;
  client: WebClient;
  language: Pick<LocaleResolver, 'user'>;
  logger: Pick<Logger, 'warn' | 'error'>;
}): Promise<number> {
  const stale = deps.store.pending.staleRunning<LookupRequest, Quote>(INTERRUPTED_AFTER_MS);
  for (const pending of stale) {
    if (!deps.store.pending.finish(pending.id, 'failed', null)) continue;
    deps.logger.warn(
      { pendingId: pending.id, kind: pending.request.kind },
      'lookup interrupted by a restart',
    );
    const w = await deps.language.user(pending.userId);
    // What was looked up holds what the user typed: escaped like any text.
    const summary = escapeClip(describeRequest(w, pending.request), 500);
    await deps.client.chat
      .postMessage({ channel: pending.userId, text: w.t('notice.interrupted', { summary }) })
      .catch((err: unknown) => deps.logger.error({ err, pendingId: pending.id }, 'could not tell the user'));
  }
  return stale.length;
}
