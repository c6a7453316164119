/**
 * platdesk as an MCP server (issue 37): Streamable HTTP at `/mcp` on platdesk's HTTP port (in
 * Socket Mode the port of /healthz), built on the official SDK (@modelcontextprotocol/sdk), which
 * negotiates the protocol version. Stateless: every POST is served by a fresh McpServer and
 * transport, and all that must outlive a request (the token, the client's name, a paid call's
 * pending row and its outcome) is in the store, so a session survives a replica's restart and
 * lands on any replica. GET (a standalone event stream) and DELETE (ending a session) have no
 * meaning without sessions: 405.
 *
 * Tools: the catalog's (lookups/tools.ts `toolsFor('mcp')`), each with the catalog's zod input and
 * output and its words in the token owner's language; paid ones wait for the owner's Confirm in
 * Slack (mcp/tool-calls.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { CATALOGS, type Words, wordsFor } from '../blocks/i18n/words.js';
import { type McpAuthFailure, mcpAuthText } from '../blocks/mcp.js';
import { toolDescription, toolWords } from '../blocks/tools.js';
import { type ToolInputs, toolInput, toolOutput, toolsFor } from '../lookups/tools.js';
import type { SlackDeps } from '../slack/deps.js';
import type { McpToken, Store } from '../store/store.js';
import { authenticate } from './auth.js';
import type { TokenRate } from './rate.js';
import { callTool } from './tool-calls.js';

/** The largest JSON-RPC body read (a tool call's arguments are short). */
const MAX_BODY_BYTES = 256 * 1024;
/** "Last used" is written at most this often per token. */
const USED_EVERY_MS = 60_000;

export interface McpServerDeps {
  /** The store as opened: token lookups span tenants. */
  store: Store;
  /** The tenant's parts (its store, lookups, language…) and its bot. */
  tenantDeps: (tenant: string) => Promise<SlackDeps>;
  slackFor: (tenant: string) => Promise<WebClient | null>;
  /** Distributed mode: whether the tenant still has platdesk installed. */
  installed?: (tenant: string) => Promise<boolean>;
  confirmTtlMs: number;
  /** Tests: how often a waiting call sends progress (default tool-calls.ts PROGRESS_EVERY_MS). */
  progressEveryMs?: number;
  /** Each token's requests a minute, counted across replicas when shared (rate.ts). */
  rate: TokenRate;
  now: () => Date;
  logger: Logger;
}

function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('body too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch (error) {
        reject(error);
      }
    });
    req.on('error', reject);
  });
}

function jsonRpcError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message }, id: null }));
}

/** The `(req, res)` handler of `/mcp`. */
export function createMcpHandler(deps: McpServerDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const lastNoted = new Map<string, number>();
  // A header value is ASCII: the reasons are given in English (blocks/mcp.ts mcpAuthText).
  const en = wordsFor('en');

  function refuse(res: ServerResponse, reason: McpAuthFailure, w: Words, retryAfterMs = 60_000) {
    const text = mcpAuthText(w, reason);
    if (reason === 'rate')
      return jsonRpcError(res, 429, text, {
        'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))),
      });
    // RFC 6750 §3: no error code when no credentials were sent; invalid_token otherwise.
    const challenge =
      reason === 'missing'
        ? `Bearer realm="platdesk", error_description="${text}"`
        : `Bearer realm="platdesk", error="invalid_token", error_description="${text}"`;
    return jsonRpcError(res, 401, text, { 'www-authenticate': challenge });
  }

  async function noteUse(token: McpToken, body: unknown, tenantStore: Store) {
    // The client names itself once, in initialize: kept with the token for every later request.
    const init =
      body && typeof body === 'object' && (body as { method?: string }).method === 'initialize'
        ? (body as { params?: { clientInfo?: { name?: unknown; version?: unknown } } }).params?.clientInfo
        : undefined;
    const name = typeof init?.name === 'string' ? init.name.slice(0, 80) : null;
    const nowMs = deps.now().getTime();
    if (name === null && nowMs - (lastNoted.get(token.id) ?? 0) < USED_EVERY_MS) return token.clientName;
    lastNoted.set(token.id, nowMs);
    await tenantStore.mcpTokens.used(token.id, deps.now(), name);
    return name ?? token.clientName;
  }

  function buildServer(token: McpToken, client: string, tenant: SlackDeps, slack: WebClient, w: Words) {
    const server = new McpServer(
      { name: 'platdesk', version: '1' },
      { capabilities: { tools: {} }, instructions: CATALOGS[w.locale].mcp.help },
    );
    for (const tool of toolsFor('mcp')) {
      server.registerTool(
        tool.name,
        {
          title: toolWords(w, tool.name).title,
          description: toolDescription(w, tool.name),
          inputSchema: toolInput(tool.name),
          outputSchema: toolOutput(tool.name),
          annotations: {
            readOnlyHint: true,
            openWorldHint: true,
            idempotentHint: tool.operations.length === 0,
          },
        },
        async (args: Record<string, unknown>, extra) => {
          const progressToken = extra._meta?.progressToken;
          const callMeta = (extra._meta as Record<string, unknown> | undefined)?.['platdesk/call-id'];
          const result = await callTool(
            {
              deps: tenant,
              slack,
              confirmTtlMs: deps.confirmTtlMs,
              ...(deps.progressEveryMs !== undefined ? { progressEveryMs: deps.progressEveryMs } : {}),
            },
            {
              token,
              client,
              tool: tool.name,
              args: args as ToolInputs,
              callId: typeof callMeta === 'string' && callMeta !== '' ? callMeta : String(extra.requestId),
              signal: extra.signal,
              ...(progressToken !== undefined
                ? {
                    progress: (message: string, elapsedMs: number) =>
                      extra.sendNotification({
                        method: 'notifications/progress',
                        params: { progressToken, progress: Math.round(elapsedMs / 1000), message },
                      }),
                  }
                : {}),
            },
          );
          if (!result.ok) return { isError: true, content: [{ type: 'text' as const, text: result.text }] };
          return {
            structuredContent: result.outputs,
            content: [{ type: 'text' as const, text: result.text }],
          };
        },
      );
    }
    return server;
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST', 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed' }, id: null }),
      );
      return;
    }
    const auth = await authenticate(req.headers.authorization, {
      tokens: deps.store.mcpTokens,
      settingsOf: async (t) => (await deps.tenantDeps(t)).store.settings,
      ...(deps.installed ? { installed: deps.installed } : {}),
      now: deps.now,
    });
    if (!auth.ok) return refuse(res, auth.reason, en);
    const { token } = auth;
    const taken = await deps.rate.take(token.id);
    if (!taken.ok) return refuse(res, 'rate', en, taken.retryAfterMs);
    let body: unknown;
    try {
      body = await readBody(req);
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null }));
      return;
    }
    const tenant = await deps.tenantDeps(token.tenant);
    const slack = await deps.slackFor(token.tenant);
    if (!slack) return refuse(res, 'uninstalled', en);
    const client = (await noteUse(token, body, tenant.store)) ?? 'AI client';
    const w = await tenant.language.user(token.userId);
    const server = buildServer(token, client, tenant, slack, w);
    // Stateless (no sessionIdGenerator): nothing of the session is kept in this process.
    const transport = new StreamableHTTPServerTransport({});
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  return (req, res) => {
    handle(req, res).catch((err: unknown) => {
      deps.logger.error({ err }, 'MCP request failed');
      if (!res.headersSent) jsonRpcError(res, 500, 'Internal error');
      else res.end();
    });
  };
}
