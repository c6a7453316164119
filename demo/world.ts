/**
 * What the demo's Slack stand-in shows: the conversations, the open modals, the App Home and a
 * Work Object's details panel, built only from the Web API calls and response_url posts the app
 * made. Every method keeps the fake Slack server's own answer (its `defaultAnswer`: messages
 * stored with their ts, metadata and threads, files kept, streams followed), so what the app
 * reads back (conversations.history and .replies, a file's bytes) is what the page shows.
 */
import type { FakeSlack, SlackCall, StoredMessage, StreamState } from '../test/helpers/slack-api-server.js';
import { SLACK } from '../test/helpers/slack-payloads.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** A file shared in a message (files.completeUploadExternal with a channel). */
export interface DemoFile {
  id: string;
  name: string;
  title: string;
  mimetype: string;
  size: number;
}

/** A link's unfurl: its message blocks and, where the app sent them, its Work Object entities. */
export interface DemoUnfurl {
  url: string;
  blocks: unknown[];
  entities: Json[];
}

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
  unfurls: DemoUnfurl[];
  files: DemoFile[];
  /** A streamed message (chat.startStream …): its chunks so far, and whether it was stopped. */
  stream: StreamState | null;
  /** Message metadata (chat.postMessage `metadata`): the key a scheduled post carries. */
  metadata: Json | null;
}

export interface DemoView {
  id: string;
  view: Json;
  /** Field errors from a `response_action: 'errors'` ack: block_id → message. */
  errors: Record<string, string>;
}

/** A Work Object's details panel, as entity.presentDetails last filled it. */
export interface DemoPanel {
  entityId: string;
  /** The link whose card was opened, and where: to find the card again. */
  channel: string;
  ts: string;
  url: string;
  metadata: Json | null;
  error: Json | null;
}

export interface DemoState {
  version: number;
  channels: { id: string; name: string }[];
  messages: DemoMessage[];
  modals: DemoView[];
  home: DemoView | null;
  panel: DemoPanel | null;
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
  /** A Work Object's card was opened: the panel is for this entity until closed. */
  openPanel(panel: Omit<DemoPanel, 'metadata' | 'error'>): void;
  closePanel(): void;
}

export function createWorld(fake: FakeSlack): World {
  let version = 0;
  let localSeq = 0;
  let viewSeq = 0;
  let urlSeq = 0;
  const messages: DemoMessage[] = [];
  const channelNames = new Map<string, string>([
    [SUPPORT, `#${SLACK.channelName}`],
    [DM, 'platdesk'],
  ]);
  let modals: DemoView[] = [];
  let home: DemoView | null = null;
  let panel: DemoPanel | null = null;
  const targets = new Map<string, ResponseTarget>();
  const unfurlIds = new Map<string, { channel: string; ts: string }>();
  const changed = () => {
    version += 1;
  };
  /**
   * Messages only the page knows (ephemeral ones, command lines): Slack stores none of them, so
   * their ts comes from here, far above the fake's own sequence so that the two never meet.
   */
  const localTs = () => `${Math.floor(Date.now() / 1000)}.${String(900_000 + ++localSeq)}`;
  /** The app writes to a person by user id or by the DM's id: both are the DM here. */
  const channelOf = (id: unknown): string => {
    const c = str(id) || SUPPORT;
    if (c === SLACK.userId || c === DM) return DM;
    if (!channelNames.has(c)) channelNames.set(c, c.startsWith('D') ? c : `#${c.toLowerCase()}`);
    return c;
  };
  const find = (channel: string, ts: string) => messages.find((m) => m.channel === channel && m.ts === ts);
  const blocksOf = (body: Json): unknown[] => (Array.isArray(body.blocks) ? body.blocks : []);
  const failed = (answer: Json) => answer.ok === false;

  function add(
    message: Omit<DemoMessage, 'unfurls' | 'files' | 'stream' | 'metadata'> & Partial<DemoMessage>,
  ) {
    const full: DemoMessage = { unfurls: [], files: [], stream: null, metadata: null, ...message };
    messages.push(full);
    changed();
    return full;
  }

  function botMessage(channel: string, ts: string, body: Json, ephemeral: boolean): DemoMessage {
    const threadTs = str(body.thread_ts);
    return add({
      ts,
      channel,
      author: 'platdesk',
      command: false,
      text: str(body.text),
      blocks: blocksOf(body),
      ephemeral,
      threadTs: threadTs === '' ? null : threadTs,
      metadata: isObject(body.metadata) ? body.metadata : null,
    });
  }

  /** The page's copy of a message the fake stores, brought up to date (text, blocks, stream). */
  function sync(channel: string, stored: StoredMessage): void {
    const target = find(channel, stored.ts);
    if (!target) return;
    target.text = stored.text;
    target.blocks = Array.isArray(stored.blocks) ? stored.blocks : [];
    target.stream = stored.stream ? structuredClone(stored.stream) : null;
    target.metadata = isObject(stored.metadata) ? stored.metadata : null;
    changed();
  }

  function remove(target: DemoMessage): void {
    messages.splice(messages.indexOf(target), 1);
    changed();
  }

  /** Slack's own answer to the call (the fake's default): the message is stored there too. */
  const slack = (call: SlackCall): Json => fake.defaultAnswer(call);

  fake.setResponse('chat.postMessage', (call) => {
    const answer = slack(call);
    if (!failed(answer)) botMessage(channelOf(call.body.channel), str(answer.ts), call.body, false);
    return answer;
  });
  fake.setResponse('chat.postEphemeral', (call) => ({
    message_ts: botMessage(channelOf(call.body.channel), localTs(), call.body, true).ts,
  }));
  fake.setResponse('chat.update', (call) => {
    const channel = channelOf(call.body.channel);
    const target = find(channel, str(call.body.ts));
    if (!target) return { ok: false, error: 'message_not_found' };
    const answer = slack(call);
    if (failed(answer)) return answer;
    target.text = str(call.body.text);
    target.blocks = blocksOf(call.body);
    if (isObject(call.body.metadata)) target.metadata = call.body.metadata;
    changed();
    return answer;
  });
  fake.setResponse('chat.delete', (call) => {
    const target = find(channelOf(call.body.channel), str(call.body.ts));
    if (!target) return { ok: false, error: 'message_not_found' };
    const answer = slack(call);
    if (!failed(answer)) remove(target);
    return answer;
  });
  fake.setResponse('chat.unfurl', (call) => {
    const byId = unfurlIds.get(str(call.body.unfurl_id));
    const place = byId ?? { channel: channelOf(call.body.channel), ts: str(call.body.ts) };
    const target = find(place.channel, place.ts);
    if (!target) return { ok: false, error: 'cannot_unfurl_message' };
    const unfurls = isObject(call.body.unfurls) ? call.body.unfurls : {};
    const metadata = isObject(call.body.metadata) ? call.body.metadata : {};
    const entities = (Array.isArray(metadata.entities) ? metadata.entities : []).filter(isObject);
    for (const [url, unfurl] of Object.entries(unfurls)) {
      const blocks = isObject(unfurl) && Array.isArray(unfurl.blocks) ? unfurl.blocks : [];
      // An entity belongs to the link it unfurls (app_unfurl_url: the link as posted).
      const own = entities.filter((e) => str(e.app_unfurl_url) === url || str(e.url) === url);
      const kept = target.unfurls.find((u) => u.url === url);
      target.unfurls = [
        ...target.unfurls.filter((u) => u.url !== url),
        { url, blocks, entities: own.length > 0 ? own : (kept?.entities ?? []) },
      ];
    }
    changed();
    return slack(call);
  });

  // Files: stored by the fake (bytes at its url_private); a file shared to a channel is a message.
  fake.setResponse('files.completeUploadExternal', (call) => {
    const answer = slack(call);
    if (failed(answer)) return answer;
    const channels = [str(call.body.channel_id), ...str(call.body.channels).split(',')].filter(Boolean);
    for (const id of channels) {
      const channel = channelOf(id);
      const stored = [...fake.messages(id), ...fake.messages(id).flatMap((m) => fake.replies(id, m.ts))]
        .filter((m) => Array.isArray(m.files) && !find(channel, m.ts))
        .at(-1);
      if (!stored) continue;
      const files = (stored.files ?? []).map((f) => ({
        id: str(f.id),
        name: str(f.name),
        title: str(f.title),
        mimetype: str(f.mimetype),
        size: typeof f.size === 'number' ? f.size : 0,
      }));
      const message = botMessage(
        channel,
        stored.ts,
        { text: stored.text, thread_ts: stored.thread_ts },
        false,
      );
      message.files = files;
    }
    return answer;
  });

  // Streamed replies (chat.startStream → appendStream… → stopStream).
  fake.setResponse('chat.startStream', (call) => {
    const answer = slack(call);
    if (failed(answer)) return answer;
    const channel = channelOf(call.body.channel);
    const stored = fake.message(str(call.body.channel), str(answer.ts));
    if (stored) {
      const message = botMessage(
        channel,
        stored.ts,
        { text: stored.text, thread_ts: stored.thread_ts },
        false,
      );
      message.stream = stored.stream ? structuredClone(stored.stream) : null;
    }
    return answer;
  });
  for (const method of ['chat.appendStream', 'chat.stopStream'])
    fake.setResponse(method, (call) => {
      const answer = slack(call);
      const stored = fake.message(str(call.body.channel), str(call.body.ts));
      if (!failed(answer) && stored) sync(channelOf(call.body.channel), stored);
      return answer;
    });

  // Work Objects: the details panel shows what entity.presentDetails sent, if Slack took it.
  fake.setResponse('entity.presentDetails', (call) => {
    const answer = slack(call);
    if (failed(answer) || !panel) return answer;
    panel = {
      ...panel,
      metadata: isObject(call.body.metadata) ? call.body.metadata : null,
      error: isObject(call.body.error) ? call.body.error : null,
    };
    changed();
    return answer;
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
      source.text = str(body.text);
      source.blocks = blocksOf(body);
      if (body.response_type === 'in_channel') source.ephemeral = false;
      changed();
      return {};
    }
    const message = botMessage(
      target.channel,
      localTs(),
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
      panel,
    }),
    addUserMessage(channel, text, options = {}) {
      const where = channelOf(channel);
      const command = options.command ?? false;
      // A typed message is in the channel's history (Slack keeps it); a command line is not.
      const ts = command
        ? localTs()
        : fake.postAsUser(where, text, options.threadTs ? { threadTs: options.threadTs } : {});
      return add({
        ts,
        channel: where,
        author: 'you',
        command,
        text,
        blocks: [],
        ephemeral: command,
        threadTs: options.threadTs ?? null,
      }).ts;
    },
    addEphemeral: (channel, body) => botMessage(channelOf(channel), localTs(), body, true).ts,
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
    openPanel(opened) {
      panel = { ...opened, metadata: null, error: null };
      changed();
    },
    closePanel() {
      panel = null;
      changed();
    },
  };
}
