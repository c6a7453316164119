/** The App Home's language buttons: English, 中文 or automatic, for the person who clicks. */
import type { App, BlockButtonAction } from '@slack/bolt';
import { HOME_LANGUAGE_PATTERN } from '../../blocks/action-ids.js';
import { toLocale } from '../../lookups/locale.js';
import type { SlackDeps } from '../deps.js';
import { publishHome } from './publish.js';

export function registerHomeLanguage(app: App, deps: SlackDeps): void {
  app.action<BlockButtonAction>(HOME_LANGUAGE_PATTERN, async ({ ack, action, body, client }) => {
    await ack();
    const value = action.value ?? '';
    const locale = toLocale(value);
    // Anything else than a language (a forged value) leaves the choice as it is.
    if (value === 'auto' || locale !== null) await deps.language.settings.setUser(body.user.id, locale);
    await publishHome(deps, client, body.user.id);
  });
}
