/**
 * Distributed mode (issue 24): Slack's OAuth install through @slack/oauth's InstallProvider on
 * platdesk's own HTTP front (`GET /slack/install`, `GET /slack/oauth_redirect`, state checked
 * against a signed cookie), installations kept in platdesk's store (store/installations.ts): the
 * source of Bolt's `authorize` (slack/tenant.ts authorizeFrom, through main.ts) and of each
 * tenant's Web client for work outside a listener (slack/clients.ts).
 *
 * Token rotation: a bot token within REFRESH_BEFORE_MS of its expiry is refreshed under the
 * installation's lock in the store, which reads the row again once held (store/installations.ts
 * refreshUnderLock), so of two replicas refreshing at once one calls `oauth.v2.access` and the
 * other finds the renewed token. Installations are cached in process for CACHE_TTL_MS, so a
 * request costs at most one store read; the cache forgets a tenant at its uninstall and refresh,
 * and when Slack refuses a job's call for its token (slack/clients.ts reads it again then).
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CustomRoute } from '@slack/bolt/dist/receivers/custom-routes.js';
import { InstallProvider } from '@slack/oauth';
import { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import {
  type InstallFailure,
  installedPage,
  installFailedPage,
  installRefusedPage,
} from '../blocks/install-page.js';
import type { DistributionConfig } from '../config.js';
import { LruMap } from '../lru-map.js';
import { recordOf } from '../store/installations.js';
import type { InstallationRecord, Installations, NewInstallation } from '../store/store.js';
import { boltLogger } from './bolt-logger.js';
import { installedSlackClients, type SlackClients } from './clients.js';
import { slackClientOptions } from './web-fetch.js';

/** Refresh a rotating bot token this long before it expires. */
export const REFRESH_BEFORE_MS = 10 * 60_000;
/** How long an installation read from the store serves requests in this process. */
export const CACHE_TTL_MS = 30_000;
/** Installations kept in that cache at most, least recently used let go first. */
export const INSTALLATIONS_KEPT = 2_000;

/**
 * The bot scopes platdesk asks for (manifest.yml's; docs/workspaces.md says why each).
 */
export const BOT_SCOPES = [
  'commands',
  'chat:write',
  'im:write',
  'files:write',
  'links:read',
  'links:write',
  'usergroups:read',
  'users:read',
  'channels:history',
  'groups:history',
  'im:history',
  // The agent (issue 36): the Messages tab's threads and mentions.
  'assistant:write',
  'app_mentions:read',
];

export const INSTALL_PATH = '/slack/install';
export const REDIRECT_PATH = '/slack/oauth_redirect';

export interface SlackInstallsOptions {
  distribution: DistributionConfig;
  installations: Installations;
  /** SLACK_API_URL, for a local Slack-compatible server. */
  apiUrl: string | null;
  logger: Logger;
  /** Milliseconds since the epoch (the store's clock). */
  nowMs: () => number;
  /** After a successful install (first admin, adopting single-workspace data…). */
  onInstalled(record: NewInstallation): Promise<void>;
  refreshBeforeMs?: number;
  cacheTtlMs?: number;
}

export interface SlackInstalls {
  /** The install and redirect routes, for the HTTP receiver. */
  routes: CustomRoute[];
  /** Each tenant's bot client for jobs: every call reads its installation's current token (clients.ts). */
  clients: SlackClients;
  /** The tenant's installation (cached), refreshed when due; null when it has none. */
  installation(tenant: string): Promise<InstallationRecord | null>;
  /** Forgets a tenant's cached installation (after its uninstall). */
  forget(tenant: string): void;
  /** Store reads made for installations (the bench counts them). */
  readonly reads: number;
  /** The app's credentials (apps.uninstall takes them). */
  readonly clientId: string;
  readonly clientSecret: string;
}

/** Whether PLATDESK_INSTALL_ALLOW lets this workspace (or its org) install; null: anyone may. */
export function installAllowed(
  allow: readonly string[] | null,
  install: { tenant: string; teamId: string | null; enterpriseId: string | null },
): boolean {
  if (allow === null) return true;
  return [install.tenant, install.teamId, install.enterpriseId].some(
    (id) => id !== null && allow.includes(id),
  );
}

export function createSlackInstalls(options: SlackInstallsOptions): SlackInstalls {
  const { distribution, installations, logger } = options;
  const refreshBeforeMs = options.refreshBeforeMs ?? REFRESH_BEFORE_MS;
  const cacheTtlMs = options.cacheTtlMs ?? CACHE_TTL_MS;
  const clientOptions = slackClientOptions(options.apiUrl ? { slackApiUrl: options.apiUrl } : {});
  const noToken = new WebClient(undefined, clientOptions);
  // The installations read lately (issue 39: not one for every workspace ever met).
  const cache = new LruMap<string, { record: InstallationRecord; until: number }>(INSTALLATIONS_KEPT);
  const refreshing = new Map<string, Promise<InstallationRecord | null>>();
  let reads = 0;

  const due = (r: InstallationRecord) =>
    r.botRefreshToken !== null &&
    r.botExpiresAt !== null &&
    r.botExpiresAt.getTime() - options.nowMs() <= refreshBeforeMs;

  const refresh = (tenant: string): Promise<InstallationRecord | null> => {
    let running = refreshing.get(tenant);
    if (!running) {
      running = installations
        .refreshUnderLock(tenant, due, async (current) => {
          const answer = await noToken.oauth.v2.access({
            client_id: distribution.clientId,
            client_secret: distribution.clientSecret,
            grant_type: 'refresh_token',
            refresh_token: current.botRefreshToken ?? '',
          });
          if (!answer.access_token || !answer.refresh_token || answer.expires_in === undefined)
            throw new Error('oauth.v2.access answered a refresh without a token, refresh token or expiry');
          logger.info({ tenant }, 'Slack bot token refreshed');
          return {
            token: answer.access_token,
            refreshToken: answer.refresh_token,
            expiresAt: new Date(options.nowMs() + answer.expires_in * 1000),
          };
        })
        .finally(() => refreshing.delete(tenant));
      refreshing.set(tenant, running);
    }
    return running;
  };

  const forget = (tenant: string) => {
    cache.delete(tenant);
  };
  const installation = async (tenant: string): Promise<InstallationRecord | null> => {
    const now = options.nowMs();
    const cached = cache.get(tenant);
    let record = cached && cached.until > now ? cached.record : null;
    if (!record) {
      reads++;
      record = await installations.get(tenant);
      if (!record) {
        cache.delete(tenant);
        return null;
      }
    }
    if (due(record)) {
      record = await refresh(tenant);
      if (!record) {
        cache.delete(tenant);
        return null;
      }
    }
    if (record !== cached?.record) cache.set(tenant, { record, until: options.nowMs() + cacheTtlMs });
    return record;
  };

  const provider = new InstallProvider({
    clientId: distribution.clientId,
    clientSecret: distribution.clientSecret,
    stateSecret: distribution.stateSecret,
    installationStore: installations,
    directInstall: true,
    clientOptions,
    // Never at debug: its WebClient logs each request body there, the client secret and the
    // code of oauth.v2.access included.
    logger: { ...boltLogger(logger), debug: () => {} },
  });
  const page = (res: ServerResponse, status: number, body: string) => {
    res.writeHead(status, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
    });
    res.end(body);
  };
  const failureOf = (code: string | undefined): InstallFailure =>
    code === 'slack_oauth_invalid_state' || code === 'slack_oauth_missing_state'
      ? 'state'
      : code === 'slack_oauth_installer_authorization_error'
        ? 'denied'
        : 'other';
  const installUrlOptions = { scopes: BOT_SCOPES };
  const routes: CustomRoute[] = [
    {
      path: INSTALL_PATH,
      method: ['GET'],
      handler: (req: IncomingMessage, res: ServerResponse) => {
        provider.handleInstallPath(req, res, {}, installUrlOptions).catch((error: unknown) => {
          logger.error({ err: error }, 'the install link failed');
          if (!res.headersSent)
            page(res, 500, installFailedPage({ failure: 'other', installPath: INSTALL_PATH }));
        });
      },
    },
    {
      path: REDIRECT_PATH,
      method: ['GET'],
      handler: (req: IncomingMessage, res: ServerResponse) => {
        void provider.handleCallback(
          req,
          res,
          {
            // After Slack's token exchange, before anything is stored (issue 34, point 1).
            afterInstallation: async (installation, _options, _req, response) => {
              const record = recordOf(installation);
              if (installAllowed(distribution.installAllow, record)) return true;
              logger.warn(
                { teamId: record.teamId, enterpriseId: record.enterpriseId },
                'an install refused: not in PLATDESK_INSTALL_ALLOW',
              );
              // Slack counts the app installed once it gave the token: take it out again.
              await new WebClient(record.botToken, clientOptions).apps
                .uninstall({ client_id: distribution.clientId, client_secret: distribution.clientSecret })
                .catch((err: unknown) => logger.warn({ err }, 'apps.uninstall of a refused install failed'));
              page(response, 403, installRefusedPage());
              return false;
            },
            successAsync: async (installation, _options, _req, response) => {
              const record = recordOf(installation);
              cache.delete(record.tenant);
              try {
                await options.onInstalled(record);
              } catch (error) {
                logger.error({ err: error, tenant: record.tenant }, 'after-install steps failed');
              }
              logger.info(
                { tenant: record.tenant, enterpriseInstall: record.isEnterpriseInstall },
                'platdesk installed',
              );
              const workspace = record.teamName ?? record.enterpriseName ?? record.tenant;
              const slackUrl = record.teamId
                ? `https://slack.com/app_redirect?app=${encodeURIComponent(record.appId ?? '')}&team=${encodeURIComponent(record.teamId)}`
                : 'https://slack.com/';
              page(response, 200, installedPage({ workspace, slackUrl }));
            },
            failure: (error, _options, _req, response) => {
              logger.warn({ code: error.code }, 'a Slack install did not finish');
              page(
                response,
                400,
                installFailedPage({ failure: failureOf(error.code), installPath: INSTALL_PATH }),
              );
            },
          },
          installUrlOptions,
        );
      },
    },
  ];

  return {
    routes,
    installation,
    forget,
    get reads() {
      return reads;
    },
    clientId: distribution.clientId,
    clientSecret: distribution.clientSecret,
    clients: installedSlackClients(
      { tokenOf: async (tenant) => (await installation(tenant))?.botToken ?? null, forget },
      clientOptions,
    ),
  };
}
