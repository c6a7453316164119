/**
 * The Slack Web clients' fetch (src/slack/web-fetch.ts), through a real WebClient against the local
 * Slack stand-in: form-encoded calls and their answers' headers, a file upload (files.uploadV2:
 * getUploadURLExternal, the multipart POST to the upload URL, completeUploadExternal) read back by
 * the stand-in's own multipart parser, HTTP errors, rate limits, a timeout, a refused connection, a
 * redirect, Bolt's `respond` to a response_url; and that none of it loads Node's bundled undici
 * (the cost at start it replaces).
 */
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { createRespond } from '@slack/bolt/dist/context/create-respond.js';
import { ErrorCode, LogLevel, WebClient, type WebClientOptions } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SLACK_CALL_TIMEOUT_MS, slackClientOptions, slackFetch } from '../../src/slack/web-fetch.js';
import { freePort } from '../helpers/free-port.js';
import { type FakeSlack, startSlackApiServer } from '../helpers/slack-api-server.js';
import { SLACK } from '../helpers/slack-payloads.js';

const ROOT = resolve(import.meta.dirname, '../..');
let fake: FakeSlack;

const client = (options: WebClientOptions = {}) =>
  new WebClient(
    'xoxb-test',
    slackClientOptions({ slackApiUrl: fake.apiUrl, logLevel: LogLevel.ERROR, ...options }),
  );

beforeEach(async () => {
  fake = await startSlackApiServer();
});
afterEach(async () => {
  await fake.close();
});

describe("the Slack Web clients' fetch", () => {
  it('is the fetch of a client built with slackClientOptions', () => {
    expect((client() as unknown as { fetchFn: unknown }).fetchFn).toBe(slackFetch);
  });

  it('gives each request up after SLACK_CALL_TIMEOUT_MS (web-api has none by default): a call Slack never answers ends', async () => {
    expect((client() as unknown as { timeout: number }).timeout).toBe(SLACK_CALL_TIMEOUT_MS);
    // The same client with a short timeout: the stand-in never answers this call.
    fake.fault('auth.test', 'timeout', 1);
    const error = await client({ timeout: 200, retryConfig: { retries: 0 } })
      .auth.test()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.RequestError });
  });

  it('sends a form-encoded call with its token and fields, and reads the answer and its scope headers', async () => {
    fake.setResponse('auth.test', { user_id: 'UBOT', bot_id: 'BBOT' });
    const text = 'ümlaut & 中文 = "quoted"\nline two';
    const posted = await client().chat.postMessage({ channel: SLACK.channelId, text, blocks: [] });
    expect(posted.ok).toBe(true);
    const call = fake.callsTo('chat.postMessage')[0];
    expect(call?.token).toBe('xoxb-test');
    expect(call?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(call?.body.text).toBe(text);
    expect(call?.body.channel).toBe(SLACK.channelId);
    const auth = await client().auth.test();
    expect([auth.user_id, auth.bot_id]).toEqual(['UBOT', 'BBOT']);
  });

  it('uploads a file (files.uploadV2): the bytes arrive whole in a multipart body, then the upload is completed', async () => {
    const bytes = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 31) % 256));
    const result = await client().files.uploadV2({
      channel_id: SLACK.channelId,
      file: bytes,
      filename: 'spend "chart".png',
      title: 'Spend',
    });
    expect(result.ok).toBe(true);
    const upload = fake.callsTo('file_upload')[0];
    expect(upload?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(upload?.token).toBe('xoxb-test');
    expect(upload?.bytes?.equals(bytes)).toBe(true);
    expect(fake.callsTo('files.getUploadURLExternal')[0]?.body.length).toBe(String(bytes.length));
    expect(fake.callsTo('files.completeUploadExternal')).toHaveLength(1);
  });

  it('multipart: string fields and a file part as a multipart parser reads them back', async () => {
    const form = new FormData();
    form.append('channels', 'C1,C2');
    form.append('note', 'a\nb "c"');
    form.append('file', new Blob([new Uint8Array([0, 13, 10, 255])]), 'x\r\n"y".bin');
    const answer = await slackFetch(`${fake.origin}/upload/F1`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body: form,
    });
    expect(answer.status).toBe(200);
    const call = fake.callsTo('file_upload')[0];
    expect(call?.bytes).toEqual(Buffer.from([0, 13, 10, 255]));
    expect(call?.body.channels).toBe('C1,C2');
    expect(call?.body.note).toBe('a\r\nb "c"');
    // Escaped in the part's header (%0D%0A, %22), as a browser does; the parser decodes it.
    expect(call?.body.file).toEqual({ filename: 'x\r\n"y".bin', size: 4 });
  });

  it('an HTTP error is a WebAPIHTTPError with its status, headers and body', async () => {
    fake.failNext('chat.postMessage', { error: 'internal_error', status: 503 }, 1);
    const error = await client({ retryConfig: { retries: 0 } })
      .chat.postMessage({ channel: SLACK.channelId, text: 'x' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: ErrorCode.HTTPError,
      statusCode: 503,
      body: { ok: false, error: 'internal_error' },
    });
    expect((error as { headers: Record<string, string> }).headers['content-type']).toMatch(/json/);
  });

  it('a rate limit is read from Retry-After', async () => {
    fake.failNext('chat.postMessage', { error: 'ratelimited', retryAfter: 7 });
    const error = await client({ rejectRateLimitedCalls: true })
      .chat.postMessage({ channel: SLACK.channelId, text: 'x' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.RateLimitedError, retryAfter: 7 });
  });

  it("a call with no answer ends at the client's timeout, as a request error", async () => {
    fake.fault('chat.postMessage', 'timeout');
    const started = performance.now();
    const error = await client({ timeout: 300, retryConfig: { retries: 0 } })
      .chat.postMessage({ channel: SLACK.channelId, text: 'x' })
      .catch((e: unknown) => e);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(error).toMatchObject({ code: ErrorCode.RequestError });
    expect((error as { original: Error }).original.name).toBe('TimeoutError');
  });

  it('an aborted signal ends a request under way and rejects with its reason', async () => {
    fake.fault('chat.postMessage', 'timeout');
    const controller = new AbortController();
    const pending = slackFetch(`${fake.apiUrl}chat.postMessage`, {
      method: 'POST',
      body: 'channel=C1',
      signal: controller.signal,
    });
    await fake.waitFor('chat.postMessage');
    const reason = new Error('stop');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it('a refused connection is a request error naming the cause', async () => {
    const port = await freePort();
    const error = await new WebClient(
      'xoxb-test',
      slackClientOptions({
        slackApiUrl: `http://127.0.0.1:${port}/api/`,
        retryConfig: { retries: 0 },
        logLevel: LogLevel.ERROR,
      }),
    ).auth
      .test()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.RequestError });
    expect(String((error as { original: { cause?: Error } }).original.cause?.message)).toMatch(
      /ECONNREFUSED/,
    );
  });

  it('does not follow a redirect: with redirect "error" it rejects, otherwise the 3xx is the answer', async () => {
    const server: Server = createServer((_, res) => {
      res.writeHead(302, { location: 'http://127.0.0.1:9/elsewhere' });
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/auth.test`;
    try {
      await expect(slackFetch(url, { method: 'POST', redirect: 'error' })).rejects.toThrow(TypeError);
      const answer = await slackFetch(url, { method: 'POST' });
      expect([answer.status, answer.ok, answer.headers.get('Location')]).toEqual([
        302,
        false,
        'http://127.0.0.1:9/elsewhere',
      ]);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('an answer cut off mid-body rejects instead of resolving with part of it', async () => {
    const server: Server = createServer((_, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"ok":true,', () => res.socket?.destroy());
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/auth.test`;
    try {
      await expect(slackFetch(url, { method: 'POST', body: 'token=x' })).rejects.toThrow(TypeError);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it("carries Bolt's respond to a response_url, and a refused response_url throws", async () => {
    const respond = createRespond(slackFetch as unknown as typeof fetch, `${fake.origin}/response/R1`);
    await respond({ text: 'answer', response_type: 'ephemeral' });
    const call = fake.callsTo('response_url')[0];
    expect(call?.id).toBe('R1');
    expect(call?.body).toMatchObject({ text: 'answer', response_type: 'ephemeral' });
    fake.failNext('response_url', { error: 'expired_url', status: 404 });
    await expect(respond('again')).rejects.toMatchObject({ code: 'slack_bolt_respond_error' });
  });

  it("never loads Node's bundled undici (what the global fetch would compile at start)", async () => {
    const script = [
      "import { WebClient } from '@slack/web-api';",
      "import { slackClientOptions } from './src/slack/web-fetch.ts';",
      'const c = new WebClient("xoxb-test", slackClientOptions({ slackApiUrl: process.env.API_URL }));',
      'const ok = (await c.auth.test()).ok;',
      "const loaded = process.moduleLoadList.filter((m) => m.includes('internal/deps/undici'));",
      'process.stdout.write(JSON.stringify({ ok, loaded }));',
    ].join('\n');
    // In a process of its own: this one (vitest) has loaded it long ago.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: ROOT, env: { ...process.env, API_URL: fake.apiUrl, NODE_OPTIONS: '' }, encoding: 'utf8' },
    );
    expect(JSON.parse(stdout)).toEqual({ ok: true, loaded: [] });
  });
});
