/**
 * Payload factories for what Slack sends to the app, with fixed ids (CONVENTIONS.md item 10, after
 * bolt-js `test/unit/helpers`). Shapes follow Slack's docs and Bolt 5's own types, so a payload that
 * compiles here is one Bolt routes: slash commands https://docs.slack.dev/interactivity/implementing-slash-commands,
 * interactive payloads https://docs.slack.dev/reference/interaction-payloads, Events API envelopes
 * https://docs.slack.dev/apis/events-api/#callback-field.
 *
 * Send them with `test/helpers/slack-http.ts` (signed HTTP) or hand them to `app.processEvent`.
 */
import { createHash } from 'node:crypto';
import type {
  BlockAction,
  ButtonAction,
  EnvelopedEvent,
  GlobalShortcut,
  MessageShortcut,
  SlashCommand,
  ViewOutput,
  ViewStateValue,
  ViewSubmitAction,
} from '@slack/bolt';

/** The fixed ids every Slack test uses; the fake Web API server answers with the same ones. */
export const SLACK = {
  teamId: 'T1234',
  teamDomain: 'platdesk-test',
  apiAppId: 'A1234',
  /** The deprecated verification token Slack still sends in payloads (Bolt ignores it). */
  token: 'verification-token',
  userId: 'U1234',
  userName: 'agent',
  secondUserId: 'U5678',
  secondUserName: 'agent2',
  adminId: 'UADMIN',
  adminName: 'admin',
  channelId: 'C1234',
  channelName: 'support',
  /** The app's DM channel with a user (App Home "messages" tab). */
  imChannelId: 'D1234',
  botUserId: 'UBOT',
  botId: 'BBOT',
  triggerId: '1337.42.7f2c1a0e9b8d4c3f',
  actionTs: '1700000001.000200',
  messageTs: '1700000000.000100',
  eventTime: 1_700_000_000,
} as const;

const userNames: Record<string, string> = {
  [SLACK.userId]: SLACK.userName,
  [SLACK.secondUserId]: SLACK.secondUserName,
  [SLACK.adminId]: SLACK.adminName,
};

/** The user name Slack would send for one of the fixed user ids (`user-<id>` for any other id). */
export function userNameOf(userId: string): string {
  return userNames[userId] ?? `user-${userId.toLowerCase()}`;
}

const team = { id: SLACK.teamId, domain: SLACK.teamDomain };

// ---------------------------------------------------------------------------------------------
// Slash commands: a form-encoded body (every field a string)

export interface SlashCommandInput {
  command: string;
  text?: string;
  userId?: string;
  channelId?: string;
  channelName?: string;
  /** A URL on the fake Slack server: `fake.responseUrl()`. */
  responseUrl: string;
  triggerId?: string;
  /** The workspace (default SLACK.teamId): another tenant's, or a forged one. */
  teamId?: string;
}

export function slashCommand(input: SlashCommandInput): SlashCommand {
  const userId = input.userId ?? SLACK.userId;
  const channelId = input.channelId ?? SLACK.channelId;
  return {
    token: SLACK.token,
    team_id: input.teamId ?? SLACK.teamId,
    team_domain: SLACK.teamDomain,
    channel_id: channelId,
    channel_name: input.channelName ?? (channelId === SLACK.channelId ? SLACK.channelName : 'directmessage'),
    user_id: userId,
    user_name: userNameOf(userId),
    command: input.command,
    text: input.text ?? '',
    api_app_id: SLACK.apiAppId,
    is_enterprise_install: 'false',
    response_url: input.responseUrl,
    trigger_id: input.triggerId ?? SLACK.triggerId,
  };
}

// ---------------------------------------------------------------------------------------------
// Interactive payloads: Slack posts them form-encoded as `payload=<json>` (see slack-http.ts)

export interface BlockActionInput {
  actionId: string;
  value?: string;
  blockId?: string;
  userId?: string;
  channelId?: string;
  responseUrl: string;
  /** ts of the message holding the button; for an ephemeral message Slack sends its own ts. */
  messageTs?: string;
  /** Defaults to `{ type: 'message', message_ts, channel_id, is_ephemeral }`. */
  container?: Record<string, unknown>;
  /** Ephemeral messages (our confirmations) come without `message`; defaults to true. */
  isEphemeral?: boolean;
  /** Button label; Slack echoes it back. */
  text?: string;
  /** Differs per click: two clicks on one button arrive with two action_ts values. */
  actionTs?: string;
  triggerId?: string;
  /** The workspace (default SLACK.teamId). */
  teamId?: string;
}

/**
 * A button clicked in a view (the App Home or a modal): Slack sends the view and a `view`
 * container, but no channel and no response_url, which exist only for messages
 * (https://docs.slack.dev/reference/interaction-payloads/block_actions-payload).
 */
export function viewBlockAction(input: {
  actionId: string;
  value?: string;
  surface: 'home' | 'modal';
  userId?: string;
  actionTs?: string;
  triggerId?: string;
}): BlockAction<ButtonAction> {
  const userId = input.userId ?? SLACK.userId;
  const viewId = input.surface === 'home' ? 'VHOME0001' : 'V0001';
  const {
    response_url: _noResponseUrl,
    channel: _noChannel,
    ...payload
  } = blockAction({
    actionId: input.actionId,
    ...(input.value !== undefined ? { value: input.value } : {}),
    userId,
    responseUrl: '',
    container: { type: 'view', view_id: viewId },
    ...(input.actionTs ? { actionTs: input.actionTs } : {}),
    ...(input.triggerId ? { triggerId: input.triggerId } : {}),
  });
  const view = {
    ...viewSubmission({ callbackId: '', userId, viewId }).view,
    type: input.surface,
  };
  // Bolt's type declares response_url always present; Slack leaves it out for views.
  return { ...payload, view } as unknown as BlockAction<ButtonAction>;
}

export function blockAction(input: BlockActionInput): BlockAction<ButtonAction> {
  const userId = input.userId ?? SLACK.userId;
  const channelId = input.channelId ?? SLACK.channelId;
  const messageTs = input.messageTs ?? SLACK.messageTs;
  const isEphemeral = input.isEphemeral ?? true;
  const action: ButtonAction = {
    type: 'button',
    action_id: input.actionId,
    block_id: input.blockId ?? 'actions',
    text: { type: 'plain_text', text: input.text ?? input.actionId, emoji: true },
    action_ts: input.actionTs ?? SLACK.actionTs,
  };
  if (input.value !== undefined) action.value = input.value;
  const payload: BlockAction<ButtonAction> = {
    type: 'block_actions',
    user: {
      id: userId,
      username: userNameOf(userId),
      name: userNameOf(userId),
      team_id: input.teamId ?? SLACK.teamId,
    },
    api_app_id: SLACK.apiAppId,
    token: SLACK.token,
    container: input.container ?? {
      type: 'message',
      message_ts: messageTs,
      channel_id: channelId,
      is_ephemeral: isEphemeral,
    },
    trigger_id: input.triggerId ?? SLACK.triggerId,
    team: input.teamId ? { id: input.teamId, domain: SLACK.teamDomain } : team,
    is_enterprise_install: false,
    channel: { id: channelId, name: channelId === SLACK.channelId ? SLACK.channelName : 'directmessage' },
    response_url: input.responseUrl,
    actions: [action],
  };
  if (!isEphemeral) {
    // Slack includes the message only when it is not ephemeral.
    payload.message = {
      type: 'message',
      ts: messageTs,
      user: SLACK.botUserId,
      bot_id: SLACK.botId,
      text: '',
    };
  }
  return payload;
}

export interface ViewSubmissionInput {
  callbackId: string;
  privateMetadata?: string;
  /** `view.state.values`: block_id → action_id → value, e.g. `{ b: { a: { type: 'plain_text_input', value: 'x' } } }`. */
  values?: Record<string, Record<string, ViewStateValue>>;
  userId?: string;
  viewId?: string;
  triggerId?: string;
}

export function viewSubmission(input: ViewSubmissionInput): ViewSubmitAction {
  const userId = input.userId ?? SLACK.userId;
  const view: ViewOutput = {
    id: input.viewId ?? 'V0001',
    team_id: SLACK.teamId,
    type: 'modal',
    callback_id: input.callbackId,
    private_metadata: input.privateMetadata ?? '',
    title: { type: 'plain_text', text: 'platdesk', emoji: true },
    close: { type: 'plain_text', text: 'Cancel', emoji: true },
    submit: { type: 'plain_text', text: 'Submit', emoji: true },
    blocks: [],
    state: { values: input.values ?? {} },
    hash: '1700000000.abcdef12',
    clear_on_close: false,
    notify_on_close: false,
    root_view_id: input.viewId ?? 'V0001',
    previous_view_id: null,
    app_id: SLACK.apiAppId,
    app_installed_team_id: SLACK.teamId,
    bot_id: SLACK.botId,
  };
  return {
    type: 'view_submission',
    team,
    user: { id: userId, name: userNameOf(userId), team_id: SLACK.teamId },
    api_app_id: SLACK.apiAppId,
    token: SLACK.token,
    trigger_id: input.triggerId ?? SLACK.triggerId,
    view,
    response_urls: [],
    is_enterprise_install: false,
  };
}

export interface MessageShortcutInput {
  callbackId: string;
  message: {
    text: string;
    ts?: string;
    user?: string;
    blocks?: unknown[];
    attachments?: unknown[];
  };
  userId?: string;
  channelId?: string;
  responseUrl: string;
  triggerId?: string;
}

export function messageShortcut(input: MessageShortcutInput): MessageShortcut {
  const userId = input.userId ?? SLACK.userId;
  const channelId = input.channelId ?? SLACK.channelId;
  const ts = input.message.ts ?? SLACK.messageTs;
  const message: MessageShortcut['message'] = {
    type: 'message',
    ts,
    user: input.message.user ?? SLACK.secondUserId,
    text: input.message.text,
  };
  if (input.message.blocks !== undefined) message.blocks = input.message.blocks;
  if (input.message.attachments !== undefined) message.attachments = input.message.attachments;
  return {
    type: 'message_action',
    token: SLACK.token,
    action_ts: SLACK.actionTs,
    team,
    user: { id: userId, name: userNameOf(userId), username: userNameOf(userId), team_id: SLACK.teamId },
    channel: { id: channelId, name: channelId === SLACK.channelId ? SLACK.channelName : 'directmessage' },
    is_enterprise_install: false,
    callback_id: input.callbackId,
    trigger_id: input.triggerId ?? SLACK.triggerId,
    response_url: input.responseUrl,
    message_ts: ts,
    message,
  };
}

export function globalShortcut(input: {
  callbackId: string;
  userId?: string;
  triggerId?: string;
}): GlobalShortcut {
  const userId = input.userId ?? SLACK.userId;
  return {
    type: 'shortcut',
    token: SLACK.token,
    action_ts: SLACK.actionTs,
    team,
    user: { id: userId, username: userNameOf(userId), team_id: SLACK.teamId },
    is_enterprise_install: false,
    callback_id: input.callbackId,
    trigger_id: input.triggerId ?? SLACK.triggerId,
  };
}

// ---------------------------------------------------------------------------------------------
// Events API: a JSON envelope around the event

export interface EventCallbackOptions {
  /**
   * Defaults to an id derived from the event itself, so the same event gets the same id (as a Slack
   * retry does) and different events get different ids. A retry is NOT marked in the body: Slack
   * sends `x-slack-retry-num` as a header (`postEvent(…, { retryNum })`, or `receiverEvent(…, { retryNum })`).
   */
  eventId?: string;
  eventTime?: number;
}

export function eventCallback<E extends { type: string }>(
  event: E,
  options: EventCallbackOptions = {},
): EnvelopedEvent<E> {
  const eventId =
    options.eventId ??
    `Ev${createHash('sha256').update(JSON.stringify(event)).digest('hex').slice(0, 10).toUpperCase()}`;
  return {
    token: SLACK.token,
    team_id: SLACK.teamId,
    context_team_id: SLACK.teamId,
    api_app_id: SLACK.apiAppId,
    event,
    type: 'event_callback',
    event_id: eventId,
    event_time: options.eventTime ?? SLACK.eventTime,
    authorizations: [
      {
        enterprise_id: null,
        team_id: SLACK.teamId,
        user_id: SLACK.botUserId,
        is_bot: true,
        is_enterprise_install: false,
      },
    ],
    is_ext_shared_channel: false,
  };
}

export interface LinkSharedInput {
  links: { url: string; domain: string }[];
  /**
   * `composer`: the link is still being typed (Slack sends channel `COMPOSER` and a message_ts that is
   * not a real ts); `conversations_history`: the message was posted. `link_shared` fires for both.
   */
  source?: 'composer' | 'conversations_history';
  channel?: string;
  user?: string;
  messageTs?: string;
  unfurlId?: string;
  eventTs?: string;
}

export interface LinkSharedEvent {
  type: 'link_shared';
  channel: string;
  is_bot_user_member: boolean;
  user: string;
  message_ts: string;
  unfurl_id: string;
  thread_ts?: string;
  source: 'composer' | 'conversations_history';
  links: { url: string; domain: string }[];
  event_ts: string;
}

/** The `link_shared` event (wrap it with `eventCallback`). chat.unfurl takes `unfurl_id` + `source`. */
export function linkShared(input: LinkSharedInput): LinkSharedEvent {
  const source = input.source ?? 'conversations_history';
  const user = input.user ?? SLACK.userId;
  const composer = source === 'composer';
  return {
    type: 'link_shared',
    channel: input.channel ?? (composer ? 'COMPOSER' : SLACK.channelId),
    is_bot_user_member: true,
    user,
    message_ts:
      input.messageTs ?? (composer ? `${user}-909b5454-75f8-4ac4-b325-1b40e230bbd8` : SLACK.messageTs),
    unfurl_id: input.unfurlId ?? `C-${user}-909b5454-75f8-4ac4-b325-1b40e230bbd8`,
    source,
    links: input.links,
    event_ts: input.eventTs ?? '1700000000.000300',
  };
}

export interface AppHomeOpenedEvent {
  type: 'app_home_opened';
  user: string;
  channel: string;
  tab: 'home' | 'messages';
  event_ts: string;
}

/** The `app_home_opened` event (wrap it with `eventCallback`). */
export function appHomeOpened(
  userId: string = SLACK.userId,
  tab: 'home' | 'messages' = 'home',
): AppHomeOpenedEvent {
  return {
    type: 'app_home_opened',
    user: userId,
    channel: SLACK.imChannelId,
    tab,
    event_ts: '1700000000.000400',
  };
}

/** A plain user message event (wrap it with `eventCallback`). */
export function messageEvent(input: { text: string; user?: string; channel?: string; ts?: string }) {
  return {
    type: 'message' as const,
    channel: input.channel ?? SLACK.channelId,
    user: input.user ?? SLACK.userId,
    text: input.text,
    ts: input.ts ?? SLACK.messageTs,
    event_ts: input.ts ?? SLACK.messageTs,
    channel_type: 'channel' as const,
  };
}

// ---------------------------------------------------------------------------------------------
// Workflow Builder custom steps (https://docs.slack.dev/reference/events/function_executed)

export interface FunctionExecutedInput {
  callbackId: string;
  inputs: Record<string, unknown>;
  /** The same on every redelivery of one execution. */
  executionId: string;
  workflowExecutionId?: string;
  eventTs?: string;
}

/**
 * A `slack#/types/user_context` input as Slack fills it (the person who started the workflow, or
 * who answered a later step): the id with a secret Slack uses to vouch for it. No builder can type one.
 */
export const userContext = (id: string) => ({ user_context: { id, secret: `ucs-${id.toLowerCase()}` } });

/**
 * `function_executed` (wrap it with `eventCallback`): the step's definition as the manifest
 * declares it, its inputs, the execution's ids and a workflow token (`xwfp-…`) Bolt uses for
 * `functions.completeSuccess` / `completeError`.
 */
export function functionExecuted(input: FunctionExecutedInput) {
  return {
    type: 'function_executed' as const,
    function: {
      id: `Fn${input.callbackId.replace(/_/g, '').toUpperCase().slice(0, 9)}`,
      callback_id: input.callbackId,
      title: input.callbackId,
      description: '',
      type: 'app',
      input_parameters: Object.keys(input.inputs).map((name) => ({
        type: 'string',
        name,
        title: name,
        is_required: false,
      })),
      output_parameters: [],
      app_id: SLACK.apiAppId,
      date_created: 1_700_000_000,
      date_updated: 1_700_000_000,
      date_deleted: 0,
    },
    inputs: input.inputs,
    function_execution_id: input.executionId,
    workflow_execution_id: input.workflowExecutionId ?? 'Wx0700000WF01',
    event_ts: input.eventTs ?? '1700000000.000400',
    bot_access_token: 'xwfp-test-token',
  };
}

// ---------------------------------------------------------------------------------------------
// Work Objects (https://docs.slack.dev/messaging/work-objects-overview)

/** `entity_details_requested`: someone opened a Work Object's details panel (wrap it with `eventCallback`). */
export function entityDetailsRequested(input: {
  entityUrl: string;
  appUnfurlUrl?: string;
  externalId?: string;
  user?: string;
  triggerId?: string;
}) {
  return {
    type: 'entity_details_requested' as const,
    user: input.user ?? SLACK.userId,
    trigger_id: input.triggerId ?? '10000000001.1000000001.entitytrigger',
    link: { url: input.appUnfurlUrl ?? input.entityUrl, domain: new URL(input.entityUrl).hostname },
    entity_url: input.entityUrl,
    ...(input.appUnfurlUrl ? { app_unfurl_url: input.appUnfurlUrl } : {}),
    user_locale: 'en-US',
    event_ts: '1700000000.000500',
    ...(input.externalId ? { external_ref: { id: input.externalId, type: 'item' } } : {}),
    channel: SLACK.channelId,
    message_ts: SLACK.messageTs,
  };
}

/**
 * A click on an action button of a Work Object's details panel: a block_actions payload whose
 * container is the entity, with no channel and no response_url (no message holds the button).
 */
export function entityAction(input: {
  actionId: string;
  value: string;
  userId?: string;
  actionTs?: string;
  /** The click's own trigger, tied to the entity (FakeSlack.entityTrigger). */
  triggerId?: string;
}) {
  const payload = blockAction({
    actionId: input.actionId,
    value: input.value,
    responseUrl: '',
    ...(input.userId ? { userId: input.userId } : {}),
    ...(input.actionTs ? { actionTs: input.actionTs } : {}),
    ...(input.triggerId ? { triggerId: input.triggerId } : {}),
    container: { type: 'entity_detail' },
  }) as unknown as Record<string, unknown>;
  delete payload.response_url;
  delete payload.channel;
  return payload;
}
