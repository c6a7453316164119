/**
 * What the bundle gets for `require('undici')` inside @slack/socket-mode (scripts/build.mjs,
 * PART_ENTRIES): the names its client uses (SlackWebSocket.js, SocketModeClient.js), each loaded
 * when first read. undici's index evaluates all of undici at once (fetch, HTTP/2, the cache and
 * cookie code, the mocks, EventSource), which was most of what Socket Mode added to start's CPU;
 * the WebSocket needs its own files and the dispatcher only. platdesk's plat client still imports
 * the whole package (src/plat/undici.ts), with its first call. test/start.test.ts checks the names.
 */
const parts = {
  WebSocket: () => require('undici/lib/web/websocket/websocket.js').WebSocket,
  ping: () => require('undici/lib/web/websocket/websocket.js').ping,
  CloseEvent: () => require('undici/lib/web/websocket/events.js').CloseEvent,
  ErrorEvent: () => require('undici/lib/web/websocket/events.js').ErrorEvent,
  MessageEvent: () => require('undici/lib/web/websocket/events.js').MessageEvent,
  Agent: () => require('undici/lib/dispatcher/agent.js'),
  buildConnector: () => require('undici/lib/core/connect.js'),
  // Used by SocketModeClient only with a proxy or agent and no fetch of ours (never in platdesk).
  fetch: () => require('undici').fetch,
};
Object.defineProperty(exports, '__esModule', { value: true });
for (const [name, load] of Object.entries(parts)) {
  Object.defineProperty(exports, name, { enumerable: true, get: load });
}
