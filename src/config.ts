/**
 * The one place that reads process.env (CONVENTIONS 8). Validated with zod at start-up; a
 * missing or bad variable stops start-up with one message listing every problem.
 * Every variable is described in README.md, "Settings".
 */
import { z } from 'zod';
import { isOperation, OPERATIONS, type Operation } from './plat/operations.js';

/** Points per call, by operation and edition ('*' = any edition). */
export type PriceTable = Partial<Record<Operation, Record<string, number>>>;

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(
      `platdesk cannot start; fix these settings (see README.md, "Settings"):\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

const flag = z
  .string()
  .optional()
  .transform((v) => v !== undefined && /^(1|true|yes|on)$/i.test(v.trim()));
const optionalText = z
  .string()
  .optional()
  .transform((v) => (v?.trim() ? v.trim() : undefined));
const url = (name: string) =>
  z
    .string()
    .trim()
    .refine((v) => /^https?:\/\/[^\s]+$/i.test(v), `${name} must be an http(s) URL`);
const int = (min: number, max: number, fallback: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === '') return fallback;
      const n = Number(v);
      if (!Number.isInteger(n) || n < min || n > max) {
        ctx.addIssue({ code: 'custom', message: `must be a whole number from ${min} to ${max}` });
        return z.NEVER;
      }
      return n;
    });

/**
 * PLAT_PRICES: `operation[:edition]=points` pairs separated by commas, e.g.
 * `get-shop-info:2=20,get-shop-id=2,platdybw:1=5`. Item operations are charged by quota.
 */
export function parsePrices(text: string | undefined): { prices: PriceTable; problems: string[] } {
  const prices: PriceTable = {};
  const problems: string[] = [];
  for (const part of (text ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = part.match(/^([a-z-]+)(?::(\d+))?=(\d+(?:\.\d+)?)$/);
    const operation = m?.[1];
    if (!m || !operation || !isOperation(operation)) {
      problems.push(`PLAT_PRICES: "${part}" is not operation[:edition]=points with a known operation`);
      continue;
    }
    const edition = m[2] ?? '*';
    if (edition !== '*' && !(Number(edition) in OPERATIONS[operation].editions)) {
      problems.push(`PLAT_PRICES: ${operation} has no edition ${edition}`);
      continue;
    }
    prices[operation] = { ...prices[operation], [edition]: Number(m[3]) };
  }
  return { prices, problems };
}

/** PLAT_EDITIONS: `operation=edition` pairs, e.g. `get-shop-info=2,paging-orders=1`. */
export function parseEditions(text: string | undefined): {
  editions: Partial<Record<Operation, number>>;
  problems: string[];
} {
  const editions: Partial<Record<Operation, number>> = {};
  const problems: string[] = [];
  for (const part of (text ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [operation = '', edition = ''] = part.split('=').map((s) => s.trim());
    if (!isOperation(operation) || !(Number(edition) in OPERATIONS[operation].editions)) {
      problems.push(`PLAT_EDITIONS: "${part}" is not operation=edition with an edition that operation has`);
      continue;
    }
    editions[operation] = Number(edition);
  }
  return { editions, problems };
}

const envSchema = z.object({
  SLACK_BOT_TOKEN: z
    .string({ error: 'SLACK_BOT_TOKEN is required (xoxb-…)' })
    .trim()
    .min(1, 'SLACK_BOT_TOKEN is required'),
  SLACK_SIGNING_SECRET: optionalText,
  SLACK_APP_TOKEN: optionalText,
  SLACK_API_URL: url('SLACK_API_URL').optional(),
  PORT: int(0, 65_535, 3000),
  PLAT_SANDBOX: flag,
  PLAT_BASE_URL: url('PLAT_BASE_URL').optional(),
  PLAT_TOKEN: optionalText,
  PLAT_PRICES: optionalText,
  PLAT_EDITIONS: optionalText,
  PLAT_RATE_LIMIT: int(1, 1000, 10),
  PLAT_RATE_WINDOW_MS: int(100, 60_000, 1000),
  PLAT_QUEUE_MAX: int(1, 100_000, 100),
  PLATDESK_ADMINS: optionalText,
  DATABASE_PATH: optionalText,
  DATABASE_URL: optionalText,
  DATABASE_POOL_MAX: int(1, 1000, 10),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SANDBOX_TOKEN: optionalText,
});

export interface Config {
  slack: {
    botToken: string;
    signingSecret: string | null;
    appToken: string | null;
    apiUrl: string | null;
    mode: 'socket' | 'http';
  };
  port: number;
  plat: {
    /** null with `sandbox: true`: the in-process sandbox's URL is used. */
    baseUrl: string | null;
    token: string;
    sandbox: boolean;
    prices: PriceTable;
    editions: Partial<Record<Operation, number>>;
    rateLimit: { maxCalls: number; windowMs: number; maxQueued: number };
  };
  admins: string[];
  /** The store: PostgreSQL when `url` is set, else SQLite at `path`. */
  database: { url: string | null; path: string; poolMax: number };
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
}

/** Rules between variables, checked on the raw values so every problem is listed at once. */
function crossFieldProblems(env: NodeJS.ProcessEnv): string[] {
  const set = (name: string) => (env[name] ?? '').trim() !== '';
  const problems: string[] = [];
  if (!set('SLACK_APP_TOKEN') && !set('SLACK_SIGNING_SECRET'))
    problems.push('SLACK_SIGNING_SECRET is required in HTTP mode (or set SLACK_APP_TOKEN for Socket Mode)');
  if (set('SLACK_APP_TOKEN') && !env.SLACK_APP_TOKEN?.trim().startsWith('xapp-'))
    problems.push('SLACK_APP_TOKEN must be an app-level token (xapp-…)');
  if (!/^(1|true|yes|on)$/i.test((env.PLAT_SANDBOX ?? '').trim())) {
    if (!set('PLAT_BASE_URL'))
      problems.push('PLAT_BASE_URL is required (or set PLAT_SANDBOX=1 to try platdesk)');
    if (!set('PLAT_TOKEN')) problems.push('PLAT_TOKEN is required (or set PLAT_SANDBOX=1 to try platdesk)');
  }
  for (const admin of (env.PLATDESK_ADMINS ?? '')
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean))
    if (!/^[UW][A-Z0-9]{2,}$/.test(admin))
      problems.push(`PLATDESK_ADMINS: "${admin}" is not a Slack user id (U…)`);
  if (set('DATABASE_URL') && !/^postgres(ql)?:\/\//i.test(env.DATABASE_URL?.trim() ?? ''))
    problems.push(
      'DATABASE_URL must be a postgres:// (or postgresql://) URL; unset it to use SQLite at DATABASE_PATH',
    );
  problems.push(...parsePrices(env.PLAT_PRICES).problems, ...parseEditions(env.PLAT_EDITIONS).problems);
  return problems;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  const problems: string[] = parsed.success
    ? []
    : parsed.error.issues.map((i) => {
        const name = String(i.path[0] ?? '');
        return i.message.startsWith(name) ? i.message : `${name}: ${i.message}`;
      });
  problems.push(...crossFieldProblems(env));
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems);
  const e = parsed.data;
  const mode = e.SLACK_APP_TOKEN ? 'socket' : 'http';
  const admins = (e.PLATDESK_ADMINS ?? '')
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);

  return {
    slack: {
      botToken: e.SLACK_BOT_TOKEN,
      signingSecret: e.SLACK_SIGNING_SECRET ?? null,
      appToken: e.SLACK_APP_TOKEN ?? null,
      apiUrl: e.SLACK_API_URL ?? null,
      mode,
    },
    port: e.PORT,
    plat: {
      baseUrl: e.PLAT_SANDBOX ? null : (e.PLAT_BASE_URL ?? null),
      token: e.PLAT_SANDBOX ? (e.SANDBOX_TOKEN ?? 'sandbox') : (e.PLAT_TOKEN ?? ''),
      sandbox: e.PLAT_SANDBOX,
      prices: parsePrices(e.PLAT_PRICES).prices,
      editions: parseEditions(e.PLAT_EDITIONS).editions,
      rateLimit: {
        maxCalls: e.PLAT_RATE_LIMIT,
        windowMs: e.PLAT_RATE_WINDOW_MS,
        maxQueued: e.PLAT_QUEUE_MAX,
      },
    },
    admins,
    database: {
      url: e.DATABASE_URL ?? null,
      path: e.DATABASE_PATH ?? './data/platdesk.sqlite',
      poolMax: e.DATABASE_POOL_MAX,
    },
    logLevel: e.LOG_LEVEL,
  };
}
