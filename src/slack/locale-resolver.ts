/**
 * The one place that decides which language someone reads (CONVENTIONS 14):
 * a person — their own choice (`/platdesk language`) → their Slack locale (users.info with
 * include_locale, cached) → the workspace default → English;
 * a channel (digests, unfurls, auto-lookups, public answers) — the channel's language → the
 * workspace default.
 * Slack not answering never fails a request: the next rule applies.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { type Words, wordsFor } from '../blocks/i18n/words.js';
import { type Locale, type LocaleSettings, toLocale } from '../lookups/locale.js';
import { LruMap } from '../lru-map.js';

export interface LocaleResolver {
  /** The locale a person reads. */
  forUser(userId: string): Promise<Locale>;
  /** The Words a person reads. */
  user(userId: string): Promise<Words>;
  /** The Words of a channel's messages (null: no channel, the workspace default). */
  channel(channelId: string | null): Promise<Words>;
  /** The stored choices, for `/platdesk language` and the App Home. */
  readonly settings: LocaleSettings;
}

/** Slack locales change rarely; an hour keeps users.info off the hot path. */
export const SLACK_LOCALE_TTL_MS = 60 * 60 * 1000;
/** After users.info failed, ask again only after this long (the request itself falls back). */
const FAILED_TTL_MS = 60 * 1000;
/** The Web API client retries 5xx for seconds; the answer should not wait for that. */
const USERS_INFO_WAIT_MS = 1_500;
/**
 * People whose Slack locale is kept at most (about 100 bytes each). A workspace's people come and
 * go over months; the least recently asked past this bound are asked again when they come back.
 */
export const LOCALE_CACHE_MAX = 10_000;

export function createLocaleResolver(deps: {
  client: WebClient;
  settings: LocaleSettings;
  logger: Pick<Logger, 'warn'>;
  now?: () => number;
  /** Tests: a small bound (default LOCALE_CACHE_MAX). */
  cacheMax?: number;
}): LocaleResolver {
  const now = deps.now ?? Date.now;
  const cache = new LruMap<string, { locale: Locale | null; until: number }>(
    deps.cacheMax ?? LOCALE_CACHE_MAX,
  );
  /** One users.info per person at a time: a burst of their requests shares the first one's answer. */
  const asking = new Map<string, Promise<Locale | null>>();

  function slackLocale(userId: string): Promise<Locale | null> {
    const hit = cache.get(userId);
    if (hit && hit.until > now()) return Promise.resolve(hit.locale);
    let pending = asking.get(userId);
    if (!pending) {
      pending = askSlack(userId).finally(() => asking.delete(userId));
      asking.set(userId, pending);
    }
    return pending;
  }

  async function askSlack(userId: string): Promise<Locale | null> {
    try {
      let timer: NodeJS.Timeout | undefined;
      const answer = await Promise.race([
        deps.client.users.info({ user: userId, include_locale: true }),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('users.info took too long')), USERS_INFO_WAIT_MS);
        }),
      ]).finally(() => clearTimeout(timer));
      const locale = toLocale(answer.user?.locale);
      cache.set(userId, { locale, until: now() + SLACK_LOCALE_TTL_MS });
      return locale;
    } catch (err) {
      deps.logger.warn({ err, user: userId }, 'users.info failed; using the default language');
      cache.set(userId, { locale: null, until: now() + FAILED_TTL_MS });
      return null;
    }
  }

  const forUser = async (userId: string): Promise<Locale> =>
    (await deps.settings.user(userId)) ?? (await slackLocale(userId)) ?? (await deps.settings.workspace());

  return {
    settings: deps.settings,
    forUser,
    user: async (userId) => wordsFor(await forUser(userId)),
    channel: async (channelId) =>
      wordsFor(
        (channelId ? await deps.settings.channel(channelId) : null) ?? (await deps.settings.workspace()),
      ),
  };
}
