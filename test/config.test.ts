/**
 * loadConfig (CONVENTIONS 8): every problem listed at once, PLAT_PRICES / PLAT_EDITIONS parsing,
 * Socket Mode vs HTTP mode, and the sandbox needing no plat settings.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  loadConfig,
  loadDatabaseConfig,
  loadEnvFile,
  parseEditions,
  parsePrices,
  SECRET_SETTINGS,
} from '../src/config.js';

const HTTP_BASE = {
  SLACK_BOT_TOKEN: 'xoxb-1',
  SLACK_SIGNING_SECRET: 'secret',
  PLAT_BASE_URL: 'https://plat.example.invalid',
  PLAT_TOKEN: 'plat-token',
};

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('loadConfig accepted the settings');
}

describe('loadConfig', () => {
  it('names every missing required variable at once', async () => {
    const problems = problemsOf({});
    const all = problems.join('\n');
    for (const name of ['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET', 'PLAT_BASE_URL', 'PLAT_TOKEN'])
      expect(all).toContain(name);
    expect(problems.length).toBeGreaterThanOrEqual(4);
  });

  it('says in its message where to look, one problem per line', async () => {
    try {
      loadConfig({});
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).toContain('docs/settings.md');
      expect((error as Error).message).toMatch(/\n {2}- SLACK_BOT_TOKEN/);
    }
  });

  it('lists bad values together with missing ones', async () => {
    const problems = problemsOf({
      SLACK_BOT_TOKEN: 'xoxb-1',
      SLACK_API_URL: 'not a url',
      PORT: '70000',
      PLAT_RATE_LIMIT: 'ten',
      PLATDESK_ADMINS: 'U1234,alice',
      LOG_LEVEL: 'loud',
      PLAT_PRICES: 'nope',
    });
    const all = problems.join('\n');
    expect(all).toContain('SLACK_API_URL must be an http(s) URL');
    expect(all).toContain('PORT: must be a whole number from 0 to 65535');
    expect(all).toContain('PLAT_RATE_LIMIT');
    expect(all).toContain('PLATDESK_ADMINS: "alice" is not a Slack user id');
    expect(all).toContain('LOG_LEVEL');
    expect(all).toContain('PLAT_PRICES: "nope"');
    expect(all).toContain('SLACK_SIGNING_SECRET is required');
    expect(all).toContain('PLAT_BASE_URL is required');
  });

  it('builds an HTTP-mode config with defaults', async () => {
    const config = loadConfig(HTTP_BASE);
    expect(config.slack).toEqual({
      botToken: 'xoxb-1',
      distribution: null,
      signingSecret: 'secret',
      appToken: null,
      apiUrl: null,
      mode: 'http',
      socketConnections: 2,
      marketplaceApproved: false,
    });
    expect(config.port).toBe(3000);
    expect(config.plat).toMatchObject({
      baseUrl: 'https://plat.example.invalid',
      token: 'plat-token',
      sandbox: false,
      prices: {},
      editions: {},
      rateLimit: { maxCalls: 10, windowMs: 1000, maxQueued: 100 },
    });
    expect(config.admins).toEqual([]);
    expect(config.database.path).toBe('./data/platdesk.sqlite');
    expect(config.redisUrl).toBeNull();
    expect(config.logLevel).toBe('info');
  });

  describe('distributed mode (SLACK_CLIENT_ID, SLACK_CLIENT_SECRET, SLACK_STATE_SECRET)', () => {
    const KEY = Buffer.alloc(32, 7).toString('base64');
    const DISTRIBUTED = {
      SLACK_CLIENT_ID: '1234.5678',
      SLACK_CLIENT_SECRET: 'client-secret',
      SLACK_STATE_SECRET: 'a-long-random-state-secret',
      SLACK_SIGNING_SECRET: 'secret',
      PLATDESK_ENCRYPTION_KEY: KEY,
    };
    it('needs no bot token and no plat account; keys and retention are read', () => {
      const config = loadConfig(DISTRIBUTED);
      expect(config.slack).toMatchObject({
        botToken: null,
        mode: 'http',
        distribution: {
          clientId: '1234.5678',
          clientSecret: 'client-secret',
          stateSecret: 'a-long-random-state-secret',
        },
      });
      expect(config.plat.baseUrl).toBeNull();
      expect(config.encryptionKeys.map((k) => k.id)).toEqual(['k1']);
      expect(config.retentionDays).toBe(30);
      expect(loadConfig({ ...DISTRIBUTED, PLATDESK_RETENTION_DAYS: '7' }).retentionDays).toBe(7);
      // The operator's default plat account for every workspace.
      expect(
        loadConfig({ ...DISTRIBUTED, PLAT_BASE_URL: 'https://plat.example.invalid', PLAT_TOKEN: 't' }).plat,
      ).toMatchObject({ baseUrl: 'https://plat.example.invalid', token: 't' });
    });
    it("reads SLACK_MARKETPLACE_APPROVED: off by default (Slack's limited read tier for apps not approved), on with 1/true", () => {
      expect(loadConfig(DISTRIBUTED).slack.marketplaceApproved).toBe(false);
      expect(loadConfig({ ...DISTRIBUTED, SLACK_MARKETPLACE_APPROVED: '1' }).slack.marketplaceApproved).toBe(
        true,
      );
      expect(
        loadConfig({ ...DISTRIBUTED, SLACK_MARKETPLACE_APPROVED: 'true' }).slack.marketplaceApproved,
      ).toBe(true);
    });
    it('names each problem: a missing OAuth variable, the key, Socket Mode, a bot token, half a default account', () => {
      expect(problemsOf({ ...HTTP_BASE, SLACK_CLIENT_ID: '1' })).toContain(
        "distributed mode (Slack's OAuth install) needs SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_STATE_SECRET; missing: SLACK_CLIENT_SECRET, SLACK_STATE_SECRET",
      );
      const { PLATDESK_ENCRYPTION_KEY: _, ...noKey } = DISTRIBUTED;
      expect(problemsOf(noKey).join('\n')).toContain(
        'PLATDESK_ENCRYPTION_KEY is required in distributed mode',
      );
      expect(problemsOf({ ...DISTRIBUTED, PLATDESK_ENCRYPTION_KEY: 'short' }).join('\n')).toContain(
        'PLATDESK_ENCRYPTION_KEY: key 1 must be 32 bytes',
      );
      expect(problemsOf({ ...DISTRIBUTED, SLACK_APP_TOKEN: 'xapp-1' }).join('\n')).toContain(
        'distributed mode runs in HTTP mode only',
      );
      expect(problemsOf({ ...DISTRIBUTED, SLACK_BOT_TOKEN: 'xoxb-1' }).join('\n')).toContain(
        'SLACK_BOT_TOKEN is for single-workspace mode',
      );
      expect(problemsOf({ ...DISTRIBUTED, PLAT_TOKEN: 't' }).join('\n')).toContain(
        'PLAT_BASE_URL and PLAT_TOKEN set together',
      );
      expect(problemsOf({ ...DISTRIBUTED, SLACK_STATE_SECRET: 'short' }).join('\n')).toContain(
        'SLACK_STATE_SECRET must be at least 16 characters',
      );
      // No secret is repeated.
      expect(
        problemsOf({
          ...DISTRIBUTED,
          SLACK_APP_TOKEN: 'xapp-1',
          PLATDESK_ENCRYPTION_KEY: 'bad-key-material',
        }).join('\n'),
      ).not.toMatch(/client-secret|bad-key-material/);
    });
  });

  it('reads REDIS_URL (redis:// or rediss://) and refuses anything else without repeating it', async () => {
    const pg = { DATABASE_URL: 'postgres://platdesk@db.internal/platdesk' };
    expect(loadConfig({ ...HTTP_BASE, ...pg, REDIS_URL: 'redis://127.0.0.1:6379/0' }).redisUrl).toBe(
      'redis://127.0.0.1:6379/0',
    );
    expect(
      loadConfig({ ...HTTP_BASE, ...pg, REDIS_URL: ' rediss://:pw@cache.internal:6380 ' }).redisUrl,
    ).toBe('rediss://:pw@cache.internal:6380');
    const problems = problemsOf({ ...HTTP_BASE, ...pg, REDIS_URL: 'http://user:hunter2@cache:6379' }).join(
      '\n',
    );
    expect(problems).toContain('REDIS_URL must be a redis:// or rediss:// URL');
    expect(problems).not.toContain('hunter2');
  });

  it('REDIS_URL needs DATABASE_URL: replicas share one PostgreSQL store, never SQLite files', async () => {
    for (const database of [{}, { DATABASE_PATH: '/data/platdesk.sqlite' }]) {
      const problems = problemsOf({ ...HTTP_BASE, ...database, REDIS_URL: 'redis://:hunter2@cache:6379' });
      expect(problems).toEqual([
        'REDIS_URL shares the plat rate limit and single flight across replicas; they also need one PostgreSQL store: set DATABASE_URL (postgres://…), the same on every replica',
      ]);
      expect(problems.join('\n')).not.toContain('hunter2');
    }
    // Listed with the other problems, not instead of them.
    expect(problemsOf({ REDIS_URL: 'redis://cache:6379' }).join('\n')).toMatch(
      /SLACK_BOT_TOKEN[\s\S]*REDIS_URL shares/,
    );
    const config = loadConfig({
      ...HTTP_BASE,
      REDIS_URL: 'redis://cache:6379',
      DATABASE_URL: 'postgres://platdesk@db:5432/platdesk',
    });
    expect(config.redisUrl).toBe('redis://cache:6379');
    expect(config.database.url).toBe('postgres://platdesk@db:5432/platdesk');
  });

  it('the agent’s optional model: none by default; AGENT_MODEL_* read together, half a setting named', () => {
    const base = { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's', PLAT_SANDBOX: '1' };
    expect(loadConfig(base).agentModel).toBeNull();
    expect(
      loadConfig({
        ...base,
        AGENT_MODEL_PROVIDER: 'openai-compatible',
        AGENT_MODEL_BASE_URL: 'http://127.0.0.1:11434/v1',
        AGENT_MODEL: 'qwen3',
      }).agentModel,
    ).toEqual({
      provider: 'openai-compatible',
      baseUrl: 'http://127.0.0.1:11434/v1',
      model: 'qwen3',
      key: null,
      timeoutMs: 8000,
    });
    expect(() => loadConfig({ ...base, AGENT_MODEL: 'qwen3', AGENT_MODEL_KEY: 'sk-secret-value' })).toThrow(
      /AGENT_MODEL… settings need AGENT_MODEL_PROVIDER/,
    );
    expect(() =>
      loadConfig({ ...base, AGENT_MODEL_PROVIDER: 'openai-compatible', AGENT_MODEL: 'm' }),
    ).toThrow(/needs AGENT_MODEL_BASE_URL/);
    try {
      loadConfig({ ...base, AGENT_MODEL: 'qwen3', AGENT_MODEL_KEY: 'sk-secret-value' });
    } catch (error) {
      expect(String(error)).not.toContain('sk-secret-value');
    }
  });

  it('selects Socket Mode when SLACK_APP_TOKEN is set (no signing secret needed)', async () => {
    const { SLACK_SIGNING_SECRET: _unused, ...rest } = HTTP_BASE;
    const config = loadConfig({ ...rest, SLACK_APP_TOKEN: 'xapp-1-A1-abc' });
    expect(config.slack.mode).toBe('socket');
    expect(config.slack.appToken).toBe('xapp-1-A1-abc');
    expect(config.slack.signingSecret).toBeNull();
  });

  it('refuses an app token that is not an xapp- token', async () => {
    expect(problemsOf({ ...HTTP_BASE, SLACK_APP_TOKEN: 'xoxb-wrong' }).join('\n')).toContain(
      'SLACK_APP_TOKEN must be an app-level token starting with xapp-',
    );
  });

  it('refuses token shapes that cannot be sent to Slack, listed with the other problems, without echoing the token', async () => {
    // The old README placeholder: "xoxb-…" with U+2026, which crashed start-up with a ByteString error.
    const problems = problemsOf({
      SLACK_BOT_TOKEN: 'xoxb-…',
      SLACK_APP_TOKEN: 'xapp-1 secret-part',
      PLAT_BASE_URL: 'https://plat.example.invalid',
      PLAT_TOKEN: 'plat\u00a0token',
      PORT: 'x',
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        'SLACK_BOT_TOKEN may hold printable ASCII only (no spaces, no "…"): character 6 is U+2026',
        'SLACK_APP_TOKEN may hold printable ASCII only (no spaces, no "…"): character 7 is U+0020',
        'PLAT_TOKEN may hold printable ASCII only (no spaces, no "…"): character 5 is U+00A0',
        'PORT: must be a whole number from 0 to 65535',
      ]),
    );
    expect(problems.join('\n')).not.toContain('secret-part');
    expect(problemsOf({ ...HTTP_BASE, SLACK_BOT_TOKEN: 'xoxp-user-token' })).toEqual([
      "SLACK_BOT_TOKEN must be a bot token starting with xoxb- (README's placeholder is xoxb-your-bot-token)",
    ]);
    // README's Quick start placeholders pass (Slack itself then refuses them, see start-up.test.ts).
    const quickStart = loadConfig({
      SLACK_BOT_TOKEN: 'xoxb-your-bot-token',
      SLACK_APP_TOKEN: 'xapp-your-app-token',
      PLAT_SANDBOX: '1',
    });
    expect(quickStart.slack).toMatchObject({ botToken: 'xoxb-your-bot-token', mode: 'socket' });
  });

  it('PLAT_SANDBOX=1 needs no PLAT_* settings and uses the sandbox token', async () => {
    const config = loadConfig({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's', PLAT_SANDBOX: '1' });
    expect(config.plat).toMatchObject({ sandbox: true, baseUrl: null, token: 'sandbox' });
    expect(
      loadConfig({
        SLACK_BOT_TOKEN: 'xoxb-1',
        SLACK_SIGNING_SECRET: 's',
        PLAT_SANDBOX: 'true',
        SANDBOX_TOKEN: 't',
      }).plat.token,
    ).toBe('t');
  });

  it('reads the API URL, port, admins, database path and log level', async () => {
    const config = loadConfig({
      ...HTTP_BASE,
      SLACK_API_URL: 'http://127.0.0.1:9999/api/',
      PORT: '0',
      PLATDESK_ADMINS: ' U1234 , UADMIN ',
      DATABASE_PATH: ':memory:',
      LOG_LEVEL: 'silent',
      PLAT_PRICES: 'get-shop-info:2=20,get-shop-id=2',
      PLAT_EDITIONS: 'get-shop-info=2',
    });
    expect(config.slack.apiUrl).toBe('http://127.0.0.1:9999/api/');
    expect(config.port).toBe(0);
    expect(config.admins).toEqual(['U1234', 'UADMIN']);
    expect(config.database.path).toBe(':memory:');
    expect(config.logLevel).toBe('silent');
    expect(config.plat.prices).toEqual({ 'get-shop-info': { '2': 20 }, 'get-shop-id': { '*': 2 } });
    expect(config.plat.editions).toEqual({ 'get-shop-info': 2 });
  });

  it('reads the workspace language (PLATDESK_LOCALE): English by default, zh-CN or en, nothing else', async () => {
    expect(loadConfig(HTTP_BASE).locale).toBe('en');
    expect(loadConfig({ ...HTTP_BASE, PLATDESK_LOCALE: 'zh-CN' }).locale).toBe('zh-CN');
    expect(loadConfig({ ...HTTP_BASE, PLATDESK_LOCALE: ' zh_CN ' }).locale).toBe('zh-CN');
    expect(loadConfig({ ...HTTP_BASE, PLATDESK_LOCALE: 'en' }).locale).toBe('en');
    expect(problemsOf({ ...HTTP_BASE, PLATDESK_LOCALE: 'fr' }).join('\n')).toContain(
      'PLATDESK_LOCALE must be en or zh-CN',
    );
  });
});

describe('.env (loadEnvFile)', () => {
  it('reads .env into the environment when present, the real environment winning, and does nothing without one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'platdesk-env-'));
    const names = ['PLATDESK_T_FROM_FILE', 'PLATDESK_T_BOTH', 'PLATDESK_T_QUOTED'] as const;
    try {
      writeFileSync(
        join(dir, '.env'),
        '# comment\nPLATDESK_T_FROM_FILE=file\nPLATDESK_T_BOTH=file\nPLATDESK_T_QUOTED="a b"\n',
      );
      process.env.PLATDESK_T_BOTH = 'real';
      expect(loadEnvFile(join(dir, '.env'))).toBe(true);
      expect(process.env.PLATDESK_T_FROM_FILE).toBe('file');
      expect(process.env.PLATDESK_T_BOTH).toBe('real');
      expect(process.env.PLATDESK_T_QUOTED).toBe('a b');
      expect(loadEnvFile(join(dir, 'missing.env'))).toBe(false);
    } finally {
      for (const name of names) delete process.env[name];
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('<NAME>_FILE: secrets read from mounted files (Kubernetes and Docker secrets)', () => {
  /** Writes each `name → content` into a fresh directory; returns the paths and a cleanup. */
  function secretFiles(files: Record<string, string>): { path: (name: string) => string; done: () => void } {
    const dir = mkdtempSync(join(tmpdir(), 'platdesk-secrets-'));
    for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
    return { path: (name) => join(dir, name), done: () => rmSync(dir, { recursive: true, force: true }) };
  }

  it('reads every secret setting from its file, trailing newline removed, as if set directly', async () => {
    const values: Record<string, string> = {
      SLACK_BOT_TOKEN: 'xoxb-from-file',
      SLACK_SIGNING_SECRET: 'signing-from-file',
      SLACK_APP_TOKEN: 'xapp-from-file',
      PLAT_TOKEN: 'plat-from-file',
      DATABASE_URL: 'postgres://platdesk:pw@db.example.invalid:5432/platdesk',
      REDIS_URL: 'rediss://:pw@redis.example.invalid:6380',
      PLATDESK_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    };
    // `kubectl create secret --from-file` of a file written by echo: one newline (or CRLF) at the end.
    const files = secretFiles(
      Object.fromEntries(Object.entries(values).map(([k, v], i) => [k, `${v}${i % 2 ? '\r\n' : '\n'}`])),
    );
    try {
      const env = {
        PLAT_BASE_URL: 'https://plat.example.invalid',
        ...Object.fromEntries(Object.keys(values).map((k) => [`${k}_FILE`, files.path(k)])),
      };
      const config = loadConfig(env);
      expect(config.slack.botToken).toBe(values.SLACK_BOT_TOKEN);
      expect(config.slack.signingSecret).toBe(values.SLACK_SIGNING_SECRET);
      expect(config.slack.appToken).toBe(values.SLACK_APP_TOKEN);
      expect(config.slack.mode).toBe('socket');
      expect(config.plat.token).toBe(values.PLAT_TOKEN);
      expect(config.database.url).toBe(values.DATABASE_URL);
      expect(config.redisUrl).toBe(values.REDIS_URL);
      expect(config.encryptionKeys).toHaveLength(1);
      // The same as the values set directly.
      expect(config).toEqual(loadConfig({ PLAT_BASE_URL: 'https://plat.example.invalid', ...values }));
    } finally {
      files.done();
    }
  });

  it('the migrate program alone reads DATABASE_URL_FILE, as the migrate Job mounts it', () => {
    const url = 'postgres://platdesk:pw@db.example.invalid:5432/platdesk';
    const files = secretFiles({ DATABASE_URL: `${url}\n` });
    try {
      expect(loadDatabaseConfig({ DATABASE_URL_FILE: files.path('DATABASE_URL') }).url).toBe(url);
      expect(() =>
        loadDatabaseConfig({ DATABASE_URL: url, DATABASE_URL_FILE: files.path('DATABASE_URL') }),
      ).toThrow(/DATABASE_URL and DATABASE_URL_FILE are both set/);
    } finally {
      files.done();
    }
  });

  it('covers the distributed-mode secrets too, and every name in SECRET_SETTINGS', async () => {
    const files = secretFiles({ client: 'client-secret\n', state: 'a-state-secret-of-32-characters!\n' });
    try {
      const config = loadConfig({
        SLACK_CLIENT_ID: '123.456',
        SLACK_CLIENT_SECRET_FILE: files.path('client'),
        SLACK_STATE_SECRET_FILE: files.path('state'),
        SLACK_SIGNING_SECRET: 'signing',
        PLATDESK_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
      });
      expect(config.slack.distribution).toMatchObject({
        clientId: '123.456',
        clientSecret: 'client-secret',
        stateSecret: 'a-state-secret-of-32-characters!',
      });
    } finally {
      files.done();
    }
    expect([...SECRET_SETTINGS].sort()).toEqual(
      [
        'AGENT_MODEL_KEY',
        'DATABASE_URL',
        'PLATDESK_ENCRYPTION_KEY',
        'PLAT_TOKEN',
        'REDIS_URL',
        'SLACK_APP_TOKEN',
        'SLACK_BOT_TOKEN',
        'SLACK_CLIENT_SECRET',
        'SLACK_SIGNING_SECRET',
        'SLACK_STATE_SECRET',
      ].sort(),
    );
  });

  it('refuses a setting given both ways, a missing file and an empty one, listed with the other problems, never echoing a value', async () => {
    const files = secretFiles({ token: 'xoxb-in-the-file\n', empty: '\n' });
    try {
      const problems = problemsOf({
        SLACK_BOT_TOKEN: 'xoxb-direct-value',
        SLACK_BOT_TOKEN_FILE: files.path('token'),
        SLACK_SIGNING_SECRET_FILE: files.path('missing'),
        PLAT_TOKEN_FILE: files.path('empty'),
        PLAT_BASE_URL: 'not a url',
      });
      const all = problems.join('\n');
      expect(all).toContain('SLACK_BOT_TOKEN and SLACK_BOT_TOKEN_FILE are both set; set one');
      expect(all).toContain(`SLACK_SIGNING_SECRET_FILE: cannot read ${files.path('missing')} (ENOENT)`);
      expect(all).toContain(`PLAT_TOKEN_FILE: ${files.path('empty')} is empty`);
      expect(all).toContain('PLAT_BASE_URL must be an http(s) URL');
      expect(all).not.toContain('xoxb-in-the-file');
      expect(all).not.toContain('xoxb-direct-value');
    } finally {
      files.done();
    }
  });

  it('an empty <NAME>_FILE counts as unset', async () => {
    expect(loadConfig({ ...HTTP_BASE, PLAT_TOKEN_FILE: '' }).plat.token).toBe('plat-token');
  });
});

describe('PLAT_PRICES', () => {
  it('parses operation[:edition]=points pairs', async () => {
    expect(parsePrices('get-shop-info:2=20,get-shop-id=2')).toEqual({
      prices: { 'get-shop-info': { '2': 20 }, 'get-shop-id': { '*': 2 } },
      problems: [],
    });
    expect(parsePrices(' platdybw:1=5 , platdybw:3=8,platdybw=6 ').prices).toEqual({
      platdybw: { '1': 5, '3': 8, '*': 6 },
    });
    expect(parsePrices('paging-orders=1.5').prices).toEqual({ 'paging-orders': { '*': 1.5 } });
    expect(parsePrices(undefined)).toEqual({ prices: {}, problems: [] });
    expect(parsePrices('')).toEqual({ prices: {}, problems: [] });
  });

  it('reports each bad entry and keeps the good ones', async () => {
    const { prices, problems } = parsePrices('get-shop-id=2,no-such-op=1,get-shop-info:9=20,platdybw=x,=3');
    expect(prices).toEqual({ 'get-shop-id': { '*': 2 } });
    expect(problems).toEqual([
      'PLAT_PRICES: "no-such-op=1" is not operation[:edition]=points with a known operation',
      'PLAT_PRICES: get-shop-info has no edition 9',
      'PLAT_PRICES: "platdybw=x" is not operation[:edition]=points with a known operation',
      'PLAT_PRICES: "=3" is not operation[:edition]=points with a known operation',
    ]);
  });

  it('stops start-up on a bad entry', async () => {
    expect(problemsOf({ ...HTTP_BASE, PLAT_PRICES: 'get-shop-info:9=20' })).toEqual([
      'PLAT_PRICES: get-shop-info has no edition 9',
    ]);
  });
});

describe('PLAT_EDITIONS', () => {
  it('parses operation=edition pairs', async () => {
    expect(parseEditions('get-shop-info=2, paging-orders=1,platdybw=3')).toEqual({
      editions: { 'get-shop-info': 2, 'paging-orders': 1, platdybw: 3 },
      problems: [],
    });
  });

  it('reports an unknown operation or an edition the operation does not have', async () => {
    const { editions, problems } = parseEditions('platdybw=2,nope=1,platiteminfo=1,paging-orders=2');
    expect(editions).toEqual({ 'paging-orders': 2 });
    expect(problems).toHaveLength(3);
    expect(problems[0]).toContain('"platdybw=2"');
    expect(problemsOf({ ...HTTP_BASE, PLAT_EDITIONS: 'platdybw=2' })).toHaveLength(1);
  });
});
