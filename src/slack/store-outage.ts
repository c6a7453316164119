/**
 * When the store cannot be reached, a listener stops at its first store call (before any plat
 * call: a call starts only after its claim is stored) and throws StoreUnavailableError. This
 * global middleware turns that into a clear "temporarily unavailable" answer for the user who
 * asked, instead of silence; everything else goes on to app.error.
 */
import type { App } from '@slack/bolt';
import { renderStoreUnavailable } from '../blocks/errors.js';
import { wordsFor } from '../blocks/i18n/words.js';
import { isStoreUnavailable } from '../store/errors.js';
import type { SlackDeps } from './deps.js';
import { recipientOf, sendPrivately } from './private-reply.js';

export function registerStoreOutage(app: App, deps: SlackDeps): void {
  app.use(async ({ next, body, client }) => {
    try {
      await next();
    } catch (error) {
      if (!isStoreUnavailable(error)) throw error;
      deps.metrics.inc('platdesk_errors_total', 'Errors by source and code', {
        source: 'store',
        code: error.code,
      });
      deps.logger.warn(
        { err: error },
        'store unavailable: the request was answered "temporarily unavailable"',
      );
      const to = recipientOf(body as unknown as Record<string, unknown>);
      if (!to) return;
      // The person's language is a setting in the store that cannot be read now: English then.
      const w = await deps.language.user(to.userId).catch(() => wordsFor('en'));
      await sendPrivately(client, to, renderStoreUnavailable(w), deps.logger);
    }
  });
}
