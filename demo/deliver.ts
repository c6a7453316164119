/**
 * What the stand-in sends the app when a person acts on the page: the payload factories of
 * test/helpers/slack-payloads.ts, signed and posted by test/helpers/slack-http.ts, exactly as the
 * tests (and Slack) send them. Only the parts Slack fills from the real message or view (its
 * blocks, the chosen option, the view's state) are added here.
 */
import { randomUUID } from 'node:crypto';
import { postAction, postCommand, postEvent } from '../test/helpers/slack-http.js';
import {
  appHomeOpened,
  blockAction,
  entityAction,
  entityDetailsRequested,
  eventCallback,
  globalShortcut,
  linkShared,
  messageShortcut,
  SLACK,
  slashCommand,
  viewBlockAction,
  viewSubmission,
} from '../test/helpers/slack-payloads.js';
import { DM, type World } from './world.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The slash commands of manifest.yml. */
export const COMMANDS = ['/item', '/shop', '/waybill', '/orders', '/platdesk'] as const;
/** manifest.yml `unfurl_domains`: links to these arrive as `link_shared`. */
const UNFURL_DOMAINS = [
  'item.taobao.com',
  'detail.tmall.com',
  'mobile.yangkeduo.com',
  'h5.m.taobao.com',
  'm.tb.cn',
];

/**
 * What a person did to an interactive element, as the page reports it: a button's value and label,
 * or the element's new state in Slack's shape (`selected_option` with its text object,
 * `selected_options`, `value`…).
 */
export interface ElementAction {
  type: string;
  action_id: string;
  block_id: string;
  value?: string;
  text?: string;
  [state: string]: unknown;
}

export interface Delivery {
  status: number;
  body: string;
}

let actionSeq = 0;
const nextActionTs = () => `${Math.floor(Date.now() / 1000)}.${String(++actionSeq).padStart(6, '0')}`;

const plain = (text: string) => ({ type: 'plain_text', text, emoji: true });

/** The action as Slack reports it: a button's label and value, any other element's new state. */
function slackAction(a: ElementAction, actionTs: string): Json {
  const { type, action_id, block_id, text, ...state } = a;
  const base: Json = { type, action_id, block_id, action_ts: actionTs };
  if (type === 'button') {
    base.text = plain(text ?? '');
    if (a.value !== undefined) base.value = a.value;
    return base;
  }
  return { ...base, ...state };
}

/** The view as Slack sends it back in an interaction payload: with its id, hash and state. */
function viewPayload(world: World, viewId: string, values: Json): Json | null {
  const v = world.view(viewId);
  if (!v) return null;
  return {
    ...v.view,
    id: v.id,
    team_id: SLACK.teamId,
    app_id: SLACK.apiAppId,
    bot_id: SLACK.botId,
    hash: `1700000000.${v.id}`,
    state: { values },
    private_metadata: typeof v.view.private_metadata === 'string' ? v.view.private_metadata : '',
    callback_id: typeof v.view.callback_id === 'string' ? v.view.callback_id : '',
    root_view_id: v.id,
    previous_view_id: null,
    app_installed_team_id: SLACK.teamId,
  };
}

export interface Deliverer {
  command(channel: string, line: string, threadTs?: string): Promise<Delivery>;
  message(channel: string, text: string): Promise<void>;
  clickInMessage(channel: string, ts: string, action: ElementAction): Promise<Delivery>;
  clickInView(viewId: string, action: ElementAction, values: Json): Promise<Delivery>;
  submit(viewId: string, values: Json): Promise<Delivery>;
  messageShortcut(channel: string, ts: string, callbackId: string): Promise<Delivery>;
  globalShortcut(callbackId: string): Promise<Delivery>;
  openHome(): Promise<Delivery>;
  /** A Work Object's card opened: `entity_details_requested`, with a trigger tied to the entity. */
  openEntity(place: { channel: string; ts: string; url: string }, entity: Json): Promise<Delivery>;
  /** A click on an action of the details panel (its own trigger, tied to the entity). */
  entityAction(entityId: string, action: { action_id: string; value: string }): Promise<Delivery>;
}

export function createDeliverer(
  world: World,
  eventsUrl: string,
  signingSecret: string,
  /** A trigger Slack issues for a Work Object (FakeSlack.entityTrigger). */
  entityTrigger: (entityId: string) => string,
): Deliverer {
  const send = async (r: Promise<{ status: number; body: string }>): Promise<Delivery> => {
    const { status, body } = await r;
    return { status, body };
  };
  /** An ack with a body is the app's immediate answer (Slack shows it to the person). */
  const showAck = (channel: string, delivery: Delivery) => {
    if (delivery.body.trim() === '') return;
    let message: Json = { text: delivery.body };
    try {
      const parsed: unknown = JSON.parse(delivery.body);
      if (isObject(parsed)) message = parsed;
    } catch {
      // a plain-text ack is shown as sent
    }
    if (typeof message.text === 'string' || Array.isArray(message.blocks))
      world.addEphemeral(channel, message);
  };

  return {
    async command(channel, line, threadTs) {
      const name = line.trim().split(/\s+/)[0] ?? '';
      world.addUserMessage(channel, line.trim(), { command: true });
      const payload = slashCommand({
        command: name,
        text: line.trim().slice(name.length).trim(),
        channelId: channel,
        responseUrl: world.responseUrl({ channel, sourceTs: null, threadTs: threadTs ?? null }),
        triggerId: randomUUID(),
      });
      const delivery = await send(postCommand(eventsUrl, signingSecret, payload));
      showAck(channel, delivery);
      return delivery;
    },
    async message(channel, text) {
      const ts = world.addUserMessage(channel, text);
      const links = [...text.matchAll(/https?:\/\/[^\s<>]+/g)]
        .map((m) => m[0])
        .map((url) => ({ url, domain: new URL(url).hostname }))
        .filter((l) => UNFURL_DOMAINS.includes(l.domain));
      if (links.length === 0) return;
      const unfurlId = `C-${SLACK.userId}-${randomUUID()}`;
      world.expectUnfurl(unfurlId, channel, ts);
      const event = linkShared({ links, channel, messageTs: ts, unfurlId, eventTs: ts });
      await postEvent(eventsUrl, signingSecret, eventCallback(event, { eventId: `Ev${randomUUID()}` }));
    },
    async clickInMessage(channel, ts, action) {
      const message = world.message(channel, ts);
      if (!message) return { status: 404, body: 'no such message' };
      const actionTs = nextActionTs();
      const payload = blockAction({
        actionId: action.action_id,
        blockId: action.block_id,
        channelId: channel,
        messageTs: ts,
        isEphemeral: message.ephemeral,
        responseUrl: world.responseUrl({ channel, sourceTs: ts, threadTs: message.threadTs }),
        actionTs,
        triggerId: randomUUID(),
      }) as unknown as Json;
      payload.actions = [slackAction(action, actionTs)];
      if (channel === DM) payload.channel = { id: DM, name: 'directmessage' };
      if (!message.ephemeral)
        payload.message = {
          type: 'message',
          ts,
          user: SLACK.botUserId,
          bot_id: SLACK.botId,
          text: message.text,
          blocks: message.blocks,
          ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
        };
      const delivery = await send(postAction(eventsUrl, signingSecret, payload));
      showAck(channel, delivery);
      return delivery;
    },
    async clickInView(viewId, action, values) {
      const view = viewPayload(world, viewId, values);
      if (!view) return { status: 404, body: 'no such view' };
      const actionTs = nextActionTs();
      const payload = viewBlockAction({
        actionId: action.action_id,
        surface: view.type === 'home' ? 'home' : 'modal',
        actionTs,
        triggerId: randomUUID(),
      }) as unknown as Json;
      payload.actions = [slackAction(action, actionTs)];
      payload.container = { type: 'view', view_id: viewId };
      payload.view = view;
      return send(postAction(eventsUrl, signingSecret, payload));
    },
    async submit(viewId, values) {
      const view = viewPayload(world, viewId, values);
      if (!view) return { status: 404, body: 'no such view' };
      const payload = viewSubmission({
        callbackId: String(view.callback_id),
        privateMetadata: String(view.private_metadata),
        viewId,
        triggerId: randomUUID(),
      }) as unknown as Json;
      payload.view = view;
      const delivery = await send(postAction(eventsUrl, signingSecret, payload));
      let ack: Json | null = null;
      try {
        const parsed: unknown = delivery.body === '' ? null : JSON.parse(delivery.body);
        if (isObject(parsed)) ack = parsed;
      } catch {
        // an empty or non-JSON ack closes the view
      }
      if (delivery.status === 200) world.afterSubmit(viewId, ack);
      return delivery;
    },
    async messageShortcut(channel, ts, callbackId) {
      const message = world.message(channel, ts);
      if (!message) return { status: 404, body: 'no such message' };
      const payload = messageShortcut({
        callbackId,
        channelId: channel,
        message: {
          text: message.text,
          ts,
          user: message.author === 'you' ? SLACK.userId : SLACK.botUserId,
          ...(message.blocks.length > 0 ? { blocks: message.blocks } : {}),
        },
        responseUrl: world.responseUrl({ channel, sourceTs: null, threadTs: message.threadTs }),
        triggerId: randomUUID(),
      });
      if (channel === DM) payload.channel = { id: DM, name: 'directmessage' };
      return send(postAction(eventsUrl, signingSecret, payload));
    },
    globalShortcut: (callbackId) =>
      send(postAction(eventsUrl, signingSecret, globalShortcut({ callbackId, triggerId: randomUUID() }))),
    openEntity(place, entity) {
      const ref = isObject(entity.external_ref) ? entity.external_ref : {};
      const externalId = typeof ref.id === 'string' ? ref.id : '';
      const entityUrl = typeof entity.url === 'string' ? entity.url : place.url;
      const event = {
        ...entityDetailsRequested({
          entityUrl,
          appUnfurlUrl: place.url,
          externalId,
          triggerId: entityTrigger(externalId),
        }),
        channel: place.channel,
        message_ts: place.ts,
        event_ts: `${Math.floor(Date.now() / 1000)}.000500`,
      };
      return send(
        postEvent(eventsUrl, signingSecret, eventCallback(event, { eventId: `Ev${randomUUID()}` })),
      );
    },
    entityAction(entityId, action) {
      const payload = entityAction({
        actionId: action.action_id,
        value: action.value,
        actionTs: nextActionTs(),
        triggerId: entityTrigger(entityId),
      });
      return send(postAction(eventsUrl, signingSecret, payload));
    },
    openHome: () =>
      send(
        postEvent(
          eventsUrl,
          signingSecret,
          eventCallback(appHomeOpened(SLACK.userId, 'home'), { eventId: `Ev${randomUUID()}` }),
        ),
      ),
  };
}
