/**
 * `npm run demo`: platdesk in a browser with no Slack account. The REAL app (startPlatdesk, HTTP
 * mode, PLAT_SANDBOX=1, SQLite) answers signed requests from a local Slack stand-in: the fake Slack
 * Web API server of the tests records and answers every Web API call and response_url post, and a
 * web page shows #support, a DM with the app, the modals and the App Home, rendered from the Block
 * Kit the app sent, and an AI client calling the app's MCP tools (mcp-panel.ts). `src/` never
 * imports this folder.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { type Platdesk, startPlatdesk } from '../src/main.js';
import { type FakeSlack, startSlackApiServer } from '../test/helpers/slack-api-server.js';
import { SLACK } from '../test/helpers/slack-payloads.js';
import { COMMANDS, createDeliverer, type ElementAction } from './deliver.js';
import { createMcpPanel } from './mcp-panel.js';
import { createMessagesTab } from './messages-tab.js';
import { createWorld, DM, SUPPORT } from './world.js';

export interface DemoOptions {
  /** The page's port (0: any free port). */
  port?: number;
  /** The SQLite file (default: a fresh temporary directory, removed on stop). */
  databasePath?: string;
  /** Log level of the app (default warn: its warnings and errors). */
  logLevel?: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'silent';
}

export interface Demo {
  /** http://127.0.0.1:PORT, the page. */
  url: string;
  platdesk: Platdesk;
  fake: FakeSlack;
  stop(): Promise<void>;
}

const PAGE_FILES: Record<string, string> = {
  '/': 'page.html',
  '/page.js': 'page.js',
  '/page.css': 'page.css',
  '/favicon.svg': 'favicon.svg',
  '/mcp-page.js': 'mcp-page.js',
  '/mcp-page.css': 'mcp-page.css',
  '/page-messages.js': 'page-messages.js',
};
const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
};

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

async function readJson(req: IncomingMessage): Promise<Json> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const parsed: unknown = chunks.length === 0 ? {} : JSON.parse(Buffer.concat(chunks).toString('utf8'));
  return isObject(parsed) ? parsed : {};
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');
/** Only the two conversations of the page take typing. */
const channelOf = (v: unknown): string => (v === DM ? DM : SUPPORT);

export async function startDemo(options: DemoOptions = {}): Promise<Demo> {
  const fake = await startSlackApiServer();
  const world = createWorld(fake);
  const dir = options.databasePath ? null : mkdtempSync(join(tmpdir(), 'platdesk-demo-'));
  const signingSecret = randomBytes(16).toString('hex');
  let platdesk: Platdesk;
  try {
    const config = loadConfig({
      SLACK_BOT_TOKEN: 'xoxb-demo',
      SLACK_SIGNING_SECRET: signingSecret,
      SLACK_API_URL: fake.apiUrl,
      PORT: '0',
      PLAT_SANDBOX: '1',
      DATABASE_PATH: options.databasePath ?? join(dir as string, 'demo.sqlite'),
      // The person at the page is an admin, so digests and alerts can be set up and run.
      PLATDESK_ADMINS: SLACK.userId,
      LOG_LEVEL: options.logLevel ?? 'warn',
    });
    platdesk = await startPlatdesk(config, { logger: createLogger(config.logLevel) });
  } catch (error) {
    await fake.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const deliver = createDeliverer(world, `${platdesk.url}/slack/events`, signingSecret, (id) =>
    fake.entityTrigger(id),
  );
  const messagesTab = createMessagesTab(fake, world, `${platdesk.url}/slack/events`, signingSecret);
  const here = new URL('.', import.meta.url);
  // The AI-client panel (mcp-panel.ts): the SDK's client on the app's /mcp.
  const mcpPanel = createMcpPanel({ mcpUrl: `${platdesk.url}/mcp`, world, deliver });

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://demo');
    const file = PAGE_FILES[url.pathname];
    if (req.method === 'GET' && file) {
      res.writeHead(200, {
        'content-type': TYPES[file.split('.').pop() ?? ''] ?? 'text/plain',
        'cache-control': 'no-store',
        'content-security-policy': "default-src 'self'; img-src * data:",
      });
      res.end(readFileSync(new URL(file, here)));
      return;
    }
    if (req.method === 'GET' && url.pathname.startsWith('/files/')) {
      // An uploaded file (a chart image, a print data file): its bytes as the app uploaded them.
      const file = fake.file(decodeURIComponent(url.pathname.slice('/files/'.length)));
      if (!file?.bytes) return sendJson(res, 404, { error: 'no such file' });
      res.writeHead(200, {
        'content-type': file.mimetype,
        'cache-control': 'no-store',
        ...(url.searchParams.has('download')
          ? { 'content-disposition': `attachment; filename="${encodeURIComponent(file.name)}"` }
          : {}),
      });
      res.end(file.bytes);
      return;
    }
    if (req.method === 'GET' && url.pathname === '/api/state') {
      sendJson(res, 200, {
        ...world.state(),
        messagesTab: messagesTab.state(),
        sandboxCalls: platdesk.sandbox?.stats().calls ?? 0,
      });
      return;
    }
    if (await mcpPanel.route(req, res, url, () => readJson(req))) return;
    if (req.method !== 'POST') return sendJson(res, 404, { error: 'not found' });
    const body = await readJson(req);
    const action = (isObject(body.action) ? body.action : {}) as unknown as ElementAction;
    const values = isObject(body.values) ? body.values : {};
    const tabbed = await messagesTab.route(url.pathname, body);
    if (tabbed) return sendJson(res, 200, tabbed);
    switch (url.pathname) {
      case '/api/say': {
        const channel = channelOf(body.channel);
        const line = text(body.text).trim();
        if (line === '') return sendJson(res, 400, { error: 'empty' });
        const name = line.split(/\s+/)[0] ?? '';
        if (line.startsWith('/')) {
          if (!(COMMANDS as readonly string[]).includes(name)) {
            world.addUserMessage(channel, line, { command: true });
            world.addEphemeral(channel, {
              text: `${name} is not a platdesk command. Try ${COMMANDS.join(', ')}.`,
            });
            return sendJson(res, 200, { status: 0 });
          }
          const d = await deliver.command(channel, line);
          return sendJson(res, 200, { status: d.status });
        }
        await deliver.message(channel, line);
        return sendJson(res, 200, { status: 200 });
      }
      case '/api/click': {
        const d =
          typeof body.viewId === 'string'
            ? await deliver.clickInView(body.viewId, action, values)
            : await deliver.clickInMessage(channelOf(body.channel), text(body.ts), action);
        return sendJson(res, 200, { status: d.status });
      }
      case '/api/submit':
        return sendJson(res, 200, { status: (await deliver.submit(text(body.viewId), values)).status });
      case '/api/close':
        world.closeModal(text(body.viewId));
        return sendJson(res, 200, { status: 200 });
      case '/api/shortcut': {
        const d =
          typeof body.ts === 'string'
            ? await deliver.messageShortcut(channelOf(body.channel), body.ts, text(body.callbackId))
            : await deliver.globalShortcut(text(body.callbackId));
        return sendJson(res, 200, { status: d.status });
      }
      case '/api/entity/open': {
        const channel = channelOf(body.channel);
        const ts = text(body.ts);
        const link = text(body.url);
        const unfurl = world.message(channel, ts)?.unfurls.find((u) => u.url === link);
        const entity = unfurl?.entities[0];
        const ref = isObject(entity?.external_ref) ? entity.external_ref : {};
        if (!entity || typeof ref.id !== 'string') return sendJson(res, 404, { error: 'no such card' });
        world.openPanel({ entityId: ref.id, channel, ts, url: link });
        const d = await deliver.openEntity({ channel, ts, url: link }, entity);
        return sendJson(res, 200, { status: d.status });
      }
      case '/api/entity/action': {
        const panel = world.state().panel;
        if (!panel) return sendJson(res, 404, { error: 'no panel open' });
        const d = await deliver.entityAction(panel.entityId, {
          action_id: text(action.action_id),
          value: text(action.value),
        });
        return sendJson(res, 200, { status: d.status });
      }
      case '/api/entity/close':
        world.closePanel();
        return sendJson(res, 200, { status: 200 });
      case '/api/home':
        return sendJson(res, 200, { status: (await deliver.openHome()).status });
      case '/api/language': {
        // As in Slack: the person's Slack language (users.info), and platdesk's own setting for
        // them and for the workspace (digests, alerts and unfurls read the workspace default).
        const locale = body.locale === 'zh-CN' ? 'zh-CN' : 'en';
        fake.setLocale(SLACK.userId, locale === 'zh-CN' ? 'zh-CN' : 'en-US');
        await deliver.command(DM, `/platdesk language workspace ${locale}`);
        const d = await deliver.command(DM, `/platdesk language ${locale}`);
        return sendJson(res, 200, { status: d.status });
      }
      default:
        return sendJson(res, 404, { error: 'not found' });
    }
  }

  const server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: String(error) });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 3100, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    platdesk,
    fake,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await mcpPanel.stop();
      await platdesk.stop();
      await fake.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
