/**
 * What the bundle gets for `import … from '@slack/bolt'` (scripts/build.mjs, boltParts): only the
 * parts platdesk uses, each loaded when first read. Bolt's own index loads every receiver
 * (Express and its body parsers, AWS Lambda) and Socket Mode's client at start, HTTP mode or not.
 * tsc and the tests still see the real package; test/start.test.ts checks the bundle's names.
 */
const parts = {
  App: () => require('@slack/bolt/dist/App.js').default,
  // The agent's Messages tab (src/slack/agent/index.ts).
  Assistant: () => require('@slack/bolt/dist/Assistant.js').Assistant,
  LogLevel: () => require('@slack/bolt/dist/App.js').LogLevel,
  HTTPReceiver: () => require('@slack/bolt/dist/receivers/HTTPReceiver.js').default,
  HTTPModuleFunctions: () => require('@slack/bolt/dist/receivers/HTTPModuleFunctions.js'),
  SocketModeReceiver: () => require('@slack/bolt/dist/receivers/SocketModeReceiver.js').default,
  webApi: () => require('@slack/web-api'),
};
Object.defineProperty(exports, '__esModule', { value: true });
for (const [name, load] of Object.entries(parts)) {
  Object.defineProperty(exports, name, { enumerable: true, get: load });
}
