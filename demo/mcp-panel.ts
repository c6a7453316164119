/**
 * The demo's AI-client panel (issue 37): an MCP client, the official SDK's own, that calls the
 * REAL app's `/mcp` the way Claude or Cursor would, so the page shows side by side what the token's
 * owner sees in Slack (the DM with the charge, Confirm / Deny) and what the AI client gets back
 * (progress while it waits, then the structured result, or the tool error).
 *
 * Its token is made as a person makes one: `/platdesk mcp token` typed in the DM with platdesk
 * (the stand-in delivers the signed command; the app's answer, shown only to the person, lands in
 * the DM and the panel reads the token from it). Nothing here calls the app another way.
 * Routes under /api/mcp; the page's side is mcp-page.js. Its own module, apart from the page's
 * other panels.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Deliverer } from './deliver.js';
import { DM, type World } from './world.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The name the client gives itself (MCP initialize): the DM names it. */
export const DEMO_CLIENT = 'Demo AI client';
const TOKEN = /pdmcp_[A-Za-z0-9_-]{43}/;
/** A paid call waits up to MCP_CONFIRM_TTL_S (5 minutes) for the Confirm: the client waits longer. */
const CALL_TIMEOUT_MS = 15 * 60_000;

export interface McpPanelCall {
  id: number;
  tool: string;
  arguments: Json;
  state: 'waiting' | 'done' | 'error';
  /** Progress notifications the app sent while the owner had not clicked. */
  progress: string[];
  /** The tool's short text (or its error). */
  text: string;
  /** The structured result (the catalog's output shape); null for an error. */
  structured: Json | null;
}

export interface McpPanelState {
  version: number;
  connected: boolean;
  /** Why connecting failed, when it did. */
  problem: string | null;
  client: string;
  tools: string[];
  calls: McpPanelCall[];
}

export interface McpPanel {
  /** Answers a request under /api/mcp; false when the path is not its. */
  route(req: IncomingMessage, res: ServerResponse, url: URL, body: () => Promise<Json>): Promise<boolean>;
  state(): McpPanelState;
  stop(): Promise<void>;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

export function createMcpPanel(options: { mcpUrl: string; world: World; deliver: Deliverer }): McpPanel {
  const { world, deliver } = options;
  let version = 0;
  let client: Client | null = null;
  let connecting: Promise<void> | null = null;
  let problem: string | null = null;
  let tools: string[] = [];
  const calls: McpPanelCall[] = [];
  const changed = () => {
    version += 1;
  };

  /** The newest token the app showed in the DM (its answer to `/platdesk mcp token`). */
  const tokenInDm = (): string | null => {
    const shown = world
      .state()
      .messages.filter((m) => m.channel === DM)
      .map((m) => JSON.stringify({ text: m.text, blocks: m.blocks }).match(TOKEN)?.[0])
      .filter((t): t is string => t !== undefined);
    return shown.at(-1) ?? null;
  };

  async function connect(): Promise<void> {
    const before = tokenInDm();
    // A name of its own for each connection: `revoke` names exactly one.
    await deliver.command(DM, `/platdesk mcp token demo-${Date.now().toString(36)}`);
    let token: string | null = null;
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      token = tokenInDm();
      if (token !== null && token !== before) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    if (token === null || token === before) throw new Error('the app showed no token (is MCP turned off?)');
    const next = new Client({ name: DEMO_CLIENT, version: '1.0.0' });
    await next.connect(
      new StreamableHTTPClientTransport(new URL(options.mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    tools = (await next.listTools()).tools.map((t) => t.name);
    client = next;
  }

  function call(c: Client, tool: string, args: Json): McpPanelCall {
    const entry: McpPanelCall = {
      id: calls.length + 1,
      tool,
      arguments: args,
      state: 'waiting',
      progress: [],
      text: '',
      structured: null,
    };
    calls.push(entry);
    changed();
    c.callTool({ name: tool, arguments: args }, undefined, {
      timeout: CALL_TIMEOUT_MS,
      resetTimeoutOnProgress: true,
      onprogress: (p) => {
        entry.progress.push(String(p.message ?? ''));
        changed();
      },
    }).then(
      (result) => {
        const content = Array.isArray(result.content) ? result.content : [];
        entry.text = content
          .map((part) => (isObject(part) && typeof part.text === 'string' ? part.text : ''))
          .join('\n');
        entry.structured = isObject(result.structuredContent) ? result.structuredContent : null;
        entry.state = result.isError ? 'error' : 'done';
        changed();
      },
      (error: unknown) => {
        entry.text = error instanceof Error ? error.message : String(error);
        entry.state = 'error';
        changed();
      },
    );
    return entry;
  }

  const state = (): McpPanelState => ({
    version,
    connected: client !== null,
    problem,
    client: DEMO_CLIENT,
    tools,
    calls,
  });

  return {
    state,
    async route(req, res, url, body) {
      if (!url.pathname.startsWith('/api/mcp')) return false;
      if (req.method === 'GET' && url.pathname === '/api/mcp') {
        sendJson(res, 200, state());
        return true;
      }
      if (req.method !== 'POST') {
        sendJson(res, 404, { error: 'not found' });
        return true;
      }
      if (url.pathname === '/api/mcp/connect') {
        if (!client) {
          connecting ??= connect()
            .then(() => {
              problem = null;
            })
            .catch((error: unknown) => {
              problem = error instanceof Error ? error.message : String(error);
            })
            .finally(() => {
              connecting = null;
              changed();
            });
          await connecting;
        }
        sendJson(res, client ? 200 : 502, state());
        return true;
      }
      if (url.pathname === '/api/mcp/call') {
        const b = await body();
        const tool = typeof b.tool === 'string' ? b.tool : '';
        if (!client) {
          sendJson(res, 409, { error: 'not connected' });
          return true;
        }
        if (!tools.includes(tool)) {
          sendJson(res, 400, { error: `no tool ${tool}` });
          return true;
        }
        const entry = call(client, tool, isObject(b.arguments) ? b.arguments : {});
        sendJson(res, 200, { id: entry.id });
        return true;
      }
      sendJson(res, 404, { error: 'not found' });
      return true;
    },
    async stop() {
      await client?.close().catch(() => undefined);
      client = null;
    },
  };
}
