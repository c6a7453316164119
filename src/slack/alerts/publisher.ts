/**
 * The alert layer's AlertPublisher on Slack's Web API: alerts, updates and the failure notice in
 * the subscription's channel (in the channel's language), reminders by DM to the claimer (in
 * theirs) or in the channel, approval requests and orphaned posts to each admin.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { costOf } from '../../alerts/cost.js';
import type { AlertPublisher } from '../../alerts/types.js';
import {
  renderAlert,
  renderAlertApproval,
  renderAlertFailure,
  renderAlertReminder,
  renderAlertUnverified,
} from '../../blocks/alerts.js';
import type { RenderedMessage } from '../../blocks/kit.js';
import { alertPostKey } from '../../digest/posted-once.js';
import type { AdminAlerts } from '../admin-alerts.js';
import type { LocaleResolver } from '../locale-resolver.js';
import {
  createAdminMessenger,
  createKeyedPosts,
  type HistoryReads,
  postMessage,
} from '../scheduled-posts.js';

export interface SlackAlertPublisherDeps {
  client: WebClient;
  alerts: AdminAlerts;
  language: Pick<LocaleResolver, 'user' | 'channel'>;
  admins: () => Promise<readonly string[]>;
  logger: Pick<Logger, 'warn' | 'error'>;
  /** Past this an alert's post is unknown (default KEYED_POST_TIMEOUT_MS). */
  postTimeoutMs?: number;
  /** How the channel's history is read (default Slack's normal tier; scheduled-posts.ts). */
  reads?: HistoryReads;
}

export function createSlackAlertPublisher(deps: SlackAlertPublisherDeps): AlertPublisher {
  const { client, logger } = deps;
  const words = (channelId: string) => deps.language.channel(channelId);

  const post = (channel: string, m: RenderedMessage): Promise<string> => postMessage(client, channel, m);
  const keyed = createKeyedPosts({
    client,
    ...(deps.postTimeoutMs !== undefined ? { timeoutMs: deps.postTimeoutMs } : {}),
    ...(deps.reads ? { reads: deps.reads } : {}),
  });

  const toAdmins = createAdminMessenger({
    client,
    admins: deps.admins,
    language: deps.language,
    logger,
    what: 'alert message',
  });

  return {
    postAlert: async (sub, check, orders, at, deferred, options = {}) =>
      keyed.post(
        sub.channelId,
        renderAlert(await words(sub.channelId), sub, orders, at, deferred, costOf(check)),
        alertPostKey(check),
        options.fence,
      ),
    findAlert: async (sub, check, options = {}) =>
      (await keyed.find(sub.channelId, alertPostKey(check), options.progress))?.ts ?? null,
    async updateAlert(sub, ts, orders, at, cost) {
      const m = renderAlert(await words(sub.channelId), sub, orders, at, 0, cost);
      await client.chat.update({ channel: sub.channelId, ts, text: m.text, blocks: m.blocks });
    },
    async remind(sub, order, at) {
      // The claimer's DM in their language; unclaimed, the channel in its own.
      const to = order.claimedBy ?? sub.channelId;
      const w = order.claimedBy ? await deps.language.user(order.claimedBy) : await words(sub.channelId);
      await post(to, renderAlertReminder(w, sub, order, at));
    },
    async postFailure(sub, failure, replaceTs) {
      const w = await words(sub.channelId);
      const m = renderAlertFailure(w, sub, failure);
      if (replaceTs !== null) {
        await client.chat.update({ channel: sub.channelId, ts: replaceTs, text: m.text, blocks: m.blocks });
        return replaceTs;
      }
      // Token refused or balance gone: the admins hear it once through AdminAlerts too.
      if (!failure.resolved) await deps.alerts.notifyIfAccountError(failure.error, { userId: null });
      return post(sub.channelId, m);
    },
    askApproval: (request) => toAdmins((w) => renderAlertApproval(w, request)),
    alertUnverified: (sub, check, reason) => toAdmins((w) => renderAlertUnverified(w, sub, check, reason)),
  };
}
