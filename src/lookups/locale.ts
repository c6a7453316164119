/**
 * The languages platdesk speaks, and where each choice is kept: a person's own choice, a
 * channel's language and the workspace default are settings (audited like every setting).
 * Which of them applies is decided in one place, slack/locale-resolver.ts.
 */
import type { Settings } from '../store/store.js';

export const LOCALES = ['en', 'zh-CN'] as const;
export type Locale = (typeof LOCALES)[number];

/**
 * A locale from a person's words or Slack's `locale` field ("zh-CN", "zh_CN", "zh", "zh-Hans",
 * "en-US", "中文"); null for anything platdesk does not speak.
 */
export function toLocale(raw: string | null | undefined): Locale | null {
  const text = raw?.trim().toLowerCase().replace('_', '-') ?? '';
  if (text === '') return null;
  if (text === 'zh' || text.startsWith('zh-') || text === '中文' || text === '简体中文') return 'zh-CN';
  if (text === 'en' || text.startsWith('en-') || text === 'english' || text === '英文' || text === '英语')
    return 'en';
  return null;
}

const KEYS = {
  workspace: 'locale.workspace',
  user: (userId: string) => `locale.user.${userId}`,
  channel: (channelId: string) => `locale.channel.${channelId}`,
} as const;

/** The stored language choices. `null` means "not set" (auto for a person, the default for a channel). */
export interface LocaleSettings {
  user(userId: string): Promise<Locale | null>;
  setUser(userId: string, locale: Locale | null): Promise<void>;
  channel(channelId: string): Promise<Locale | null>;
  setChannel(channelId: string, locale: Locale | null, actorId: string): Promise<void>;
  /** The admin's workspace default, else `initial` (PLATDESK_LOCALE), else English. */
  workspace(): Promise<Locale>;
  setWorkspace(locale: Locale, actorId: string): Promise<void>;
}

export function createLocaleSettings(settings: Settings, initial: Locale = 'en'): LocaleSettings {
  const read = async (key: string): Promise<Locale | null> => toLocale(await settings.get<string>(key));
  const write = async (key: string, locale: Locale | null, actorId: string): Promise<void> => {
    if (locale === null) await settings.delete(key, actorId);
    else await settings.set(key, locale, actorId);
  };
  return {
    user: (userId) => read(KEYS.user(userId)),
    setUser: (userId, locale) => write(KEYS.user(userId), locale, userId),
    channel: (channelId) => read(KEYS.channel(channelId)),
    setChannel: (channelId, locale, actorId) => write(KEYS.channel(channelId), locale, actorId),
    workspace: async () => (await read(KEYS.workspace)) ?? initial,
    setWorkspace: (locale, actorId) => write(KEYS.workspace, locale, actorId),
  };
}
