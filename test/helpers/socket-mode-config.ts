/**
 * platdesk's settings for Socket Mode against the fake Slack server (./slack-api-server.ts): app
 * token and no signing secret, the in-process sandbox as the plat API, an in-memory store, no logs.
 */
import { type Config, loadConfig } from '../../src/config.js';
import type { FakeSlack } from './slack-api-server.js';

export function socketModeConfig(fake: FakeSlack, port: number): Config {
  return loadConfig({
    SLACK_BOT_TOKEN: 'xoxb-test',
    SLACK_APP_TOKEN: 'xapp-test',
    SLACK_API_URL: fake.apiUrl,
    PORT: String(port),
    // An ephemeral internal port: several apps run side by side in a test run.
    METRICS_PORT: '0',
    PLAT_SANDBOX: '1',
    DATABASE_PATH: ':memory:',
    LOG_LEVEL: 'silent',
  });
}
