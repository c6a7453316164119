import { defineConfig } from 'vitest/config';
import SlowFirstSequencer from './test/helpers/slow-first-sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One real PostgreSQL server for the run (the store suites run on both engines).
    globalSetup: ['./test/helpers/postgres-global-setup.ts'],
    // Socket Mode on the WebSocket the build gives it (test/helpers/socket-websocket.ts); every Block
    // Kit payload the app sends the local Slack is validated (test/helpers/block-kit).
    setupFiles: ['./test/helpers/socket-websocket.ts', './test/helpers/block-kit/guard.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Tests start real loopback servers; two cores are enough for a few files at once.
    maxWorkers: 2,
    sequence: { sequencer: SlowFirstSequencer },
    reporters: ['default', './test/reporters/summary-line.ts'],
  },
});
