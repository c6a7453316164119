/**
 * Slack's OAuth side on the local Slack-compatible server (issue 24), kept beside it so the server
 * file changes little: `oauth.v2.access` answering as Slack documents it
 * (https://docs.slack.dev/reference/methods/oauth.v2.access) for the code grant, a workspace
 * install or an Enterprise Grid org-wide install (`is_enterprise_install: true`, `enterprise`,
 * `team: null`), and for the token rotation grant (`grant_type=refresh_token`: a new
 * `access_token`, `refresh_token` and `expires_in`; a refresh token is spent by its use, as Slack's
 * are); `auth.test` per token; and a browser-free install driver: `GET /slack/install`, then the
 * redirect back with a code, the state and the state cookie, as a browser coming back from Slack's
 * authorize page would.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { PLAT_ACCOUNT_FORM } from '../../src/blocks/plat-account.js';
import type { PlatdeskHarness } from './platdesk-harness.js';
import type { FakeSlack, SlackCall } from './slack-api-server.js';
import { SLACK } from './slack-payloads.js';

export interface InstallSpec {
  /** Workspace install: its team. */
  teamId?: string;
  teamName?: string;
  /** Grid: the org; with `orgWide` the install is org-wide (no team). */
  enterpriseId?: string;
  enterpriseName?: string;
  orgWide?: boolean;
  installerUserId: string;
  botUserId?: string;
  botId?: string;
  /** Token rotation on: the grant answers a refresh token and `expires_in` (default on). */
  rotation?: boolean;
  /** The installed token's life (default 12 h, as Slack's); renewed tokens live 12 h. */
  expiresInSeconds?: number;
}

interface IssuedToken {
  token: string;
  spec: InstallSpec;
  /** Milliseconds since the epoch; null without rotation. */
  expiresAt: number | null;
}

export interface FakeOAuth {
  readonly clientId: string;
  readonly clientSecret: string;
  /** A one-use code for this install (what Slack's authorize page would redirect back with). */
  code(spec: InstallSpec): string;
  /** The token a call was made with (Authorization header, else the `token` field). */
  tokenOf(call: SlackCall): string;
  /** Whether the token was issued here and had not expired at `at` (ms). */
  isValid(token: string, at?: number): boolean;
  /** The bot token most recently issued for a tenant (enterprise id of an org-wide install, else team). */
  currentToken(tenant: string): string;
  /** `oauth.v2.access` calls with `grant_type=refresh_token`. */
  refreshGrants(): SlackCall[];
  /** Makes every issued token of the tenant expire now (the next request must refresh). */
  expireNow(tenant: string): void;
  /**
   * These methods answer `token_expired` (or `invalid_auth` for a token never issued here) to a
   * rotating token that is no longer valid, as Slack does; a valid one gets the usual answer.
   */
  enforceTokens(methods: readonly string[]): void;
}

const tenantOfSpec = (s: InstallSpec) => (s.orgWide ? (s.enterpriseId ?? '') : (s.teamId ?? ''));

export function tokenOf(call: SlackCall): string {
  const auth = String(call.headers.authorization ?? '');
  if (auth.startsWith('Bearer ')) return auth.slice('Bearer '.length);
  return typeof call.body.token === 'string' ? call.body.token : '';
}

/** Teaches the fake Slack OAuth (answers set with setResponse: call again after fake.reset()). */
export function installFakeOAuth(
  fake: FakeSlack,
  options: { clientId?: string; clientSecret?: string; now?: () => number } = {},
): FakeOAuth {
  const clientId = options.clientId ?? '1234.5678';
  const clientSecret = options.clientSecret ?? 'client-secret-for-tests';
  const now = options.now ?? Date.now;
  const codes = new Map<string, InstallSpec>();
  const tokens = new Map<string, IssuedToken>();
  const refreshTokens = new Map<string, { spec: InstallSpec; spent: boolean }>();
  const current = new Map<string, string>();
  let seq = 0;

  const issue = (spec: InstallSpec) => {
    const n = ++seq;
    const rotation = spec.rotation ?? true;
    const expiresIn = spec.expiresInSeconds ?? 43_200;
    const token = rotation ? `xoxe.xoxb-1-fake-${n}` : `xoxb-fake-${n}`;
    tokens.set(token, { token, spec, expiresAt: rotation ? now() + expiresIn * 1000 : null });
    current.set(tenantOfSpec(spec), token);
    const refresh = rotation ? `xoxe-1-refresh-${n}` : undefined;
    if (refresh) refreshTokens.set(refresh, { spec, spent: false });
    return { token, refresh, expiresIn: rotation ? expiresIn : undefined };
  };
  const grantAnswer = (spec: InstallSpec) => {
    const { token, refresh, expiresIn } = issue(spec);
    const enterprise = spec.enterpriseId
      ? { id: spec.enterpriseId, name: spec.enterpriseName ?? 'Grid org' }
      : null;
    return {
      app_id: 'A1234',
      authed_user: { id: spec.installerUserId },
      scope: 'commands,chat:write,users:read',
      token_type: 'bot',
      access_token: token,
      bot_user_id: spec.botUserId ?? 'UBOT',
      team: spec.orgWide ? null : { id: spec.teamId, name: spec.teamName ?? `Workspace ${spec.teamId}` },
      enterprise,
      is_enterprise_install: spec.orgWide === true,
      ...(refresh ? { refresh_token: refresh, expires_in: expiresIn } : {}),
    };
  };
  const credentialsOk = (call: SlackCall) => {
    const auth = String(call.headers.authorization ?? '');
    if (auth.startsWith('Basic ')) {
      const [id, secret] = Buffer.from(auth.slice(6), 'base64').toString().split(':');
      return id === clientId && secret === clientSecret;
    }
    return call.body.client_id === clientId && call.body.client_secret === clientSecret;
  };

  fake.setResponse('oauth.v2.access', (call) => {
    if (!credentialsOk(call)) return { ok: false, error: 'invalid_client_id' };
    if (call.body.grant_type === 'refresh_token') {
      const held = refreshTokens.get(String(call.body.refresh_token ?? ''));
      if (!held || held.spent) return { ok: false, error: 'invalid_refresh_token' };
      held.spent = true;
      // A renewed token lives Slack's usual 12 hours, whatever the first one's life was.
      return grantAnswer({ ...held.spec, expiresInSeconds: 43_200 });
    }
    const code = String(call.body.code ?? '');
    const spec = codes.get(code);
    if (!spec) return { ok: false, error: 'invalid_code' };
    codes.delete(code);
    return grantAnswer(spec);
  });
  fake.setResponse('auth.test', (call) => {
    const token = tokenOf(call);
    const issued = tokens.get(token);
    if (!issued) {
      if (token.startsWith('xoxe.') || token.startsWith('xoxb-fake-'))
        return { ok: false, error: 'invalid_auth' };
      return {
        url: 'https://platdesk-test.slack.com/',
        team: 'platdesk test',
        user: 'platdesk',
        team_id: 'T1234',
        user_id: 'UBOT',
        bot_id: 'BBOT',
        is_enterprise_install: false,
      };
    }
    if (issued.expiresAt !== null && issued.expiresAt <= now()) return { ok: false, error: 'token_expired' };
    const { spec } = issued;
    return {
      url: `https://${(spec.teamId ?? spec.enterpriseId ?? 'x').toLowerCase()}.slack.com/`,
      team: spec.teamName ?? spec.enterpriseName ?? '',
      user: 'platdesk',
      team_id: spec.teamId ?? spec.enterpriseId,
      user_id: spec.botUserId ?? 'UBOT',
      bot_id: spec.botId ?? 'BBOT',
      ...(spec.enterpriseId ? { enterprise_id: spec.enterpriseId } : {}),
      is_enterprise_install: spec.orgWide === true,
    };
  });

  return {
    clientId,
    clientSecret,
    code(spec) {
      const code = `code-${++seq}`;
      codes.set(code, spec);
      return code;
    },
    tokenOf,
    isValid(token, at = now()) {
      const issued = tokens.get(token);
      return issued !== undefined && (issued.expiresAt === null || issued.expiresAt > at);
    },
    currentToken(tenant) {
      const token = current.get(tenant);
      if (!token) throw new Error(`fake OAuth: nothing installed for ${tenant}`);
      return token;
    },
    refreshGrants: () => fake.callsTo('oauth.v2.access').filter((c) => c.body.grant_type === 'refresh_token'),
    enforceTokens(methods) {
      for (const method of methods)
        fake.setResponse(method, (call) => {
          const token = tokenOf(call);
          const issued = tokens.get(token);
          if (!issued) return token.startsWith('xoxe.') ? { ok: false, error: 'invalid_auth' } : undefined;
          if (issued.expiresAt !== null && issued.expiresAt <= now())
            return { ok: false, error: 'token_expired' };
          return undefined;
        });
    },
    expireNow(tenant) {
      for (const issued of tokens.values())
        if (tenantOfSpec(issued.spec) === tenant && issued.expiresAt !== null) issued.expiresAt = now();
    },
  };
}

export interface InstallResult {
  /** The authorize URL /slack/install sent the browser to. */
  authorizeUrl: URL;
  /** The redirect's answer: status and page. */
  status: number;
  page: string;
}

/**
 * An install as a browser does it, without one: GET /slack/install (302 to Slack's authorize page,
 * with the state cookie), then GET /slack/oauth_redirect?code&state with that cookie, as Slack's
 * authorize page redirects back once the installer approves. `tamper` changes the state or drops
 * the cookie (CSRF checks).
 */
export async function installThroughOAuth(
  appUrl: string,
  oauth: FakeOAuth,
  spec: InstallSpec,
  tamper: { state?: string; dropCookie?: boolean } = {},
): Promise<InstallResult> {
  const start = await fetch(`${appUrl}/slack/install`, { redirect: 'manual' });
  const location = start.headers.get('location');
  if (start.status !== 302 || !location)
    throw new Error(`/slack/install answered ${start.status}, no redirect`);
  const authorizeUrl = new URL(location);
  const state = authorizeUrl.searchParams.get('state') ?? '';
  const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const query = new URLSearchParams({ code: oauth.code(spec), state: tamper.state ?? state });
  const back = await fetch(`${appUrl}/slack/oauth_redirect?${query}`, {
    redirect: 'manual',
    headers: tamper.dropCookie ? {} : { cookie },
  });
  return { authorizeUrl, status: back.status, page: await back.text() };
}

/**
 * An admin clicks a button of their App Home that opens a form: the click is answered 200 and
 * views.open carries the form's callback id (both asserted). Returns the opened view.
 */
export async function openHomeForm(
  app: { clickInView: PlatdeskHarness['clickInView']; fake: FakeSlack },
  button: { actionId: string; value: string; callbackId: string },
): Promise<unknown> {
  const click = await app.clickInView(button.actionId, button.value, {
    surface: 'home',
    userId: SLACK.adminId,
  });
  expect(click.status).toBe(200);
  const opened = await app.fake.waitFor('views.open');
  expect((opened.body.view as { callback_id: string }).callback_id).toBe(button.callbackId);
  return opened.body.view;
}

/** An admin opens the "Connect plat account" form from their App Home (openHomeForm). */
export async function openConnectForm(app: Parameters<typeof openHomeForm>[0]): Promise<void> {
  await openHomeForm(app, {
    actionId: 'platdesk.home.plat_account',
    value: 'connect',
    callbackId: PLAT_ACCOUNT_FORM.callbackId,
  });
}

/** The "Connect plat account" form's submitted values (view.state.values), as Slack sends them. */
export function platAccountValues(baseUrl: string, token: string) {
  return {
    [PLAT_ACCOUNT_FORM.baseUrl.block]: {
      [PLAT_ACCOUNT_FORM.baseUrl.action]: { type: 'plain_text_input' as const, value: baseUrl },
    },
    [PLAT_ACCOUNT_FORM.token.block]: {
      [PLAT_ACCOUNT_FORM.token.action]: { type: 'plain_text_input' as const, value: token },
    },
  };
}

/**
 * The settings of distributed mode (docs/workspaces.md) for a test app: no bot token, the OAuth
 * client and state secret the fake OAuth side expects, a fresh encryption key, no listed admins
 * (the first installer becomes the workspace's admin), and the operator's plat account (when the
 * test has one) serving every install (test/security/h3-who-pays.test.ts tests the other cases).
 */
export function distributedModeEnv(): Record<string, string> {
  return {
    SLACK_BOT_TOKEN: '',
    SLACK_CLIENT_ID: '1234.5678',
    SLACK_CLIENT_SECRET: 'client-secret-for-tests',
    SLACK_STATE_SECRET: 'state-secret-for-tests-0123456789',
    PLATDESK_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    PLATDESK_ADMINS: '',
    PLATDESK_DEFAULT_ACCOUNT_FOR: '*',
    // The plat accounts tests connect are sandboxes on this machine (plat/address-guard.ts).
    PLAT_ACCOUNTS_LOOPBACK: '1',
  };
}

/**
 * An Events API envelope as it arrives from workspace `teamId`'s installation (a workspace
 * install, not org-wide): its team, its context team and the bot's authorization there.
 */
export function fromWorkspace<T extends object>(envelope: T, teamId: string) {
  return {
    ...envelope,
    team_id: teamId,
    context_team_id: teamId,
    authorizations: [
      { enterprise_id: null, team_id: teamId, user_id: 'UBOT', is_bot: true, is_enterprise_install: false },
    ],
  };
}
