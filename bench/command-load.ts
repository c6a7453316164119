/**
 * Load generator for `npm run bench`, run as its own process so that its event loop does not
 * share time with the app's: sends N signed slash commands at once and prints their latencies
 * (time until the HTTP response, i.e. the ack Slack waits for) as one JSON line.
 * Usage: tsx bench/command-load.ts <events URL> <signing secret> <response URL base> <count>
 */
import { postCommand } from '../test/helpers/slack-http.js';
import { slashCommand } from '../test/helpers/slack-payloads.js';

const [url = '', secret = '', responseBase = '', countText = '200', prefix = 'load'] = process.argv.slice(2);
const count = Number(countText);
const results = await Promise.all(
  Array.from({ length: count }, (_, i) =>
    postCommand(
      url,
      secret,
      slashCommand({
        command: '/shop',
        text: `ww ${prefix}-${i}`,
        responseUrl: `${responseBase}${prefix}-${i}`,
        userId: `U${1000 + (i % 20)}`,
      }),
    ),
  ),
);
process.stdout.write(
  `${JSON.stringify({ statuses: results.map((r) => r.status), ms: results.map((r) => r.ms) })}\n`,
);
