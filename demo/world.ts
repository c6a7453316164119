/**
 * What the demo's Slack stand-in shows: the conversations, the open modals and the App Home,
 * built only from the Web API calls and response_url posts the app made (answered here through
 * the fake Slack server's `setResponse`, so every ts and view id the app holds is one we know).
 */
import type { FakeSlack, SlackCall } from '../test/helpers/slack-api-server.js';
import { SLACK } from '../test/helpers/slack-payloads.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export interface DemoMessage {
  ts: string;
  channel: string;
  author: 'you' | 'platdesk';
  /** A slash command line as typed (shown greyed; Slack does not post it). */
  command: boolean;
  text: string;
  blocks: unknown[];
  ephemeral: boolean;
  threadTs: string | null;
  /** The app's chat.unfurl for links in this message. */
  unfurls: { url: string; blocks: unknown[] }[];
}

export interface DemoView {
  id: string;
  view: Json;
  /** Field errors from a `response_action: 'errors'` ack: block_id → message. */
  errors: Record<string, string>;
}

export interface DemoState {
  version: number;
  channels: { id: string; name: string }[];
  messages: DemoMessage[];
  modals: DemoView[];
  home: DemoView | null;
}

/** Where a response_url post lands: its conversation and the message it may replace. */
interface ResponseTarget {
  channel: string;
  /** The clicked message (block_actions, message shortcuts); for a command: its last answer. */
  sourceTs: string | null;
  threadTs: string | null;
}

export const SUPPORT = SLACK.channelId;
export const DM = SLACK.imChannelId;

export interface World {
  state(): DemoState;
  /** Records a person's message (typed text or a slash command line); returns its ts. */
  addUserMessage(channel: string, text: string, options?: { command?: boolean; threadTs?: string }): string;
  /** A message shown only to the person (an ack body, a stand-in notice). */
  addEphemeral(channel: string, message: Json): string;
  message(channel: string, ts: string): DemoMessage | undefined;
  /** A fresh response_url whose posts land in `channel` (replacing `sourceTs` when asked). */
  responseUrl(target: ResponseTarget): string;
  /** Notes which message an unfurl_id belongs to (link_shared → chat.unfurl). */
  expectUnfurl(unfurlId: string, channel: string, ts: string): void;
  view(id: string): DemoView | undefined;
  /** The modal stack after a view_submission ack (`response_action`, or none: close the view). */
  afterSubmit(viewId: string, ack: Json | null): void;
  closeModal(viewId: string): void;
}

export function createWorld(fake: FakeSlack): World {
  let version = 0;
  let tsSeq = 0;
  let viewSeq = 0;
  let urlSeq = 0;
  const messages: DemoMessage[] = [];
  const channelNames = new Map<string, string>([
    [SUPPORT, `#${SLACK.channelName}`],
    [DM, 'platdesk'],
  ]);
  let modals: DemoView[] = [];
  let home: DemoView | null = null;
  const targets = new Map<string, ResponseTarget>();
  const unfurlIds = new Map<string, { channel: string; ts: string }>();
  const changed = () => {
    version += 1;
  };
  const nextTs = () => `${Math.floor(Date.now() / 1000)}.${String(++tsSeq).padStart(6, '0')}`;
  /** The app writes to a person by user id or by the DM's id: both are the DM here. */
  const channelOf = (id: unknown): string => {
    const c = str(id) || SUPPORT;
    if (c === SLACK.userId || c === DM) return DM;
    if (!channelNames.has(c)) channelNames.set(c, c.startsWith('D') ? c : `#${c.toLowerCase()}`);
    return c;
  };
  const find = (channel: string, ts: string) => messages.find((m) => m.channel === channel && m.ts === ts);
  const blocksOf = (body: Json): unknown[] => (Array.isArray(body.blocks) ? body.blocks : []);

  function add(message: Omit<DemoMessage, 'ts' | 'unfurls'>): DemoMessage {
    const full: DemoMessage = { ...message, ts: nextTs(), unfurls: [] };
    messages.push(full);
    changed();
    return full;
  }

  function botMessage(channel: string, body: Json, ephemeral: boolean): DemoMessage {
    const threadTs = str(body.thread_ts);
    return add({
      channel,
      author: 'platdesk',
      command: false,
      text: str(body.text),
      blocks: blocksOf(body),
      ephemeral,
      threadTs: threadTs === '' ? null : threadTs,
    });
  }

  function replace(target: DemoMessage, body: Json): void {
    target.text = str(body.text);
    target.blocks = blocksOf(body);
    changed();
  }

  function remove(target: DemoMessage): void {
    messages.splice(messages.indexOf(target), 1);
    changed();
  }

  const answered = (call: SlackCall, message: DemoMessage) => ({
    channel: call.body.channel,
    ts: message.ts,
    message: {
      type: 'message',
      user: SLACK.botUserId,
      bot_id: SLACK.botId,
      text: message.text,
      ts: message.ts,
    },
  });

  fake.setResponse('chat.postMessage', (call) => {
    const message = botMessage(channelOf(call.body.channel), call.body, false);
    return answered(call, message);
  });
  fake.setResponse('chat.postEphemeral', (call) => ({
    message_ts: botMessage(channelOf(call.body.channel), call.body, true).ts,
  }));
  fake.setResponse('chat.update', (call) => {
    const target = find(channelOf(call.body.channel), str(call.body.ts));
    if (!target) return { ok: false, error: 'message_not_found' };
    replace(target, call.body);
    return answered(call, target);
  });
  fake.setResponse('chat.delete', (call) => {
    const target = find(channelOf(call.body.channel), str(call.body.ts));
    if (!target) return { ok: false, error: 'message_not_found' };
    remove(target);
    return { channel: call.body.channel, ts: call.body.ts };
  });
  fake.setResponse('chat.unfurl', (call) => {
    const byId = unfurlIds.get(str(call.body.unfurl_id));
    const place = byId ?? { channel: channelOf(call.body.channel), ts: str(call.body.ts) };
    const target = find(place.channel, place.ts);
    if (!target) return { ok: false, error: 'cannot_unfurl_message' };
    const unfurls = isObject(call.body.unfurls) ? call.body.unfurls : {};
    for (const [url, unfurl] of Object.entries(unfurls)) {
      const blocks = isObject(unfurl) && Array.isArray(unfurl.blocks) ? unfurl.blocks : [];
      target.unfurls = [...target.unfurls.filter((u) => u.url !== url), { url, blocks }];
    }
    changed();
    return {};
  });

  const newView = (view: Json): DemoView => ({
    id: `VDEMO${String(++viewSeq).padStart(4, '0')}`,
    view,
    errors: {},
  });
  const viewAnswer = (v: DemoView) => ({
    view: {
      ...v.view,
      id: v.id,
      team_id: SLACK.teamId,
      app_id: SLACK.apiAppId,
      bot_id: SLACK.botId,
      hash: `h${version}`,
      state: { values: {} },
      root_view_id: modals[0]?.id ?? v.id,
      previous_view_id: null,
    },
  });
  const viewBody = (call: SlackCall): Json => (isObject(call.body.view) ? call.body.view : {});
  fake.setResponse('views.open', (call) => {
    const v = newView(viewBody(call));
    modals = [v];
    changed();
    return viewAnswer(v);
  });
  fake.setResponse('views.push', (call) => {
    const v = newView(viewBody(call));
    modals = [...modals, v];
    changed();
    return viewAnswer(v);
  });
  fake.setResponse('views.update', (call) => {
    const id = str(call.body.view_id);
    const external = str(call.body.external_id);
    const target =
      (home && home.id === id ? home : undefined) ??
      modals.find((m) => m.id === id || (external !== '' && m.view.external_id === external));
    if (!target) return { ok: false, error: 'not_found' };
    target.view = viewBody(call);
    target.errors = {};
    changed();
    return viewAnswer(target);
  });
  fake.setResponse('views.publish', (call) => {
    home = { id: home?.id ?? 'VHOME0001', view: viewBody(call), errors: {} };
    changed();
    return viewAnswer(home);
  });

  fake.setResponse('response_url', (call) => {
    const target = targets.get(call.id ?? '');
    if (!target) return { ok: false, error: 'expired_url' };
    const body = call.body;
    const source = target.sourceTs ? find(target.channel, target.sourceTs) : undefined;
    if (body.delete_original === true || body.delete_original === 'true') {
      if (source) remove(source);
      return {};
    }
    if ((body.replace_original === true || body.replace_original === 'true') && source) {
      replace(source, body);
      if (body.response_type === 'in_channel') source.ephemeral = false;
      return {};
    }
    const message = botMessage(
      target.channel,
      { ...body, ...(target.threadTs ? { thread_ts: target.threadTs } : {}) },
      body.response_type !== 'in_channel',
    );
    target.sourceTs ??= message.ts;
    return {};
  });

  return {
    state: () => ({
      version,
      channels: [...channelNames].map(([id, name]) => ({ id, name })),
      messages: messages.map((m) => ({ ...m })),
      modals: [...modals],
      home,
    }),
    addUserMessage(channel, text, options = {}) {
      return add({
        channel: channelOf(channel),
        author: 'you',
        command: options.command ?? false,
        text,
        blocks: [],
        ephemeral: options.command ?? false,
        threadTs: options.threadTs ?? null,
      }).ts;
    },
    addEphemeral: (channel, body) => botMessage(channelOf(channel), body, true).ts,
    message: (channel, ts) => find(channelOf(channel), ts),
    responseUrl(target) {
      const id = `demo-${++urlSeq}`;
      targets.set(id, { ...target, channel: channelOf(target.channel) });
      return fake.responseUrl(id);
    },
    expectUnfurl: (unfurlId, channel, ts) =>
      void unfurlIds.set(unfurlId, { channel: channelOf(channel), ts }),
    view: (id) => (home?.id === id ? home : modals.find((m) => m.id === id)),
    afterSubmit(viewId, ack) {
      const index = modals.findIndex((m) => m.id === viewId);
      if (index < 0) return;
      const action = str(ack?.response_action);
      const view = isObject(ack?.view) ? ack.view : null;
      if (action === 'errors') {
        const errors = isObject(ack?.errors) ? ack.errors : {};
        (modals[index] as DemoView).errors = Object.fromEntries(
          Object.entries(errors).map(([k, v]) => [k, String(v)]),
        );
      } else if (action === 'update' && view) modals[index] = { ...newView(view), id: viewId };
      else if (action === 'push' && view) modals = [...modals, newView(view)];
      else if (action === 'clear') modals = [];
      else modals = modals.slice(0, index);
      changed();
    },
    closeModal(viewId) {
      modals = modals.filter((m) => m.id !== viewId);
      changed();
    },
  };
}
