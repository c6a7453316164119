/**
 * The one place that reads process.env (CONVENTIONS 8). Validated with zod at start-up; a
 * missing or bad variable stops start-up with one message listing every problem.
 * Every variable is described in docs/settings.md. A secret setting may instead name a file that
 * holds it, `<NAME>_FILE` (a mounted Kubernetes or Docker secret): see withSecretFiles.
 */
import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { type Locale, toLocale } from './lookups/locale.js';
import { isOperation, OPERATIONS, type Operation } from './plat/operations.js';
import { type EncryptionKey, parseEncryptionKeys } from './store/secrets.js';

/** Points per call, by operation and edition ('*' = any edition). */
export type PriceTable = Partial<Record<Operation, Record<string, number>>>;

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(
      `platdesk cannot start; fix these settings (see docs/settings.md):\n${problems.map((p) => `  - ${p}`).join('\n')}`,
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
/**
 * PLAT_PRICE_CEILING's default, in points (1 yuan): above every price the sandbox charges, so a
 * call of an unknown price is held at more than it is likely to cost. Its price becomes known
 * with its first charge, and the largest charge seen is held from then on.
 */
export const DEFAULT_PRICE_CEILING = 100;

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

/**
 * The settings that hold a secret (a token, a key, or a URL that may carry a password). Each may
 * be given as `<NAME>_FILE`, the path of a file holding it, so a mounted Secret never has to
 * pass through the environment (where `kubectl describe`, `ps e` and crash dumps show it).
 */
export const SECRET_SETTINGS = [
  'SLACK_BOT_TOKEN',
  'SLACK_SIGNING_SECRET',
  'SLACK_APP_TOKEN',
  'SLACK_CLIENT_SECRET',
  'SLACK_STATE_SECRET',
  'PLATDESK_ENCRYPTION_KEY',
  'PLAT_TOKEN',
  'DATABASE_URL',
  'REDIS_URL',
  'AGENT_MODEL_KEY',
] as const;

/**
 * The environment with every `<NAME>_FILE` of SECRET_SETTINGS read into `<NAME>`: the file's
 * content without its trailing line break (what `echo` and most editors leave). Setting both
 * forms, a file that cannot be read and an empty file are problems; none repeats a value.
 */
export function withSecretFiles(env: NodeJS.ProcessEnv): { env: NodeJS.ProcessEnv; problems: string[] } {
  const resolved: NodeJS.ProcessEnv = { ...env };
  const problems: string[] = [];
  for (const name of SECRET_SETTINGS) {
    const file = env[`${name}_FILE`]?.trim();
    if (!file) continue;
    if ((env[name] ?? '').trim() !== '') {
      problems.push(`${name} and ${name}_FILE are both set; set one`);
      continue;
    }
    let content: string;
    try {
      content = readFileSync(file, 'utf8').replace(/(\r?\n)+$/, '');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      problems.push(`${name}_FILE: cannot read ${file} (${code})`);
      continue;
    }
    if (content.trim() === '') problems.push(`${name}_FILE: ${file} is empty`);
    else resolved[name] = content;
  }
  return { env: resolved, problems };
}

/**
 * How far (ms) a replica's clock may be from its database's before it refuses paid work: the
 * default of PLATDESK_CLOCK_SKEW_BUDGET_MS, and the one figure other parts add to their margins
 * (DESIGN rule 9; store/database-watch.ts measures the skew, digest/run-fence.ts takes it off a
 * fresh claim's lease). Hosts kept by NTP or chrony are within milliseconds of each other and of
 * a managed database, and the measurement's own error is half a round trip (under a millisecond
 * on a LAN): 500 ms is two orders above both, so a healthy fleet never trips it, while a host
 * that lost its time sync or was resumed after a suspend (seconds to minutes off) does. What it
 * costs: every margin that includes it is half a second longer (a run's first call window after
 * its claim is 6 s − 0.5 s).
 */
export const CLOCK_SKEW_BUDGET_DEFAULT_MS = 500;
/** The largest budget PLATDESK_CLOCK_SKEW_BUDGET_MS accepts; delays that include the skew use it. */
export const CLOCK_SKEW_BUDGET_MAX_MS = 5_000;

const envSchema = z.object({
  // Required in single-workspace mode (checked with the other rules between variables).
  SLACK_BOT_TOKEN: optionalText,
  SLACK_CLIENT_ID: optionalText,
  SLACK_CLIENT_SECRET: optionalText,
  SLACK_STATE_SECRET: optionalText,
  PLATDESK_INSTALL_ALLOW: optionalText,
  PLATDESK_DEFAULT_ACCOUNT_FOR: optionalText,
  PLATDESK_ENCRYPTION_KEY: optionalText,
  PLATDESK_RETENTION_DAYS: int(1, 3650, 30),
  // Where people reach platdesk from outside (the MCP server URL /platdesk mcp token shows).
  PLATDESK_PUBLIC_URL: url('PLATDESK_PUBLIC_URL').optional(),
  // How long an AI client's paid tool call waits for its owner's Confirm in Slack (issue 37).
  MCP_CONFIRM_TTL_S: int(30, 3600, 300),
  // Requests one MCP token may make per minute (a runaway client is slowed, not the workspace).
  MCP_RATE_PER_MINUTE: int(1, 10_000, 120),
  SLACK_SIGNING_SECRET: optionalText,
  SLACK_APP_TOKEN: optionalText,
  SLACK_API_URL: url('SLACK_API_URL').optional(),
  // Slack allows up to 10 connections per app and delivers each payload to one of them.
  SLACK_SOCKET_CONNECTIONS: int(1, 10, 2),
  SLACK_MARKETPLACE_APPROVED: flag,
  PORT: int(0, 65_535, 3000),
  // /metrics and /healthz's details on a port of their own (issue 34), never the Slack port's.
  METRICS_PORT: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const text = v?.trim() ?? '';
      if (text === '') return undefined;
      if (/^off$/i.test(text)) return null;
      const n = Number(text);
      if (!Number.isInteger(n) || n < 0 || n > 65_535) {
        ctx.addIssue({ code: 'custom', message: 'must be a port (0 to 65535) or off' });
        return z.NEVER;
      }
      return n;
    }),
  // The message never repeats the value: it is a secret.
  METRICS_TOKEN: optionalText.refine(
    (v) => v === undefined || /^[\x21-\x7e]{16,}$/.test(v),
    'METRICS_TOKEN must be at least 16 printable ASCII characters (`openssl rand -hex 32`)',
  ),
  PLAT_SANDBOX: flag,
  PLAT_ACCOUNTS_LOOPBACK: flag,
  PLAT_BASE_URL: url('PLAT_BASE_URL').optional(),
  PLAT_TOKEN: optionalText,
  PLAT_PRICES: optionalText,
  PLAT_EDITIONS: optionalText,
  PLAT_PRICE_CEILING: int(1, 1_000_000_000, DEFAULT_PRICE_CEILING),
  PLAT_RATE_LIMIT: int(1, 1000, 10),
  PLAT_RATE_WINDOW_MS: int(100, 60_000, 1000),
  PLAT_QUEUE_MAX: int(1, 100_000, 100),
  PLATDESK_ADMINS: optionalText,
  PLATDESK_LOCALE: optionalText.refine(
    (v) => v === undefined || toLocale(v) !== null,
    'PLATDESK_LOCALE must be en or zh-CN',
  ),
  DATABASE_PATH: optionalText,
  DATABASE_URL: optionalText,
  DATABASE_POOL_MAX: int(1, 1000, 10),
  // A run's first call window after its claim (lease − call span, 6 s) must stay open.
  PLATDESK_CLOCK_SKEW_BUDGET_MS: int(50, CLOCK_SKEW_BUDGET_MAX_MS, CLOCK_SKEW_BUDGET_DEFAULT_MS),
  PLATDESK_MIGRATE: z
    .enum(['start', 'job'], { message: 'PLATDESK_MIGRATE must be start or job' })
    .default('start'),
  // The message never repeats the value: a Redis URL may carry a password.
  REDIS_URL: z
    .string()
    .trim()
    .refine((v) => /^rediss?:\/\/[^\s]+$/i.test(v), 'REDIS_URL must be a redis:// or rediss:// URL')
    .optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SANDBOX_TOKEN: optionalText,
  // The agent's optional language model (issue 36, agent/model.ts): unset, the deterministic planner.
  AGENT_MODEL_PROVIDER: z.enum(['openai-compatible', 'anthropic']).optional(),
  AGENT_MODEL_BASE_URL: url('AGENT_MODEL_BASE_URL').optional(),
  AGENT_MODEL: optionalText,
  AGENT_MODEL_KEY: optionalText,
  AGENT_MODEL_TIMEOUT_MS: int(500, 120_000, 8000),
});

/** METRICS_PORT when unset (and PORT is not 0): a port that is not the Slack port's. */
export const DEFAULT_METRICS_PORT = 9091;

/** Distributed mode (SLACK_CLIENT_ID, SLACK_CLIENT_SECRET, SLACK_STATE_SECRET): Slack's OAuth install. */
export interface DistributionConfig {
  clientId: string;
  clientSecret: string;
  stateSecret: string;
  /**
   * PLATDESK_INSTALL_ALLOW: the workspace (T…) and org (E…) ids that may install platdesk; any
   * other install is refused and nothing of it is stored. null: anyone may install.
   */
  installAllow: readonly string[] | null;
  /**
   * PLATDESK_DEFAULT_ACCOUNT_FOR: the workspaces and orgs the operator's plat account
   * (PLAT_BASE_URL / PLAT_TOKEN) serves, or 'all' (`*`); any other workspace spends nothing until
   * its admin connects its own. Empty: it serves none.
   */
  defaultAccountFor: readonly string[] | 'all';
}

/** A workspace (T…) or an Enterprise Grid org (E…) id, as Slack writes them. */
const WORKSPACE_OR_ORG = /^[TE][A-Z0-9]{2,}$/;

/** A comma-separated list of workspace and org ids (`*` where `star` allows it), with its problems. */
export function parseIdList(
  name: string,
  text: string | undefined,
  star: boolean,
): { ids: string[] | 'all'; problems: string[] } {
  const parts = (text ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (star && parts.length === 1 && parts[0] === '*') return { ids: 'all', problems: [] };
  const problems = parts
    .filter((p) => !WORKSPACE_OR_ORG.test(p))
    .map((p) =>
      p === '*'
        ? `${name}: * stands alone (every install) and cannot be mixed with ids`
        : `${name}: "${p.slice(0, 40)}" is not a workspace (T…) or org (E…) id`,
    );
  return { ids: parts, problems };
}

export interface Config {
  slack: {
    /** Single-workspace mode's bot token; null in distributed mode (tokens come from installations). */
    botToken: string | null;
    /** Set in distributed mode; null in single-workspace mode. */
    distribution: DistributionConfig | null;
    signingSecret: string | null;
    appToken: string | null;
    apiUrl: string | null;
    mode: 'socket' | 'http';
    /** Socket Mode connections this process keeps open (SLACK_SOCKET_CONNECTIONS). */
    socketConnections: number;
    /**
     * SLACK_MARKETPLACE_APPROVED: the app is approved for the Slack Marketplace, so reading a
     * channel's history keeps Slack's normal tier in distributed mode too (issue 33 finding 10).
     */
    marketplaceApproved: boolean;
  };
  port: number;
  /**
   * The internal HTTP server of /metrics and /healthz with its details (METRICS_PORT; default
   * 9091, or an ephemeral port when PORT is 0); null: off.
   */
  metricsPort: number | null;
  /** METRICS_TOKEN: /metrics is also served on PORT, to this bearer token only; null: not there. */
  metricsToken: string | null;
  plat: {
    /**
     * null with `sandbox: true`: the in-process sandbox's URL is used. In distributed mode null
     * when no default account is set (each workspace's admin connects its own).
     */
    baseUrl: string | null;
    token: string;
    sandbox: boolean;
    /**
     * PLAT_ACCOUNTS_LOOPBACK: plat accounts a workspace admin connects may be on this machine's
     * loopback addresses, over http:// too (tests and the demo; plat/address-guard.ts).
     */
    accountsLoopback: boolean;
    prices: PriceTable;
    /**
     * PLAT_PRICE_CEILING: the points a call holds against the caps while its price is not known
     * (no configured price, no charge seen for its operation and edition), never 0.
     */
    priceCeiling: number;
    editions: Partial<Record<Operation, number>>;
    rateLimit: { maxCalls: number; windowMs: number; maxQueued: number };
  };
  admins: string[];
  /** The workspace's default language until an admin changes it (PLATDESK_LOCALE; default en). */
  locale: Locale;
  /**
   * The store: PostgreSQL when `url` is set, else SQLite at `path`. `migrate`: 'start' migrates
   * at start (npm start, one process); 'job' leaves it to `node dist/migrate.js` run before a
   * rollout, and refuses to start on a schema older than this build (PLATDESK_MIGRATE).
   */
  database: { url: string | null; path: string; poolMax: number; migrate: 'start' | 'job' };
  /** PLATDESK_CLOCK_SKEW_BUDGET_MS (CLOCK_SKEW_BUDGET_DEFAULT_MS): see there. */
  clockSkewBudgetMs: number;
  /** REDIS_URL: the plat rate limiter is shared through Redis by every process with this URL. */
  redisUrl: string | null;
  /**
   * PLATDESK_ENCRYPTION_KEY: the keys secrets at rest are sealed with, the current one first
   * (empty in single-workspace mode without the variable).
   */
  encryptionKeys: EncryptionKey[];
  /** Days a workspace's data is kept after it uninstalls platdesk (PLATDESK_RETENTION_DAYS). */
  retentionDays: number;
  /** The MCP server (issue 37): its public URL, how long a tool call waits for a Confirm, the rate per token. */
  mcp: { url: string | null; confirmTtlMs: number; ratePerMinute: number };
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
  /** The agent's optional language model (AGENT_MODEL_*); null: the deterministic planner only. */
  agentModel: AgentModelConfig | null;
}

export interface AgentModelConfig {
  provider: 'openai-compatible' | 'anthropic';
  baseUrl: string | null;
  model: string;
  key: string | null;
  timeoutMs: number;
}

/**
 * A token travels in an HTTP Authorization header, which takes printable ASCII only: a pasted
 * "…" (U+2026) or a space made fetch throw "Cannot convert argument to a ByteString" mid-start.
 * The problem names the character and its position, never the token itself (a secret).
 */
interface TokenShape {
  prefix: string;
  kind: string;
  placeholder: string;
}

function tokenProblem(name: string, value: string, shape: TokenShape | null): string | null {
  if (shape && !value.startsWith(shape.prefix))
    return `${name} must be ${shape.kind} starting with ${shape.prefix} (README's placeholder is ${shape.placeholder})`;
  const chars = [...value];
  const bad = chars.findIndex((ch) => !/^[\x21-\x7e]$/.test(ch));
  if (bad === -1) return null;
  const code = (chars[bad]?.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
  return `${name} may hold printable ASCII only (no spaces, no "…"): character ${bad + 1} is U+${code}`;
}

/** Rules between variables, checked on the raw values so every problem is listed at once. */
function crossFieldProblems(env: NodeJS.ProcessEnv): string[] {
  const set = (name: string) => (env[name] ?? '').trim() !== '';
  const problems: string[] = [];
  const token = (name: string, shape: TokenShape | null) => {
    const problem = set(name) ? tokenProblem(name, (env[name] ?? '').trim(), shape) : null;
    if (problem) problems.push(problem);
  };
  const oauth = ['SLACK_CLIENT_ID', 'SLACK_CLIENT_SECRET', 'SLACK_STATE_SECRET'];
  const distributed = oauth.every(set);
  if (!distributed && oauth.some(set))
    problems.push(
      `distributed mode (Slack's OAuth install) needs SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_STATE_SECRET; missing: ${oauth.filter((n) => !set(n)).join(', ')}`,
    );
  if (distributed) {
    if (set('SLACK_BOT_TOKEN'))
      problems.push(
        "SLACK_BOT_TOKEN is for single-workspace mode: in distributed mode (SLACK_CLIENT_ID…) each workspace's token comes from its install; unset it",
      );
    if (set('SLACK_APP_TOKEN'))
      problems.push(
        'distributed mode runs in HTTP mode only (Slack sends the install redirect to /slack/oauth_redirect on PORT): unset SLACK_APP_TOKEN and set SLACK_SIGNING_SECRET',
      );
    if (!set('PLATDESK_ENCRYPTION_KEY'))
      problems.push(
        'PLATDESK_ENCRYPTION_KEY is required in distributed mode (32 bytes, base64 or hex: `openssl rand -base64 32`); Slack and plat tokens are encrypted with it',
      );
    if ((env.SLACK_STATE_SECRET ?? '').trim().length > 0 && (env.SLACK_STATE_SECRET ?? '').trim().length < 16)
      problems.push(
        'SLACK_STATE_SECRET must be at least 16 characters (a random string: `openssl rand -hex 32`)',
      );
  } else if (!set('SLACK_BOT_TOKEN'))
    problems.push(
      'SLACK_BOT_TOKEN is required (xoxb-…), or set SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_STATE_SECRET for distributed mode',
    );
  if (set('PLATDESK_ENCRYPTION_KEY'))
    problems.push(...parseEncryptionKeys(env.PLATDESK_ENCRYPTION_KEY ?? '').problems);
  token('SLACK_BOT_TOKEN', { prefix: 'xoxb-', kind: 'a bot token', placeholder: 'xoxb-your-bot-token' });
  if (!set('SLACK_APP_TOKEN') && !set('SLACK_SIGNING_SECRET'))
    problems.push('SLACK_SIGNING_SECRET is required in HTTP mode (or set SLACK_APP_TOKEN for Socket Mode)');
  token('SLACK_APP_TOKEN', {
    prefix: 'xapp-',
    kind: 'an app-level token',
    placeholder: 'xapp-your-app-token',
  });
  const trust = ['PLATDESK_INSTALL_ALLOW', 'PLATDESK_DEFAULT_ACCOUNT_FOR'];
  if (!distributed)
    for (const name of trust.filter(set))
      problems.push(`${name} is for distributed mode (SLACK_CLIENT_ID…): unset it in single-workspace mode`);
  problems.push(
    ...parseIdList('PLATDESK_INSTALL_ALLOW', env.PLATDESK_INSTALL_ALLOW, false).problems,
    ...parseIdList('PLATDESK_DEFAULT_ACCOUNT_FOR', env.PLATDESK_DEFAULT_ACCOUNT_FOR, true).problems,
  );
  if (distributed) {
    // A default plat account for every workspace is optional; half of one is a mistake.
    if (set('PLAT_BASE_URL') !== set('PLAT_TOKEN'))
      problems.push(
        'PLAT_BASE_URL and PLAT_TOKEN set together make the default plat account of every workspace; set both or neither',
      );
    token('PLAT_TOKEN', null);
  } else if (!/^(1|true|yes|on)$/i.test((env.PLAT_SANDBOX ?? '').trim())) {
    if (!set('PLAT_BASE_URL'))
      problems.push('PLAT_BASE_URL is required (or set PLAT_SANDBOX=1 to try platdesk)');
    if (!set('PLAT_TOKEN')) problems.push('PLAT_TOKEN is required (or set PLAT_SANDBOX=1 to try platdesk)');
    token('PLAT_TOKEN', null);
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
  // Replicas share the limiter through Redis and everything else through the store: SQLite files
  // are one per machine, so replicas on SQLite would each keep their own confirmations and ledger.
  const port = (env.PORT ?? '3000').trim() || '3000';
  if (set('METRICS_PORT') && (env.METRICS_PORT ?? '').trim() === port && port !== '0')
    problems.push(
      'METRICS_PORT must not be PORT: /metrics and the details of /healthz are kept off the port Slack reaches',
    );
  if (set('REDIS_URL') && !set('DATABASE_URL'))
    problems.push(
      'REDIS_URL shares the plat rate limit and single flight across replicas; they also need one PostgreSQL store: set DATABASE_URL (postgres://…), the same on every replica',
    );
  problems.push(...parsePrices(env.PLAT_PRICES).problems, ...parseEditions(env.PLAT_EDITIONS).problems);
  if (set('AGENT_MODEL_PROVIDER')) {
    if (!set('AGENT_MODEL')) problems.push('AGENT_MODEL_PROVIDER is set: AGENT_MODEL names the model to use');
    if ((env.AGENT_MODEL_PROVIDER ?? '').trim() === 'openai-compatible' && !set('AGENT_MODEL_BASE_URL'))
      problems.push(
        'AGENT_MODEL_PROVIDER=openai-compatible needs AGENT_MODEL_BASE_URL (the server’s /v1 URL)',
      );
  } else if (set('AGENT_MODEL') || set('AGENT_MODEL_BASE_URL') || set('AGENT_MODEL_KEY'))
    problems.push('AGENT_MODEL… settings need AGENT_MODEL_PROVIDER (openai-compatible or anthropic)');
  return problems;
}

/**
 * Reads `.env` from the working directory into process.env when the file exists (as
 * `.env.sample` suggests). Node's own parser; a variable already set in the real environment
 * keeps its value (process.loadEnvFile never overwrites one). Returns whether a file was read.
 */
export function loadEnvFile(path = '.env'): boolean {
  if (!existsSync(path)) return false;
  process.loadEnvFile(path);
  return true;
}

/**
 * Only the database settings (DATABASE_URL or DATABASE_URL_FILE, DATABASE_PATH, DATABASE_POOL_MAX): what `node
 * dist/migrate.js` needs, so a migration Job carries no Slack or plat secret.
 */
export function loadDatabaseConfig(given: NodeJS.ProcessEnv = process.env): Config['database'] {
  // DATABASE_URL_FILE too: a Job mounts the database's Secret as a file (docs/kubernetes.md).
  const { env, problems } = withSecretFiles(given);
  if (problems.length > 0) throw new ConfigError(problems);
  return databaseConfigOf(env);
}

/** The database settings of an environment whose secret files are read already. */
function databaseConfigOf(env: NodeJS.ProcessEnv): Config['database'] {
  const parsed = envSchema
    .pick({ DATABASE_URL: true, DATABASE_PATH: true, DATABASE_POOL_MAX: true, PLATDESK_MIGRATE: true })
    .safeParse(env);
  if (!parsed.success)
    throw new ConfigError(parsed.error.issues.map((i) => `${String(i.path[0] ?? '')}: ${i.message}`));
  const e = parsed.data;
  return {
    url: e.DATABASE_URL ?? null,
    path: e.DATABASE_PATH ?? './data/platdesk.sqlite',
    poolMax: e.DATABASE_POOL_MAX,
    migrate: e.PLATDESK_MIGRATE,
  };
}

export function loadConfig(given: NodeJS.ProcessEnv = process.env): Config {
  const { env, problems: fileProblems } = withSecretFiles(given);
  const parsed = envSchema.safeParse(env);
  const problems: string[] = [...fileProblems];
  if (!parsed.success)
    problems.push(
      ...parsed.error.issues.map((i) => {
        const name = String(i.path[0] ?? '');
        return i.message.startsWith(name) ? i.message : `${name}: ${i.message}`;
      }),
    );
  problems.push(...crossFieldProblems(env));
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems);
  const e = parsed.data;
  const mode = e.SLACK_APP_TOKEN ? 'socket' : 'http';
  const admins = (e.PLATDESK_ADMINS ?? '')
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);

  const distribution =
    e.SLACK_CLIENT_ID && e.SLACK_CLIENT_SECRET && e.SLACK_STATE_SECRET
      ? {
          clientId: e.SLACK_CLIENT_ID,
          clientSecret: e.SLACK_CLIENT_SECRET,
          stateSecret: e.SLACK_STATE_SECRET,
          installAllow: e.PLATDESK_INSTALL_ALLOW
            ? (parseIdList('PLATDESK_INSTALL_ALLOW', e.PLATDESK_INSTALL_ALLOW, false).ids as string[])
            : null,
          defaultAccountFor: parseIdList('PLATDESK_DEFAULT_ACCOUNT_FOR', e.PLATDESK_DEFAULT_ACCOUNT_FOR, true)
            .ids,
        }
      : null;

  return {
    slack: {
      botToken: distribution ? null : (e.SLACK_BOT_TOKEN ?? null),
      distribution,
      signingSecret: e.SLACK_SIGNING_SECRET ?? null,
      appToken: e.SLACK_APP_TOKEN ?? null,
      apiUrl: e.SLACK_API_URL ?? null,
      mode,
      socketConnections: e.SLACK_SOCKET_CONNECTIONS,
      marketplaceApproved: e.SLACK_MARKETPLACE_APPROVED,
    },
    port: e.PORT,
    metricsPort: e.METRICS_PORT === undefined ? (e.PORT === 0 ? 0 : DEFAULT_METRICS_PORT) : e.METRICS_PORT,
    metricsToken: e.METRICS_TOKEN ?? null,
    plat: {
      baseUrl: e.PLAT_SANDBOX ? null : (e.PLAT_BASE_URL ?? null),
      token: e.PLAT_SANDBOX ? (e.SANDBOX_TOKEN ?? 'sandbox') : (e.PLAT_TOKEN ?? ''),
      sandbox: e.PLAT_SANDBOX,
      accountsLoopback: e.PLAT_ACCOUNTS_LOOPBACK,
      prices: parsePrices(e.PLAT_PRICES).prices,
      priceCeiling: e.PLAT_PRICE_CEILING,
      editions: parseEditions(e.PLAT_EDITIONS).editions,
      rateLimit: {
        maxCalls: e.PLAT_RATE_LIMIT,
        windowMs: e.PLAT_RATE_WINDOW_MS,
        maxQueued: e.PLAT_QUEUE_MAX,
      },
    },
    admins,
    locale: toLocale(e.PLATDESK_LOCALE) ?? 'en',
    database: databaseConfigOf(env),
    clockSkewBudgetMs: e.PLATDESK_CLOCK_SKEW_BUDGET_MS,
    redisUrl: e.REDIS_URL ?? null,
    encryptionKeys: e.PLATDESK_ENCRYPTION_KEY ? parseEncryptionKeys(e.PLATDESK_ENCRYPTION_KEY).keys : [],
    retentionDays: e.PLATDESK_RETENTION_DAYS,
    mcp: {
      url: e.PLATDESK_PUBLIC_URL ? `${e.PLATDESK_PUBLIC_URL.replace(/\/+$/, '')}/mcp` : null,
      confirmTtlMs: e.MCP_CONFIRM_TTL_S * 1000,
      ratePerMinute: e.MCP_RATE_PER_MINUTE,
    },
    logLevel: e.LOG_LEVEL,
    agentModel:
      e.AGENT_MODEL_PROVIDER && e.AGENT_MODEL
        ? {
            provider: e.AGENT_MODEL_PROVIDER,
            baseUrl: e.AGENT_MODEL_BASE_URL ?? null,
            model: e.AGENT_MODEL,
            key: e.AGENT_MODEL_KEY ?? null,
            timeoutMs: e.AGENT_MODEL_TIMEOUT_MS,
          }
        : null,
  };
}
