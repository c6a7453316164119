/**
 * The answer to someone who is not an admin clicking an admin button (on the App Home, or a Home
 * published before their rights were taken away): sent to them alone, saying that nothing changed
 * and who can do it.
 */
import type { Words } from './i18n/words.js';
import { message, type RenderedMessage, section } from './kit.js';
import { askAdmins } from './spend.js';

export function renderAdminOnlyButton(w: Words, admins: readonly string[]): RenderedMessage {
  const text = w.t('home.form.adminOnlyButton', { ask: askAdmins(w, admins) });
  return message(text, [section(text)]);
}
