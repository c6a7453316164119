/**
 * The one place that picks a language (CONVENTIONS 14): a person's own choice → their Slack
 * locale (users.info include_locale, cached) → the workspace default → English; a channel's own
 * language → the workspace default. Slack failing never fails the request.
 */
import { WebClient } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLocaleSettings, toLocale } from '../../src/lookups/locale.js';
import { createLocaleResolver, SLACK_LOCALE_TTL_MS } from '../../src/slack/locale-resolver.js';
import type { Store } from '../../src/store/store.js';
import { type FakeSlack, startSlackApiServer } from '../helpers/slack-api-server.js';
import { openTestStore } from '../helpers/store-engines.js';

describe('locale resolver', () => {
  let fake: FakeSlack;
  let store: Store;
  let t = 0;
  const warnings: unknown[] = [];
  const resolver = (initial: 'en' | 'zh-CN' = 'en', cacheMax?: number) =>
    createLocaleResolver({
      client: new WebClient('xoxb-test', { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } }),
      settings: createLocaleSettings(store.settings, initial),
      logger: { warn: (o: unknown) => void warnings.push(o) },
      now: () => t,
      ...(cacheMax === undefined ? {} : { cacheMax }),
    });

  beforeEach(async () => {
    fake = await startSlackApiServer();
    store = await openTestStore(':memory:');
    t = 1_000_000;
    warnings.length = 0;
  });
  afterEach(async () => {
    await store.close();
    await fake.close();
  });

  it('reads Slack locales as platdesk speaks them', async () => {
    expect(['zh-CN', 'zh_CN', 'zh', 'zh-Hans', 'zh-TW', '中文'].map(toLocale)).toEqual(
      Array(6).fill('zh-CN'),
    );
    expect(['en-US', 'en-GB', 'EN', 'english'].map(toLocale)).toEqual(Array(4).fill('en'));
    expect(['ja-JP', 'fr', '', null, undefined].map(toLocale)).toEqual(Array(5).fill(null));
  });

  it("a burst of one person's requests asks Slack once", async () => {
    const r = resolver();
    fake.setLocale('U1', 'zh-CN');
    const locales = await Promise.all(Array.from({ length: 20 }, () => r.forUser('U1')));
    expect(locales).toEqual(Array(20).fill('zh-CN'));
    expect(fake.callsTo('users.info')).toHaveLength(1);
  });

  it("a person: own choice, else Slack's locale (cached for an hour), else the workspace default", async () => {
    const r = resolver();
    fake.setLocale('U1', 'zh-CN');
    fake.setLocale('U2', 'ja-JP');
    expect(await r.forUser('U1')).toBe('zh-CN');
    expect(await r.forUser('U2')).toBe('en');
    expect(fake.callsTo('users.info').map((c) => [c.body.user, c.body.include_locale])).toEqual([
      ['U1', 'true'],
      ['U2', 'true'],
    ]);
    // Cached: Slack is not asked again within the hour, even if the person changes their language.
    fake.setLocale('U1', 'en-US');
    expect(await r.forUser('U1')).toBe('zh-CN');
    t += SLACK_LOCALE_TTL_MS + 1;
    expect(await r.forUser('U1')).toBe('en');
    expect(fake.callsTo('users.info')).toHaveLength(3);
    // Their own choice comes first, and needs no Slack call.
    await r.settings.setUser('U1', 'zh-CN');
    expect(await r.forUser('U1')).toBe('zh-CN');
    expect(fake.callsTo('users.info')).toHaveLength(3);
    // The workspace default, for someone whose Slack language platdesk does not speak.
    await r.settings.setWorkspace('zh-CN', 'UADMIN');
    expect(await r.forUser('U2')).toBe('zh-CN');
    expect((await r.user('U2')).t('confirm.cancelButton')).toBe('取消');
  });

  it('Slack failing: the workspace default, asked again only a minute later', async () => {
    const r = resolver('zh-CN');
    fake.failNext('users.info', { error: 'user_not_found' });
    expect(await r.forUser('U3')).toBe('zh-CN');
    expect(warnings).toHaveLength(1);
    fake.setLocale('U3', 'en-US');
    expect(await r.forUser('U3')).toBe('zh-CN');
    expect(fake.callsTo('users.info')).toHaveLength(1);
    t += 61_000;
    expect(await r.forUser('U3')).toBe('en');
  });

  it('keeps the Slack locales of a bounded number of people: the least recently asked is asked Slack again', async () => {
    const r = resolver('en', 3);
    for (const u of ['U1', 'U2', 'U3']) fake.setLocale(u, 'zh-CN');
    fake.setLocale('U4', 'en-US');
    for (const u of ['U1', 'U2', 'U3']) expect(await r.forUser(u)).toBe('zh-CN');
    expect(await r.forUser('U1')).toBe('zh-CN'); // a hit: U2 is the least recently asked now
    expect(fake.callsTo('users.info')).toHaveLength(3);
    expect(await r.forUser('U4')).toBe('en'); // a fourth person: U2 is dropped
    expect(await r.forUser('U1')).toBe('zh-CN');
    expect(await r.forUser('U3')).toBe('zh-CN');
    expect(fake.callsTo('users.info')).toHaveLength(4);
    expect(await r.forUser('U2')).toBe('zh-CN');
    expect(fake.callsTo('users.info').map((c) => c.body.user)).toEqual(['U1', 'U2', 'U3', 'U4', 'U2']);
  });

  it('a channel: its own language, else the workspace default', async () => {
    const r = resolver();
    expect((await r.channel('C1')).locale).toBe('en');
    await r.settings.setChannel('C1', 'zh-CN', 'UADMIN');
    expect((await r.channel('C1')).locale).toBe('zh-CN');
    expect((await r.channel('C2')).locale).toBe('en');
    await r.settings.setWorkspace('zh-CN', 'UADMIN');
    expect((await r.channel('C2')).locale).toBe('zh-CN');
    expect((await r.channel(null)).locale).toBe('zh-CN');
    await r.settings.setChannel('C1', null, 'UADMIN');
    expect((await r.channel('C1')).locale).toBe('zh-CN');
    // Every change is audited with who made it.
    expect((await store.audit.list(10)).map((a) => a.actorId)).toEqual(['UADMIN', 'UADMIN', 'UADMIN']);
  });
});
