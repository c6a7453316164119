/**
 * Proves the Slack test infrastructure against the REAL Bolt 5 app (no mocking of Bolt or the
 * WebClient): signed HTTP requests into Bolt's HTTPReceiver, `app.processEvent` in-process, and every
 * Web API call and response_url post landing on the local fake Slack server.
 *
 * How to build the app under test (the pattern other Slack tests copy):
 *   const receiver = new HTTPReceiver({ signingSecret, endpoints: '/slack/events', port: 0, logLevel });
 *   const app = new App({ token, receiver, botId: 'BBOT', botUserId: 'UBOT',
 *                         clientOptions: { slackApiUrl: fake.apiUrl }, logLevel });
 *   const server = await app.start({ port: 0, host: '127.0.0.1' });   // resolves with the http.Server
 * `botId` + `botUserId` make Bolt skip auth.test entirely (see the auth.test tests below).
 */
import type { AddressInfo } from 'node:net';
import { App, HTTPReceiver, LogLevel } from '@slack/bolt';
import { ErrorCode, WebClient } from '@slack/web-api';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeSlack, startSlackApiServer } from './slack-api-server.js';
import { postAction, postCommand, postEvent, receiverEvent, signedRequest } from './slack-http.js';
import {
  appHomeOpened,
  blockAction,
  eventCallback,
  globalShortcut,
  linkShared,
  messageShortcut,
  SLACK,
  slashCommand,
  viewSubmission,
} from './slack-payloads.js';

const SECRET = 'secret';
const TOKEN = 'xoxb-test';

function deferred() {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

async function startApp(app: App): Promise<string> {
  const server = await app.start({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
}

describe('Slack test harness with a real Bolt app', () => {
  let fake: FakeSlack;
  let app: App;
  let url: string;
  let pingGate = deferred();
  const seen: { kind: string; retryNum: number | undefined; retryReason: string | undefined }[] = [];
  const errors: unknown[] = [];

  beforeAll(async () => {
    fake = await startSlackApiServer();
    const receiver = new HTTPReceiver({
      signingSecret: SECRET,
      endpoints: '/slack/events',
      port: 0,
      logLevel: LogLevel.ERROR, // a custom receiver keeps its own logger: quiet the 401 warnings
    });
    app = new App({
      token: TOKEN,
      receiver,
      // With both ids known Bolt never calls auth.test (App.js runAuthTestForBotToken).
      botId: SLACK.botId,
      botUserId: SLACK.botUserId,
      clientOptions: { slackApiUrl: fake.apiUrl },
      logLevel: LogLevel.ERROR,
    });
    app.error(async (error) => {
      errors.push(error);
    });

    app.command('/ping', async ({ ack, respond, client, command }) => {
      await ack();
      await pingGate.promise; // lets the test observe the HTTP ack before any follow-up work
      await respond({ text: 'pong' });
      await client.chat.postEphemeral({ channel: command.channel_id, user: command.user_id, text: 'pong' });
    });
    app.action('confirm', async ({ ack, respond, body, action }) => {
      await ack();
      const value = action.type === 'button' ? action.value : undefined;
      await respond({ replace_original: true, text: `confirmed ${value} by ${body.user.id}` });
    });
    app.event('app_home_opened', async ({ event, context, client }) => {
      seen.push({ kind: 'app_home_opened', retryNum: context.retryNum, retryReason: context.retryReason });
      await client.views.publish({ user_id: event.user, view: { type: 'home', blocks: [] } });
    });
    app.event('link_shared', async ({ event, client }) => {
      const unfurls = Object.fromEntries(
        event.links.map((link) => [
          link.url,
          { blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'preview' } }] },
        ]),
      );
      // Bolt's LinkSharedEvent types unfurl_id/source as optional; Slack sends both (composer and posted).
      const { unfurl_id, source } = event;
      if (unfurl_id !== undefined && (source === 'composer' || source === 'conversations_history')) {
        await client.chat.unfurl({ unfurl_id, source, unfurls });
      } else {
        await client.chat.unfurl({ channel: event.channel, ts: event.message_ts, unfurls });
      }
    });
    app.shortcut('lookup_message', async ({ ack, shortcut, respond }) => {
      await ack();
      if (shortcut.type === 'message_action') await respond({ text: `found in: ${shortcut.message.text}` });
    });
    app.shortcut('open_settings', async ({ ack, shortcut, client }) => {
      await ack();
      await client.views.open({
        trigger_id: shortcut.trigger_id,
        view: {
          type: 'modal',
          callback_id: 'settings',
          title: { type: 'plain_text', text: 'Settings' },
          blocks: [],
        },
      });
    });
    app.view('settings', async ({ ack, view }) => {
      const budget = view.state.values.budget?.amount?.value;
      await ack(
        budget === 'x' ? { response_action: 'errors', errors: { budget: 'not a number' } } : undefined,
      );
    });

    url = await startApp(app);
  });

  afterAll(async () => {
    await app.stop();
    await fake.close();
  });

  beforeEach(() => {
    fake.reset();
    pingGate = deferred();
    seen.length = 0;
    errors.length = 0;
  });

  afterEach(() => {
    expect(errors).toEqual([]);
  });

  it('acks a slash command over signed HTTP before any follow-up work, then responds and posts', async () => {
    const responseUrl = fake.responseUrl('ping-1');
    const res = await postCommand(url, SECRET, slashCommand({ command: '/ping', text: '', responseUrl }));

    expect(res.status).toBe(200);
    expect(res.body).toBe('');
    expect(res.ms).toBeLessThan(3000); // Slack's ack deadline
    expect(fake.calls).toEqual([]); // the handler is still parked on pingGate: the ack came first

    pingGate.resolve();
    const response = await fake.waitFor('response_url', (c) => c.id === 'ping-1');
    expect(response.body).toEqual({ text: 'pong' });
    expect(response.headers['content-type']).toBe('application/json');

    const ephemeral = await fake.waitFor('chat.postEphemeral');
    expect(ephemeral.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(ephemeral.body).toMatchObject({ channel: SLACK.channelId, user: SLACK.userId, text: 'pong' });
    expect(fake.callsTo('auth.test')).toEqual([]);
  });

  it('answers 401 to a bad signature or a stale timestamp and runs no listener', async () => {
    const body = slashCommand({ command: '/ping', responseUrl: fake.responseUrl() });
    pingGate.resolve();

    expect((await postCommand(url, 'wrong-secret', body)).status).toBe(401);
    const stale = Math.floor(Date.now() / 1000) - 6 * 60;
    expect((await signedRequest(url, SECRET, { kind: 'form', body, timestamp: stale })).status).toBe(401);
    expect((await signedRequest(url, SECRET, { kind: 'form', body, signature: 'v0=00' })).status).toBe(401);

    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fake.calls).toEqual([]);
  });

  it('routes a block_actions payload (form-encoded payload=<json>) to its action listener', async () => {
    const responseUrl = fake.responseUrl('confirm-1');
    const payload = blockAction({
      actionId: 'confirm',
      value: 'q-42',
      responseUrl,
      userId: SLACK.secondUserId,
    });
    const res = await postAction(url, SECRET, payload);

    expect(res.status).toBe(200);
    const response = await fake.waitFor('response_url', (c) => c.id === 'confirm-1');
    expect(response.body).toEqual({
      replace_original: true,
      text: `confirmed q-42 by ${SLACK.secondUserId}`,
    });
  });

  it('passes x-slack-retry-num to the listener as context.retryNum; JSON form fields arrive decoded', async () => {
    const envelope = eventCallback(appHomeOpened(SLACK.userId));
    const res = await postEvent(url, SECRET, envelope, { retryNum: 1, retryReason: 'http_timeout' });
    expect(res.status).toBe(200);

    const publish = await fake.waitFor('views.publish');
    expect(seen).toEqual([{ kind: 'app_home_opened', retryNum: 1, retryReason: 'http_timeout' }]);
    expect(publish.body).toMatchObject({ user_id: SLACK.userId, view: { type: 'home', blocks: [] } });

    // A first delivery has no retry headers.
    await postEvent(url, SECRET, eventCallback(appHomeOpened(SLACK.adminId)));
    await fake.waitFor('views.publish', (c) => c.body.user_id === SLACK.adminId);
    expect(seen[1]).toEqual({ kind: 'app_home_opened', retryNum: undefined, retryReason: undefined });
  });

  it('answers a link_shared event with chat.unfurl (unfurls decoded from the form field)', async () => {
    const link = { url: 'https://item.example.com/item.htm?id=123', domain: 'item.example.com' };
    const event = linkShared({ links: [link], source: 'composer', unfurlId: 'U-1' });
    expect((await postEvent(url, SECRET, eventCallback(event))).status).toBe(200);

    const unfurl = await fake.waitFor('chat.unfurl');
    expect(unfurl.body).toMatchObject({ unfurl_id: 'U-1', source: 'composer' });
    expect(unfurl.body.unfurls).toEqual({
      [link.url]: { blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'preview' } }] },
    });
  });

  it('app.processEvent is the in-process alternative (no HTTP, no signature)', async () => {
    pingGate.resolve();
    const command = receiverEvent(
      slashCommand({ command: '/ping', responseUrl: fake.responseUrl('in-process') }),
    );
    await app.processEvent(command.event);
    await command.acked;
    expect(command.isAcked()).toBe(true);
    expect((await fake.waitFor('response_url', (c) => c.id === 'in-process')).body).toEqual({ text: 'pong' });
    await fake.waitFor('chat.postEphemeral');

    const retried = receiverEvent(eventCallback(appHomeOpened()), { retryNum: 2, retryReason: 'http_error' });
    await app.processEvent(retried.event);
    expect(seen).toEqual([{ kind: 'app_home_opened', retryNum: 2, retryReason: 'http_error' }]);
  });

  it('routes shortcuts and view submissions built by the payload factories', async () => {
    const shortcut = receiverEvent(
      messageShortcut({
        callbackId: 'lookup_message',
        message: { text: 'see waybill 7712345678' },
        responseUrl: fake.responseUrl('shortcut'),
      }),
    );
    await app.processEvent(shortcut.event);
    expect((await fake.waitFor('response_url', (c) => c.id === 'shortcut')).body).toEqual({
      text: 'found in: see waybill 7712345678',
    });

    const global = receiverEvent(globalShortcut({ callbackId: 'open_settings' }));
    await app.processEvent(global.event);
    const open = await fake.waitFor('views.open');
    expect(open.body).toMatchObject({ trigger_id: SLACK.triggerId, view: { callback_id: 'settings' } });

    const bad = receiverEvent(
      viewSubmission({
        callbackId: 'settings',
        values: { budget: { amount: { type: 'plain_text_input', value: 'x' } } },
      }),
    );
    await app.processEvent(bad.event);
    expect(await bad.acked).toEqual({ response_action: 'errors', errors: { budget: 'not a number' } });

    // Over HTTP the ack payload is the response body.
    const good = viewSubmission({
      callbackId: 'settings',
      values: { budget: { amount: { type: 'plain_text_input', value: '100' } } },
    });
    const res = await postAction(url, SECRET, good);
    expect(res.status).toBe(200);
    expect(res.body).toBe('');
  });

  it('failNext makes the WebClient call reject with the Slack error code, once', async () => {
    fake.failNext('chat.postMessage', { error: 'channel_not_found' });
    const failed = app.client.chat.postMessage({ channel: 'C404', text: 'hi' });
    await expect(failed).rejects.toMatchObject({
      code: ErrorCode.PlatformError,
      data: { ok: false, error: 'channel_not_found' },
    });

    const ok = await app.client.chat.postMessage({ channel: SLACK.channelId, text: 'hi', blocks: [] });
    expect(ok).toMatchObject({
      ok: true,
      channel: SLACK.channelId,
      message: { text: 'hi', bot_id: SLACK.botId },
    });
    const again = await app.client.chat.postMessage({ channel: SLACK.channelId, text: 'again' });
    expect(Number(again.ts)).toBeGreaterThan(Number(ok.ts));
    expect(fake.callsTo('chat.postMessage')).toHaveLength(3);
  });

  it('a 429 with Retry-After is retried by default, or rejected with rejectRateLimitedCalls', async () => {
    const strict = new WebClient(TOKEN, {
      slackApiUrl: fake.apiUrl,
      rejectRateLimitedCalls: true,
      logLevel: LogLevel.ERROR,
    });
    fake.failNext('chat.postMessage', { error: 'ratelimited', retryAfter: 7 });
    await expect(strict.chat.postMessage({ channel: SLACK.channelId, text: 'x' })).rejects.toMatchObject({
      code: ErrorCode.RateLimitedError,
      retryAfter: 7,
    });

    // The default client waits Retry-After seconds (0 here) and then retries after p-retry's backoff
    // (default minTimeout 1 s; zero here) — the call succeeds on the second attempt.
    const patient = new WebClient(TOKEN, {
      slackApiUrl: fake.apiUrl,
      retryConfig: { retries: 2, minTimeout: 0, maxTimeout: 0 },
      logLevel: LogLevel.ERROR,
    });
    fake.failNext('chat.postMessage', { error: 'ratelimited', retryAfter: 0 });
    await expect(patient.chat.postMessage({ channel: SLACK.channelId, text: 'y' })).resolves.toMatchObject({
      ok: true,
    });
    expect(fake.callsTo('chat.postMessage')).toHaveLength(3);
  });

  it('records file uploads: getUploadURLExternal, the bytes posted to the upload URL, completeUploadExternal', async () => {
    const result = await app.client.files.uploadV2({
      channel_id: SLACK.channelId,
      filename: 'orders.csv',
      content: 'id,total\n1,9.90\n',
      title: 'Orders',
    });
    expect(result.ok).toBe(true);

    const getUrl = await fake.waitFor('files.getUploadURLExternal');
    expect(getUrl.body).toMatchObject({ filename: 'orders.csv', length: '16' });
    const upload = await fake.waitFor('file_upload');
    expect(upload.bytes?.toString('utf8')).toBe('id,total\n1,9.90\n');
    const complete = await fake.waitFor('files.completeUploadExternal');
    expect(complete.body).toMatchObject({
      channel_id: SLACK.channelId,
      files: [{ id: upload.id, title: 'Orders' }],
    });
  });
});

describe('Bolt 5 construction facts (auth.test, default receiver)', () => {
  let fake: FakeSlack;
  beforeAll(async () => {
    fake = await startSlackApiServer();
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(() => fake.reset());

  const quiet = { logLevel: LogLevel.ERROR, signingSecret: SECRET } as const;

  it('calls auth.test in the constructor by default; botId + botUserId skip it', async () => {
    new App({ ...quiet, token: 'xoxb-verify', clientOptions: { slackApiUrl: fake.apiUrl } });
    const check = await fake.waitFor('auth.test');
    expect(check.headers.authorization).toBe('Bearer xoxb-verify');

    fake.reset();
    new App({
      ...quiet,
      token: 'xoxb-known',
      botId: SLACK.botId,
      botUserId: SLACK.botUserId,
      clientOptions: { slackApiUrl: fake.apiUrl },
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(fake.callsTo('auth.test')).toEqual([]);
  });

  it('tokenVerificationEnabled: false without the ids calls auth.test on every request (no cache)', async () => {
    const app = new App({
      ...quiet,
      token: 'xoxb-lazy',
      tokenVerificationEnabled: false,
      clientOptions: { slackApiUrl: fake.apiUrl },
    });
    app.command('/noop', async ({ ack }) => {
      await ack();
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fake.callsTo('auth.test')).toEqual([]);
    for (let i = 0; i < 2; i++) {
      const event = receiverEvent(slashCommand({ command: '/noop', responseUrl: fake.responseUrl() }));
      await app.processEvent(event.event);
    }
    expect(fake.callsTo('auth.test')).toHaveLength(2);
  });

  it('the default receiver (new App({ signingSecret, port: 0 })) also serves POST /slack/events', async () => {
    const app = new App({
      ...quiet,
      token: TOKEN,
      port: 0,
      botId: SLACK.botId,
      botUserId: SLACK.botUserId,
      clientOptions: { slackApiUrl: fake.apiUrl },
    });
    app.command('/ping', async ({ ack }) => {
      await ack('pong');
    });
    const server = await app.start();
    try {
      const appUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
      const res = await postCommand(
        appUrl,
        SECRET,
        slashCommand({ command: '/ping', responseUrl: fake.responseUrl() }),
      );
      expect(res).toMatchObject({ status: 200, body: 'pong' });
    } finally {
      await app.stop();
    }
  });
});

describe('the stand-in keeps messages: conversations.history and the unclear-outcome faults', () => {
  let fake: FakeSlack;
  let at = Date.parse('2026-11-20T01:00:00Z');
  const noRetry = () =>
    new WebClient(TOKEN, {
      slackApiUrl: fake.apiUrl,
      retryConfig: { retries: 0 },
      timeout: 300,
      logLevel: LogLevel.ERROR,
    });
  beforeEach(async () => {
    at = Date.parse('2026-11-20T01:00:00Z');
    fake = await startSlackApiServer({ now: () => at });
  });
  afterEach(async () => {
    await fake.close();
  });

  it('answers history newest first within oldest/latest, a page at a time, with replies counted on the parent', async () => {
    const client = noRetry();
    const ts: string[] = [];
    for (let i = 0; i < 5; i++) {
      ts.push((await client.chat.postMessage({ channel: 'C1', text: `m${i}` })).ts ?? '');
      at += 10_000;
    }
    expect(ts[0]?.startsWith(String(Date.parse('2026-11-20T01:00:00Z') / 1000))).toBe(true);
    await client.chat.postMessage({ channel: 'C1', text: 'reply', thread_ts: ts[1] as string });
    await client.chat.postMessage({ channel: 'C2', text: 'elsewhere' });
    const first = await client.conversations.history({
      channel: 'C1',
      oldest: ts[1] as string,
      inclusive: true,
      limit: 2,
    });
    expect(first.messages?.map((m) => m.text)).toEqual(['m4', 'm3']);
    expect(first.has_more).toBe(true);
    const cursor = first.response_metadata?.next_cursor as string;
    const second = await client.conversations.history({
      channel: 'C1',
      oldest: ts[1] as string,
      inclusive: true,
      limit: 2,
      cursor,
    });
    expect(second.messages?.map((m) => [m.text, m.reply_count])).toEqual([
      ['m2', undefined],
      ['m1', 1],
    ]);
    expect(second.has_more).toBe(false);
    const exclusive = await client.conversations.history({
      channel: 'C1',
      oldest: ts[1] as string,
      latest: ts[3] as string,
    });
    expect(exclusive.messages?.map((m) => m.text)).toEqual(['m2']);
    expect(fake.messages('C1')).toHaveLength(5);
  });

  it('a DM by user id is kept in the D… conversation conversations.open answers', async () => {
    const client = noRetry();
    const posted = await client.chat.postMessage({ channel: SLACK.userId, text: 'hi' });
    const im = await client.conversations.open({ users: SLACK.userId });
    expect(posted.channel).toBe(im.channel?.id);
    expect((await client.conversations.history({ channel: im.channel?.id as string })).messages).toHaveLength(
      1,
    );
    expect(fake.messages(SLACK.userId)).toHaveLength(1);
  });

  it.each([
    ['accept-then-cut', ErrorCode.RequestError],
    ['store-then-500', ErrorCode.HTTPError],
    ['timeout', ErrorCode.RequestError],
  ] as const)('%s: the message is stored and the client sees %s', async (fault, code) => {
    fake.fault('chat.postMessage', fault);
    await expect(noRetry().chat.postMessage({ channel: 'C1', text: 'x' })).rejects.toMatchObject({ code });
    expect(fake.messages('C1').map((m) => m.text)).toEqual(['x']);
    // Once: the next post is answered.
    expect((await noRetry().chat.postMessage({ channel: 'C1', text: 'y' })).ok).toBe(true);
  });
});
