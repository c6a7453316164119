/** The App Home's language buttons: English, 中文 or automatic, for the person who clicks. */
import type { App } from '@slack/bolt';
import { HOME_LANGUAGE_PATTERN } from '../../blocks/action-ids.js';
import { toLocale } from '../../lookups/locale.js';
import { onViewClick } from '../clicks/view-click.js';
import type { SlackDeps } from '../deps.js';

export function registerHomeLanguage(app: App, deps: SlackDeps): void {
  onViewClick(app, deps, HOME_LANGUAGE_PATTERN, async (click) => {
    const value = click.action.value ?? '';
    const locale = toLocale(value);
    // Anything else than a language (a forged value) leaves the choice as it is.
    if (value === 'auto' || locale !== null) await deps.language.settings.setUser(click.userId, locale);
    await click.republishHome();
  });
}
