/**
 * A local OpenAI-compatible chat completions server for the agent's optional model (issue 36):
 * real HTTP on loopback, answering `POST /v1/chat/completions` with scripted tool calls, a failure
 * status, or after a delay. It records every request body, so a test can see what the model was
 * told (and that receiver data was not).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ModelScript =
  | { kind: 'tools'; calls: { name: string; arguments: unknown }[] }
  | { kind: 'status'; status: number }
  | { kind: 'delay'; ms: number; after: ModelScript };

export interface ModelServer {
  /** The base URL as AGENT_MODEL_BASE_URL takes it (…/v1). */
  baseUrl: string;
  requests: Record<string, unknown>[];
  script(next: ModelScript): void;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function body(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
  } catch {
    return {};
  }
}

export async function startModelServer(): Promise<ModelServer> {
  const requests: Record<string, unknown>[] = [];
  let current: ModelScript = { kind: 'status', status: 503 };
  let seq = 0;
  const answer = async (res: ServerResponse, script: ModelScript, model: string): Promise<void> => {
    if (script.kind === 'delay') {
      await sleep(script.ms);
      if (!res.destroyed) await answer(res, script.after, model);
      return;
    }
    if (script.kind === 'status') {
      res.writeHead(script.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'scripted failure', type: 'server_error' } }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: `chatcmpl-${++seq}`,
        object: 'chat.completion',
        created: 1_700_000_000,
        model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: null,
              tool_calls: script.calls.map((c, i) => ({
                id: `call_${seq}_${i}`,
                type: 'function',
                function: { name: c.name, arguments: JSON.stringify(c.arguments) },
              })),
            },
            finish_reason: 'tool_calls',
          },
        ],
        usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
      }),
    );
  };
  const server = createServer((req, res) => {
    void (async () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404).end();
        return;
      }
      const b = await body(req);
      requests.push(b);
      await answer(res, current, String(b.model ?? ''));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    script(next) {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
