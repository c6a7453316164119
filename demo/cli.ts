/**
 * `npm run demo`: starts platdesk on the sandbox with a local Slack stand-in and prints the page's
 * address (DEMO_PORT, default 3100). Ctrl-C stops both.
 */
import { startDemo } from './index.js';

const port = Number(process.env.DEMO_PORT ?? 3100);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error(`DEMO_PORT must be a port number (0–65535), not "${process.env.DEMO_PORT}"`);
  process.exit(1);
}
// The app's warnings are shown as well as its errors (a chart not posted, a Slack call refused):
// a demo that hid them would hide what the app would tell an operator.
const demo = await startDemo({ port, logLevel: 'warn' }).catch((error: unknown) => {
  const busy = (error as { code?: string }).code === 'EADDRINUSE';
  console.error(busy ? `Port ${port} is in use: set DEMO_PORT to another port` : String(error));
  process.exit(1);
});
console.log(
  `platdesk demo: open ${demo.url} (no Slack account needed; the plat sandbox answers). Ctrl-C stops it.`,
);
const stop = () => {
  demo.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
