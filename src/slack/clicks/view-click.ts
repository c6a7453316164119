/**
 * The one registration for clicks in a view: the App Home and modals. Slack sends such a click
 * with the view but with no channel and no response_url, which exist only for messages
 * (https://docs.slack.dev/reference/interaction-payloads/block_actions-payload), so Bolt's
 * `respond` cannot work there. A handler registered here gets a context without `respond` (calling
 * it does not compile) that offers what a view can answer with: a private message to the clicker
 * (a direct message from platdesk, which Slack shows in the app's Messages tab beside the Home:
 * chat.postMessage to the user id, https://docs.slack.dev/surfaces/app-home), the Home published
 * again, a modal opened. Admin buttons say so (`adminOnly`): anyone else is refused privately and
 * clearly, and their Home is published again so the buttons they may not use disappear.
 * Redeliveries are dropped first (redelivery.ts).
 */
import type { App, BlockAction, BlockElementAction, ButtonAction, ViewOutput } from '@slack/bolt';
import type { ModalView } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import { renderAdminOnlyButton } from '../../blocks/admin-only.js';
import type { Words } from '../../blocks/i18n/words.js';
import type { RenderedMessage } from '../../blocks/kit.js';
import { ackFirst } from '../ack.js';
import type { SlackDeps } from '../deps.js';
import { publishHome } from '../home/publish.js';
import { sendPrivately } from '../private-reply.js';
import { firstDelivery } from './redelivery.js';
import { recordClickRegistration } from './registry.js';

/** What a handler of a click in a view is given. There is no `respond`: a view has no response_url. */
export interface ViewClick<A extends BlockElementAction = ButtonAction> {
  readonly action: A;
  readonly userId: string;
  readonly teamId: string | null;
  readonly triggerId: string;
  /** Where the button was: the App Home or a modal. */
  readonly surface: 'home' | 'modal';
  /** The view holding the element, as Slack sent it (id, hash, state, private_metadata). */
  readonly view: ViewOutput | null;
  readonly client: WebClient;
  /** The clicker's words (their language). */
  words(): Promise<Words>;
  /** A message to the clicker alone (a direct message from platdesk); true when Slack took it. */
  tell(message: RenderedMessage | { text: string }): Promise<boolean>;
  /** Publishes the clicker's App Home again (after a change, or to take away stale buttons). */
  republishHome(): Promise<void>;
  /** Tells the clicker why nothing was done; on the Home, publishes it again too. */
  refuse(text: string): Promise<void>;
  /** Opens a modal on top of the view (views.open with the click's trigger_id). */
  openModal(view: ModalView): Promise<void>;
}

export interface ViewClickOptions {
  /** Only platdesk admins may use it: checked on every click, never trusted from the view. */
  adminOnly?: boolean;
}

type ViewClickBody<A extends BlockElementAction> = Omit<BlockAction<A>, 'response_url'> & {
  response_url?: string;
};

export function onViewClick<A extends BlockElementAction = ButtonAction>(
  app: App,
  deps: SlackDeps,
  actionId: string | RegExp,
  handler: (click: ViewClick<A>) => Promise<void>,
  options: ViewClickOptions = {},
): void {
  recordClickRegistration(app, 'view', actionId);
  app.action<BlockAction<A>>(actionId, async ({ ack, action, body: sent, client }) => {
    await ackFirst(ack);
    // Bolt types response_url as always there; Slack leaves it out for views.
    const body = sent as ViewClickBody<A>;
    if (!(await firstDelivery(deps.store, body))) {
      deps.logger.info({ actionId: action.action_id }, 'click delivered again by Slack: dropped');
      return;
    }
    const click = viewClick(deps, client, action, body);
    if (options.adminOnly && !(await deps.isAdmin(click.userId))) {
      const refusal = renderAdminOnlyButton(await click.words(), await deps.admins());
      await click.tell(refusal);
      if (click.surface === 'home') await click.republishHome();
      return;
    }
    await handler(click);
  });
}

function viewClick<A extends BlockElementAction>(
  deps: SlackDeps,
  client: WebClient,
  action: A,
  body: ViewClickBody<A>,
): ViewClick<A> {
  const userId = body.user.id;
  const surface = body.view?.type === 'home' ? 'home' : 'modal';
  const click: ViewClick<A> = {
    action,
    userId,
    teamId: body.team?.id ?? null,
    triggerId: body.trigger_id,
    surface,
    view: body.view ?? null,
    client,
    words: () => deps.language.user(userId),
    tell: (message) => sendPrivately(client, { userId, channelId: null }, message, deps.logger),
    republishHome: () =>
      publishHome(deps, client, userId).catch((err: unknown) =>
        deps.logger.warn({ err }, 'could not publish the Home again'),
      ),
    async refuse(text) {
      await click.tell({ text });
      if (surface === 'home') await click.republishHome();
    },
    async openModal(view) {
      await client.views.open({ trigger_id: body.trigger_id, view });
    },
  };
  return click;
}
