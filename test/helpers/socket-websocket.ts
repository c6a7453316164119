/**
 * The tests run @slack/socket-mode on the WebSocket the built app runs: its `require('undici')`
 * resolves to scripts/build/ws-socket-entry.cjs (`ws` behind undici's names), as the bundle's does
 * (scripts/build.mjs, PART_ENTRIES_FROM). Loaded first by vitest (`setupFiles`) and by the benches
 * that start the app from source (bench/socket-refresh.ts), before Bolt loads socket-mode.
 * Node's in-thread module hooks (`module.registerHooks`, Node 22.15+) apply to `require` too.
 */
import { registerHooks } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export const SOCKET_WEBSOCKET_ENTRY = resolve(import.meta.dirname, '../../scripts/build/ws-socket-entry.cjs');
const url = pathToFileURL(SOCKET_WEBSOCKET_ENTRY).href;
const REGISTERED = Symbol.for('platdesk.test.socketWebSocket');
const registry = globalThis as { [REGISTERED]?: boolean };

if (!registry[REGISTERED]) {
  registry[REGISTERED] = true;
  registerHooks({
    resolve(specifier, context, next) {
      if (specifier === 'undici' && context.parentURL?.includes('/node_modules/@slack/socket-mode/'))
        return { url, format: 'commonjs', shortCircuit: true };
      return next(specifier, context);
    },
  });
}
