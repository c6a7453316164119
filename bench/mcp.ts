/**
 * MCP latency (issue 37): the built-in app (startPlatdesk, HTTP mode, SQLite) against the local
 * Slack stand-in and the in-process sandbox (answering at once), driven by the MCP SDK's client
 * over loopback. Each of N paid tool calls (lookup_waybill, distinct numbers so nothing comes from
 * the cache) is timed twice:
 *   - tool call → DM: from callTool() to the chat.postMessage that reaches the Slack stand-in;
 *   - Confirm → result: from the signed Confirm click's POST to the tool result in the client.
 * Calls are sequential (one person clicking), paced under the plat rate limit.
 *
 *   npm run bench:mcp            (N = 100)
 *   npm run bench:mcp -- --calls 200
 * Goals: tool call → DM p99 < 500 ms; Confirm → result p99 < 1 s.
 */
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { hashMcpToken, newMcpToken } from '../src/lookups/mcp-tokens.js';
import { startPlatdesk } from '../src/main.js';
import { SANDBOX_FIXTURES } from '../src/sandbox/index.js';
import { startSlackApiServer } from '../test/helpers/slack-api-server.js';
import { postAction } from '../test/helpers/slack-http.js';
import { blockAction, SLACK } from '../test/helpers/slack-payloads.js';

const { values: args } = parseArgs({ options: { calls: { type: 'string', default: '100' } } });
const N = Number(args.calls);
const SECRET = 'bench-secret';
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};
const round = (n: number) => Math.round(n * 10) / 10;

const fake = await startSlackApiServer();
const platdesk = await startPlatdesk(
  loadConfig({
    SLACK_BOT_TOKEN: 'xoxb-bench',
    SLACK_SIGNING_SECRET: SECRET,
    SLACK_API_URL: fake.apiUrl,
    PORT: '0',
    PLAT_SANDBOX: '1',
    DATABASE_PATH: ':memory:',
    LOG_LEVEL: 'silent',
  }),
  { logger: createLogger('silent') },
);
const token = newMcpToken();
await platdesk.store.mcpTokens.create({
  id: 'bench',
  userId: SLACK.userId,
  name: 'bench',
  hash: hashMcpToken(token),
  expiresAt: new Date(Date.now() + 86_400_000),
});
const client = new Client({ name: 'bench', version: '1' });
await client.connect(
  new StreamableHTTPClientTransport(new URL(`${platdesk.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  }),
);

const toDm: number[] = [];
const toResult: number[] = [];
const callsBefore = platdesk.sandbox?.stats().calls ?? 0;
for (let i = 0; i < N; i++) {
  const dmsBefore = fake.calls.filter((c) => c.method === 'chat.postMessage').length;
  const t0 = performance.now();
  const result = client.callTool({
    name: 'lookup_waybill',
    arguments: {
      waybills: `7730${String(10_000_000 + i)}`,
      owner_id: SANDBOX_FIXTURES.owners.busy,
      carrier: 'ZTO',
    },
  });
  const dm = await fake.waitFor(
    'chat.postMessage',
    () => fake.calls.filter((c) => c.method === 'chat.postMessage').length > dmsBefore,
    5000,
  );
  toDm.push(performance.now() - t0);
  const blocks = (typeof dm.body.blocks === 'string' ? JSON.parse(dm.body.blocks) : dm.body.blocks) as {
    elements?: { action_id?: string; value?: string }[];
  }[];
  const value = blocks
    .flatMap((b) => b.elements ?? [])
    .find((e) => e.action_id === 'platdesk.mcp.confirm')?.value;
  if (!value) throw new Error('no Confirm in the DM');
  const t1 = performance.now();
  await postAction(
    `${platdesk.url}/slack/events`,
    SECRET,
    blockAction({
      actionId: 'platdesk.mcp.confirm',
      value,
      responseUrl: fake.responseUrl(`bench-${i}`),
      actionTs: `1700000001.${String(i).padStart(6, '0')}`,
    }),
  );
  const r = await result;
  toResult.push(performance.now() - t1);
  if (r.isError) throw new Error(`call ${i} failed: ${JSON.stringify(r.content)}`);
  // Under the plat limit of 10 a second: the figure is the path's latency, not the limiter's queue.
  await new Promise((resolve) => setTimeout(resolve, 120));
}
const calls = (platdesk.sandbox?.stats().calls ?? 0) - callsBefore;
console.log(
  JSON.stringify(
    {
      calls: N,
      platCalls: calls,
      toolCallToDm: {
        p50Ms: round(percentile(toDm, 50)),
        p99Ms: round(percentile(toDm, 99)),
        goalP99Ms: 500,
      },
      confirmToResult: {
        p50Ms: round(percentile(toResult, 50)),
        p99Ms: round(percentile(toResult, 99)),
        goalP99Ms: 1000,
      },
    },
    null,
    2,
  ),
);
await client.close();
await platdesk.stop();
await fake.close();
