/**
 * A refusal for a button in the App Home. Slack sends no response_url for a click in a view
 * (it does only for messages), so Bolt's `respond` does not exist there: the person is told by a
 * direct message from platdesk (its Messages tab, beside the Home), and their Home is published
 * again, so admin controls they may no longer use disappear.
 * https://docs.slack.dev/reference/interaction-payloads/block_actions-payload
 */
import type { WebClient } from '@slack/web-api';
import type { SlackDeps } from '../deps.js';
import { sendPrivately } from '../private-reply.js';
import { publishHome } from './publish.js';

export async function refuseFromHome(
  deps: SlackDeps,
  client: WebClient,
  userId: string,
  text: string,
): Promise<void> {
  await sendPrivately(client, { userId, channelId: null }, { text }, deps.logger);
  await publishHome(deps, client, userId).catch((err: unknown) =>
    deps.logger.warn({ err }, 'could not publish the Home again after a refusal'),
  );
}
