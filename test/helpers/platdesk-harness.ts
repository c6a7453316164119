/**
 * The whole app under test: the REAL Bolt app of `startPlatdesk` in HTTP mode, signed requests
 * into `POST /slack/events`, every Web API call and response_url post landing on the fake Slack
 * server, and the plat API served by a sandbox on loopback, whose call counter proves "no call" and
 * "exactly one call". By default the app reaches it as it reaches the real plat API (PLAT_BASE_URL,
 * PLAT_TOKEN: no price known until PLAT_PRICES or a charge says it); `plat: 'sandbox'` runs the
 * app's own in-process sandbox instead (PLAT_SANDBOX=1, which quotes the sandbox's prices).
 *
 * The clock is the harness's own (`advance(ms)`), so confirmation expiry is tested without waiting.
 */
import type { KnownBlock } from '@slack/types';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { type Platdesk, type StartOptions, startPlatdesk } from '../../src/main.js';
import { createSandbox, SANDBOX_DEFAULTS, type Sandbox } from '../../src/sandbox/index.js';
import { assertWithinSlackLimits } from './block-limits.js';
import type { FakeClock } from './fake-clock.js';
import { type FakeSlack, type SlackCall, startSlackApiServer } from './slack-api-server.js';
import { postAction, postCommand, type SlackHttpResult } from './slack-http.js';
import {
  blockAction,
  SLACK,
  slashCommand,
  type ViewSubmissionInput,
  viewBlockAction,
  viewSubmission,
} from './slack-payloads.js';

import { createPostgresDatabase, dropPostgresDatabase, type EngineName } from './store-engines.js';

export const SIGNING_SECRET = 'test-secret';

export interface HarnessOptions {
  env?: Record<string, string>;
  /** Replaces the harness clock (then `advance` has no effect). */
  now?: () => Date;
  /**
   * A fake clock for everything: the app's `now` and the digest and alert schedulers' timers
   * (move it with `clock.advanceAsync`). `advance` moves it too.
   */
  clock?: FakeClock;
  platTimeouts?: StartOptions['platTimeouts'];
  platRetry?: StartOptions['platRetry'];
  /** Bounds of the workspaces' parts kept (tenant-services.ts). */
  tenantParts?: StartOptions['tenantParts'];
  drainTimeoutMs?: StartOptions['drainTimeoutMs'];
  housekeepingEveryMs?: StartOptions['housekeepingEveryMs'];
  mcpProgressEveryMs?: StartOptions['mcpProgressEveryMs'];
  /** The claim lease and the claim watch's beat (default: the production ones). */
  claims?: StartOptions['claims'];
  /** Who the app is in claim records (replicas in one test process as on different hosts). */
  instance?: StartOptions['instance'];
  /** How long a Slack call of an agent's confirmed plan may take (default the app's). */
  agentSlackTimeoutMs?: StartOptions['agentSlackTimeoutMs'];
  /** Level of the captured log (default 'warn'); `logs()` returns every line captured. */
  logLevel?: 'trace' | 'debug' | 'info' | 'warn' | 'error';
  /** Replaces SIGNING_SECRET: the app is configured with it and the harness signs with it. */
  signingSecret?: string;
  /**
   * The store engine: 'sqlite' (default, a private in-memory database) or 'postgres' (a fresh
   * database on the run's test server, dropped on close).
   */
  engine?: EngineName;
  /**
   * How the app reaches the plat API: 'api' (default) a sandbox the harness starts, at PLAT_BASE_URL
   * as the real API would be; 'sandbox' the app's built-in one (PLAT_SANDBOX=1); 'none' no default
   * account at all (distributed mode only; the harness's sandbox runs, unused, to count 0 calls).
   */
  plat?: 'api' | 'sandbox' | 'none';
  /** More plat tokens the harness's sandbox accepts (a plat account per tenant; 'api' only). */
  sandboxTokens?: readonly string[];
  /** Distributed mode (StartOptions.installations): the bots of the tenants it knows. */
  installations?: StartOptions['installations'];
  /** Which plat account each tenant spends from (given the sandbox's URL). */
  platAccounts?: (baseUrl: string) => NonNullable<StartOptions['platAccounts']>;
  /**
   * The Slack stand-in's clock (its message ts values, its read limit's minute): default the real
   * one. A test whose app runs on a fake clock and reads history by time gives it that clock, as
   * Slack's and platdesk's real clocks agree.
   */
  slackNow?: () => number;
}

/** What a confirmed lookup answered, and how many plat calls it took. */
export interface Lookup {
  answer: SlackMessage;
  calls: number;
}

/** What was posted to a response_url, or the body of a chat.* call. */
export interface SlackMessage {
  text?: string;
  blocks?: KnownBlock[];
  response_type?: string;
  replace_original?: boolean;
  [key: string]: unknown;
}

export interface Sent {
  status: number;
  /** The ack latency. */
  ms: number;
  /** Where this request's answers are posted (`nextResponse(responseUrlId)`). */
  responseUrlId: string;
  body: string;
}

export interface ButtonInfo {
  actionId: string;
  label: string;
  value: string | undefined;
  url: string | undefined;
  style: string | undefined;
}

export interface Confirmation {
  confirm: ButtonInfo;
  cancel: ButtonInfo;
  /** Every text of the message (fallback text and blocks), joined. */
  text: string;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every text in a message: the fallback text and every text object of its blocks, in order. */
export function textOf(message: unknown): string {
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) for (const x of v) walk(x);
    else if (isObject(v)) {
      if (typeof v.text === 'string') out.push(v.text);
      for (const [k, x] of Object.entries(v)) if (k !== 'text' || typeof x !== 'string') walk(x);
    }
  };
  walk(message);
  return out.join('\n');
}

/** Every button of a message's blocks. */
export function buttonsOf(message: SlackMessage | Json): ButtonInfo[] {
  const buttons: ButtonInfo[] = [];
  const blocks = Array.isArray(message.blocks) ? (message.blocks as unknown[]) : [];
  for (const block of blocks) {
    if (!isObject(block)) continue;
    const elements = [
      ...(Array.isArray(block.elements) ? block.elements : []),
      ...(block.accessory ? [block.accessory] : []),
    ];
    for (const el of elements) {
      if (!isObject(el) || el.type !== 'button') continue;
      buttons.push({
        actionId: String(el.action_id ?? ''),
        label: isObject(el.text) ? String(el.text.text ?? '') : '',
        value: typeof el.value === 'string' ? el.value : undefined,
        url: typeof el.url === 'string' ? el.url : undefined,
        style: typeof el.style === 'string' ? el.style : undefined,
      });
    }
  }
  return buttons;
}

export function buttonOf(message: SlackMessage | Json, actionId: string): ButtonInfo {
  const found = buttonsOf(message).find((b) => b.actionId === actionId);
  if (!found) throw new Error(`no ${actionId} button in: ${textOf(message).slice(0, 300)}`);
  return found;
}

/** The Confirm and Cancel buttons of a charge confirmation (throws when it is not one). */
export function confirmationOf(message: SlackMessage | Json): Confirmation {
  return {
    confirm: buttonOf(message, 'platdesk.confirm'),
    cancel: buttonOf(message, 'platdesk.cancel'),
    text: textOf(message),
  };
}

/** Every blocks array the fake received, with the surface it belongs to. */
export function recordedBlocks(
  calls: readonly SlackCall[],
): { where: string; blocks: unknown[]; surface: 'message' | 'modal' }[] {
  const out: { where: string; blocks: unknown[]; surface: 'message' | 'modal' }[] = [];
  for (const call of calls) {
    if (Array.isArray(call.body.blocks))
      out.push({ where: call.method, blocks: call.body.blocks, surface: 'message' });
    const view = call.body.view;
    if (isObject(view) && Array.isArray(view.blocks))
      out.push({ where: call.method, blocks: view.blocks, surface: 'modal' });
  }
  return out;
}

export interface PlatdeskHarness {
  platdesk: Platdesk;
  fake: FakeSlack;
  sandbox: Sandbox;
  /** http://127.0.0.1:PORT/slack/events */
  eventsUrl: string;
  /** Moves the harness clock forward. */
  advance(ms: number): void;
  now(): Date;
  /** A signed slash command with a fresh response_url. */
  command(
    name: string,
    text: string,
    options?: { userId?: string; channelId?: string; teamId?: string },
  ): Promise<Sent>;
  /** The next message (not yet returned by this function) posted to that response_url. */
  nextResponse(responseUrlId: string, timeoutMs?: number): Promise<SlackMessage>;
  /** Every message posted to that response_url so far. */
  responses(responseUrlId: string): SlackMessage[];
  /** A block_actions payload for a button; a fresh response_url unless one is given. */
  click(
    actionId: string,
    value: string | undefined,
    options?: {
      userId?: string;
      responseUrlId?: string;
      label?: string;
      teamId?: string;
      /** Slack's action_ts (default a fresh one): the same one again is Slack redelivering that click. */
      actionTs?: string;
    },
  ): Promise<Sent>;
  /**
   * A button clicked in the App Home or a modal: as from Slack, no response_url and no channel,
   * so an answer must come another way (a direct message, an updated view).
   */
  clickInView(
    actionId: string,
    value: string | undefined,
    options: { surface: 'home' | 'modal'; userId?: string },
  ): Promise<SlackHttpResult>;
  /** A signed view_submission. */
  submitView(input: ViewSubmissionInput): Promise<SlackHttpResult>;
  /** The command, then its confirmation (asserted to be one). */
  ask(
    name: string,
    text: string,
    options?: { userId?: string; teamId?: string; channelId?: string },
  ): Promise<{ sent: Sent; message: SlackMessage; confirmation: Confirmation }>;
  /** Clicks Confirm and returns the "Looking up…" message and the answer. */
  confirm(
    confirmation: Confirmation,
    options?: { userId?: string; teamId?: string },
  ): Promise<{ sent: Sent; progress: SlackMessage; answer: SlackMessage }>;
  /**
   * A whole confirmed lookup: `ask`, then `confirm`; asserts the answer is ephemeral and counts
   * the plat calls made since the ask. The answer is posted after the last attempt (retries
   * included); with `settle` the count is taken once no more calls arrive.
   */
  lookup(name: string, text: string, options?: { userId?: string; settle?: boolean }): Promise<Lookup>;
  /**
   * A command whose input cannot be looked up: asserts it is acked within 1 s, answered
   * ephemerally with the usage line and no confirmation, and makes no plat call; returns the text.
   */
  refused(name: string, text: string): Promise<string>;
  /** Plat calls that reached the sandbox. */
  calls(): number;
  /** Waits until no plat call has arrived for `quietMs` (to prove that nothing more is coming). */
  settle(quietMs?: number): Promise<void>;
  /** Every message body the fake received (response_url posts and chat.* calls). */
  messages(): SlackMessage[];
  /** Asserts every blocks array the fake received fits Slack's limits. */
  assertAllWithinLimits(): void;
  /** Captured log lines (warn and above unless `logLevel` says otherwise), as JSON text. */
  logs(): string[];
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

let actionSeq = 0;

export async function startPlatdeskHarness(options: HarnessOptions = {}): Promise<PlatdeskHarness> {
  const fake = await startSlackApiServer(options.slackNow ? { now: options.slackNow } : {});
  let t = Date.now();
  const clock = options.clock;
  const now = options.now ?? (clock ? () => new Date(clock.now()) : () => new Date(t));
  const logLines: string[] = [];
  const logger = createLogger(options.logLevel ?? 'warn', {
    write: (line: string) => void logLines.push(line),
  });
  const signingSecret = options.signingSecret ?? SIGNING_SECRET;
  const database = options.engine === 'postgres' ? await createPostgresDatabase() : null;
  const ownSandbox =
    options.plat === 'sandbox'
      ? null
      : createSandbox({
          token: 'sandbox',
          ...(options.sandboxTokens ? { moreTokens: options.sandboxTokens } : {}),
        });
  const ownUrl = ownSandbox ? await ownSandbox.listen(0) : null;
  // 'none': no default account (distributed mode); the harness's sandbox stays, to count 0 calls.
  const platEnv: { PLAT_BASE_URL?: string; PLAT_TOKEN?: string; PLAT_SANDBOX?: string } =
    options.plat === 'none'
      ? {}
      : ownUrl
        ? { PLAT_BASE_URL: ownUrl, PLAT_TOKEN: 'sandbox' }
        : { PLAT_SANDBOX: '1' };
  const config = loadConfig({
    SLACK_BOT_TOKEN: 'xoxb-test',
    SLACK_SIGNING_SECRET: signingSecret,
    SLACK_API_URL: fake.apiUrl,
    PORT: '0',
    ...platEnv,
    DATABASE_PATH: ':memory:',
    ...(database ? { DATABASE_URL: database } : {}),
    LOG_LEVEL: 'silent',
    PLATDESK_ADMINS: SLACK.adminId,
    ...options.env,
  });
  const startOptions: StartOptions = {
    now,
    logger,
    // Every due time is a timer of its own (wake-loop.ts); the longest sleep only bounds how
    // late work added elsewhere is seen, and a quarter hour keeps a day's advance short.
    ...(clock ? { schedulerClock: clock, schedulerMaxSleepMs: 15 * 60_000 } : {}),
  };
  if (options.platTimeouts) startOptions.platTimeouts = options.platTimeouts;
  if (options.tenantParts) startOptions.tenantParts = options.tenantParts;
  if (options.platRetry) startOptions.platRetry = options.platRetry;
  if (options.drainTimeoutMs !== undefined) startOptions.drainTimeoutMs = options.drainTimeoutMs;
  if (options.claims) startOptions.claims = options.claims;
  if (options.instance) startOptions.instance = options.instance;
  if (options.agentSlackTimeoutMs !== undefined)
    startOptions.agentSlackTimeoutMs = options.agentSlackTimeoutMs;
  if (options.housekeepingEveryMs !== undefined)
    startOptions.housekeepingEveryMs = options.housekeepingEveryMs;
  if (options.mcpProgressEveryMs !== undefined) startOptions.mcpProgressEveryMs = options.mcpProgressEveryMs;
  if (options.installations) startOptions.installations = options.installations;
  if (options.platAccounts && platEnv.PLAT_BASE_URL)
    startOptions.platAccounts = options.platAccounts(platEnv.PLAT_BASE_URL);
  let platdesk: Platdesk;
  try {
    platdesk = await startPlatdesk(config, startOptions);
  } catch (error) {
    await fake.close();
    await ownSandbox?.close();
    if (database) await dropPostgresDatabase(database);
    throw error;
  }
  const sandbox = ownSandbox ?? platdesk.sandbox;
  if (!sandbox) throw new Error('PLAT_SANDBOX=1 should start the in-process sandbox');
  // The fake clock waits for the schedulers (their store round trips, their runs) between two
  // timers, so it never jumps past a due time on either engine.
  const unsettle = clock?.settleWith(() => platdesk.schedulersIdle());
  const eventsUrl = `${platdesk.url}/slack/events`;
  let seq = 0;
  const consumed = new Map<string, number>();
  const responsesTo = (id: string) => fake.callsTo('response_url').filter((c) => c.id === id);

  const harness: PlatdeskHarness = {
    platdesk,
    fake,
    sandbox,
    eventsUrl,
    advance: (ms) => {
      t += ms;
      clock?.advance(ms);
    },
    now,
    async command(name, text, opts = {}) {
      const responseUrlId = `cmd-${++seq}`;
      const payload = slashCommand({
        command: name,
        text,
        responseUrl: fake.responseUrl(responseUrlId),
        ...(opts.userId ? { userId: opts.userId } : {}),
        ...(opts.channelId ? { channelId: opts.channelId } : {}),
        ...(opts.teamId ? { teamId: opts.teamId } : {}),
      });
      const res = await postCommand(eventsUrl, signingSecret, payload);
      return { status: res.status, ms: res.ms, responseUrlId, body: res.body };
    },
    async nextResponse(responseUrlId, timeoutMs = 5000) {
      const index = consumed.get(responseUrlId) ?? 0;
      consumed.set(responseUrlId, index + 1);
      const call = await fake.waitFor(
        'response_url',
        (c) => c.id === responseUrlId && responsesTo(responseUrlId).indexOf(c) === index,
        timeoutMs,
      );
      return call.body as SlackMessage;
    },
    responses: (responseUrlId) => responsesTo(responseUrlId).map((c) => c.body as SlackMessage),
    async click(actionId, value, opts = {}) {
      const responseUrlId = opts.responseUrlId ?? `act-${++seq}`;
      actionSeq += 1;
      const payload = blockAction({
        actionId,
        ...(value !== undefined ? { value } : {}),
        responseUrl: fake.responseUrl(responseUrlId),
        actionTs: opts.actionTs ?? `1700000001.${String(actionSeq).padStart(6, '0')}`,
        ...(opts.userId ? { userId: opts.userId } : {}),
        ...(opts.label ? { text: opts.label } : {}),
        ...(opts.teamId ? { teamId: opts.teamId } : {}),
      });
      const res = await postAction(eventsUrl, signingSecret, payload);
      return { status: res.status, ms: res.ms, responseUrlId, body: res.body };
    },
    clickInView(actionId, value, opts) {
      actionSeq += 1;
      const payload = viewBlockAction({
        actionId,
        ...(value !== undefined ? { value } : {}),
        surface: opts.surface,
        actionTs: `1700000001.${String(actionSeq).padStart(6, '0')}`,
        ...(opts.userId ? { userId: opts.userId } : {}),
      });
      return postAction(eventsUrl, signingSecret, payload);
    },
    submitView: (input) => postAction(eventsUrl, signingSecret, viewSubmission(input)),
    async ask(name, text, opts = {}) {
      const sent = await harness.command(name, text, opts);
      if (sent.status !== 200) throw new Error(`${name} ${text}: HTTP ${sent.status}`);
      const message = await harness.nextResponse(sent.responseUrlId);
      return { sent, message, confirmation: confirmationOf(message) };
    },
    async confirm(confirmation, opts = {}) {
      const sent = await harness.click('platdesk.confirm', confirmation.confirm.value, {
        ...opts,
        label: confirmation.confirm.label,
      });
      if (sent.status !== 200) throw new Error(`Confirm: HTTP ${sent.status}`);
      const progress = await harness.nextResponse(sent.responseUrlId);
      const answer = await harness.nextResponse(sent.responseUrlId);
      return { sent, progress, answer };
    },
    async lookup(name, text, opts = {}) {
      const { settle, ...who } = opts;
      const before = harness.calls();
      const { confirmation } = await harness.ask(name, text, who);
      const { answer } = await harness.confirm(confirmation, who);
      if (settle) await harness.settle();
      expect(answer.response_type).toBe('ephemeral');
      return { answer, calls: harness.calls() - before };
    },
    async refused(name, text) {
      const before = harness.calls();
      const sent = await harness.command(name, text);
      expect(sent.status).toBe(200);
      expect(sent.ms).toBeLessThan(1000);
      const answer = await harness.nextResponse(sent.responseUrlId);
      const said = textOf(answer);
      expect(answer.response_type).toBe('ephemeral');
      expect(said).toContain(`Usage: \`${name}`);
      expect(() => confirmationOf(answer)).toThrow();
      await harness.settle(50);
      expect(harness.calls()).toBe(before);
      return said;
    },
    calls: () => sandbox.stats().calls,
    async settle(quietMs = 150) {
      let before = -1;
      while (before !== sandbox.stats().calls) {
        before = sandbox.stats().calls;
        await sleep(quietMs);
      }
    },
    messages: () =>
      fake.calls
        .filter((c) => c.method === 'response_url' || c.method.startsWith('chat.'))
        .map((c) => c.body as SlackMessage),
    assertAllWithinLimits() {
      for (const { blocks, surface } of recordedBlocks(fake.calls)) {
        if (surface === 'message') {
          assertWithinSlackLimits(blocks, surface);
          continue;
        }
        // block-limits.ts checks display blocks only; a modal's input blocks are checked here.
        expect(blocks.length).toBeLessThanOrEqual(100);
        const inputs = blocks.filter((b) => isObject(b) && b.type === 'input') as Json[];
        for (const input of inputs) {
          const label = isObject(input.label) ? input.label : {};
          expect(label.type).toBe('plain_text');
          expect(String(label.text ?? '').length).toBeGreaterThan(0);
          expect(String(label.text ?? '').length).toBeLessThanOrEqual(2000);
          expect(isObject(input.element) && typeof input.element.action_id === 'string').toBe(true);
        }
        // Block Kit validation refuses two elements with one action_id in a view.
        const actionIds = inputs.map((input) => (isObject(input.element) ? input.element.action_id : null));
        expect(new Set(actionIds).size, `duplicate action_id among ${actionIds.join(', ')}`).toBe(
          actionIds.length,
        );
        const display = blocks.filter((b) => !inputs.includes(b as Json));
        if (display.length > 0) assertWithinSlackLimits(display, 'modal');
      }
      for (const call of fake.calls) {
        const view = call.body.view;
        if (!isObject(view)) continue;
        // https://docs.slack.dev/reference/views/modal-views: title, submit and close hold 24 characters.
        for (const key of ['title', 'submit', 'close'])
          if (isObject(view[key])) expect(String((view[key] as Json).text).length).toBeLessThanOrEqual(24);
      }
    },
    logs: () => [...logLines],
    async close() {
      unsettle?.();
      try {
        await platdesk.stop();
      } finally {
        await fake.close();
        await ownSandbox?.close();
        if (database) await dropPostgresDatabase(database);
      }
    },
  };
  return harness;
}

/**
 * One harness for the enclosing describe: started in beforeAll, closed in afterAll; with
 * `resetSandboxAfterEach`, the sandbox's faults are cleared and its balance restored after each
 * test. Returns a getter (the harness exists only once beforeAll has run).
 */
export function useHarness(
  options: HarnessOptions & { resetSandboxAfterEach?: boolean } = {},
): () => PlatdeskHarness {
  const { resetSandboxAfterEach, ...harnessOptions } = options;
  let harness: PlatdeskHarness | undefined;
  beforeAll(async () => {
    harness = await startPlatdeskHarness(harnessOptions);
  });
  if (resetSandboxAfterEach)
    afterEach(() => {
      harness?.sandbox.setFaults([]);
      harness?.sandbox.setBalance(SANDBOX_DEFAULTS.balancePoints);
    });
  afterAll(async () => {
    await harness?.close();
  });
  return () => {
    if (!harness) throw new Error('the harness starts in beforeAll: call the getter inside a test or hook');
    return harness;
  };
}

/** Fails when a message looks like it carries a stack trace or a raw exception. */
export function looksLikeStackTrace(text: string): boolean {
  return /\n\s+at .+[(:]\d+|\.ts:\d+|\.js:\d+|node:internal|^\w*Error: /m.test(text);
}

/** A workspace's bot, as the harness's `installations` answers it. */
export interface HarnessBot {
  botToken: string;
  botUserId: string;
  botId: string;
}

/**
 * A harness serving the workspaces of `bots` (each installed with its bot, each spending from the
 * sandbox's account) and no other: the many-workspaces tests' app.
 */
export function startWithWorkspaces(
  bots: Readonly<Record<string, HarnessBot>>,
  options: HarnessOptions = {},
): Promise<PlatdeskHarness> {
  const served = (tenant: string) => Object.hasOwn(bots, tenant);
  return startPlatdeskHarness({
    installations: async (tenant) => (served(tenant) ? (bots[tenant] ?? null) : null),
    platAccounts: (baseUrl) => ({
      accountFor: async (tenant) => (served(tenant) ? { baseUrl, token: 'sandbox' } : null),
    }),
    ...options,
  });
}
