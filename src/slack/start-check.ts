/**
 * What stops start-up on the Slack side, said in one line an operator can act on: Slack cannot be
 * reached (DNS, refused connection, proxy), Slack rejects a token (invalid_auth and the like), or
 * the Socket Mode WebSocket cannot be opened. Before this, each of these surfaced as a raw
 * WebAPIRequestError stack printed as an unhandled rejection (Bolt calls auth.test in its
 * constructor and nobody awaits it), or as a Socket Mode client retrying forever.
 */
import { type Logger as BoltLogger, LogLevel, webApi } from '@slack/bolt';
import type { Logger } from '../logger.js';
import { withoutPayload } from './bolt-logger.js';
import { slackClientOptions } from './web-fetch.js';

export type SlackStartProblem = 'unreachable' | 'token_rejected' | 'socket_failed' | 'slack_error';

export class SlackStartError extends Error {
  readonly code: SlackStartProblem;
  constructor(code: SlackStartProblem, message: string, options: { cause: unknown }) {
    super(message, options);
    this.name = 'SlackStartError';
    this.code = code;
  }
}

export const isSlackStartError = (error: unknown): error is SlackStartError =>
  error instanceof SlackStartError;

/** Slack's answers that mean "this token is not accepted" (auth.test, apps.connections.open). */
const REJECTED = new Set([
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'not_allowed_token_type',
  'user_removed_from_team',
  'team_disabled',
]);

const CREATE_APP = 'README.md, "Create the Slack app"';

/** "slack.com" or the host of SLACK_API_URL, to say where platdesk tried to go. */
function slackHost(apiUrl: string | null): string {
  if (!apiUrl) return 'slack.com';
  try {
    return new URL(apiUrl).host;
  } catch {
    return apiUrl;
  }
}

/** The innermost cause's message: "getaddrinfo ENOTFOUND slack.com", "connect ECONNREFUSED …". */
function rootCause(error: unknown): string {
  let e: unknown = error;
  for (let depth = 0; depth < 5; depth++) {
    const next =
      (e as { original?: unknown; cause?: unknown } | null)?.original ?? (e as { cause?: unknown })?.cause;
    if (!(next instanceof Error)) break;
    e = next;
  }
  return e instanceof Error ? e.message : String(e);
}

/**
 * Turns a failed Slack call at start into a SlackStartError whose message is the one line to
 * print; `token` names the setting the call used.
 */
export function explainSlackStartFailure(
  error: unknown,
  ctx: { token: 'SLACK_BOT_TOKEN' | 'SLACK_APP_TOKEN'; apiUrl: string | null },
): SlackStartError {
  if (isSlackStartError(error)) return error;
  const host = slackHost(ctx.apiUrl);
  const where = ctx.apiUrl ? ', and SLACK_API_URL' : '';
  const code = (error as { code?: unknown } | null)?.code;
  if (code === webApi.ErrorCode.PlatformError) {
    const answer = String((error as webApi.WebAPIPlatformError).data.error);
    if (REJECTED.has(answer)) {
      const what =
        ctx.token === 'SLACK_BOT_TOKEN'
          ? 'the Bot User OAuth Token (xoxb-...) of your Slack app, installed to the workspace'
          : 'an app-level token (xapp-...) with connections:write of the same Slack app';
      return new SlackStartError(
        'token_rejected',
        `Slack rejected ${ctx.token} (${answer}): set it to ${what}; a Slack app created from manifest.yml is needed (${CREATE_APP}).`,
        { cause: error },
      );
    }
    return new SlackStartError(
      'slack_error',
      `Slack answered "${answer}" when platdesk checked ${ctx.token}: check the Slack app and its tokens (${CREATE_APP}).`,
      { cause: error },
    );
  }
  if (code === webApi.ErrorCode.HTTPError) {
    const status = (error as webApi.WebAPIHTTPError).statusCode;
    return new SlackStartError(
      'unreachable',
      `Slack at ${host} answered HTTP ${status}: check the network, proxy and Slack's status${where}.`,
      { cause: error },
    );
  }
  if (code === webApi.ErrorCode.RequestError) {
    return new SlackStartError(
      'unreachable',
      `Slack cannot be reached at ${host} (${rootCause(error)}): check the network connection, DNS and any proxy or firewall${where}.`,
      { cause: error },
    );
  }
  return new SlackStartError(
    'slack_error',
    `Slack could not be used with ${ctx.token} (${rootCause(error)}): check the Slack app and its tokens (${CREATE_APP}).`,
    { cause: error },
  );
}

/** The Socket Mode WebSocket failed before Slack said hello (refused, reset, TLS, proxy). */
export function socketModeFailure(error: unknown): SlackStartError {
  return new SlackStartError(
    'socket_failed',
    // The WebSocket's error event (scripts/build/ws-socket-entry.cjs) carries the cause (connect
    // ECONNREFUSED …, Unexpected server response: 401); a bare error gets the words below.
    `The Socket Mode connection to Slack failed (${rootCause(error) || 'the WebSocket could not be opened'}): check that outgoing WebSocket (wss) connections to Slack are allowed, or use HTTP mode without SLACK_APP_TOKEN.`,
    { cause: error },
  );
}

/** web-api's retry warnings are expected while checking: keep them at debug, with the cause. */
function quietLogger(logger: Logger): BoltLogger {
  const child = logger.child({ component: 'slack-start-check' });
  const line = (...msg: unknown[]) => child.debug(withoutPayload(msg.map(String).join(' ')));
  return {
    debug: line,
    info: line,
    warn: line,
    error: line,
    setLevel: () => {},
    getLevel: () => LogLevel.DEBUG,
    setName: () => {},
  };
}

/**
 * auth.test with the bot token, before anything else starts. Returns the ids Bolt needs so it
 * does not call auth.test again itself (its own call's failure would be an unhandled rejection).
 * Two quick retries cover a network blip without keeping an operator waiting.
 */
export async function checkBotToken(opts: {
  token: string;
  apiUrl: string | null;
  logger: Logger;
}): Promise<{ botId?: string; botUserId?: string }> {
  const client = new webApi.WebClient(
    opts.token,
    slackClientOptions({
      ...(opts.apiUrl ? { slackApiUrl: opts.apiUrl } : {}),
      logger: quietLogger(opts.logger),
      retryConfig: { retries: 2, factor: 2, minTimeout: 500 },
    }),
  );
  try {
    const result = await client.auth.test();
    return {
      ...(result.bot_id ? { botId: result.bot_id } : {}),
      ...(result.user_id ? { botUserId: result.user_id } : {}),
    };
  } catch (error) {
    throw explainSlackStartFailure(error, { token: 'SLACK_BOT_TOKEN', apiUrl: opts.apiUrl });
  }
}

/** An error of a Slack Web API call (@slack/web-api codes start with slack_webapi_). */
export function isSlackApiError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('slack_webapi_');
}
