/**
 * `npm run sandbox`: serves the plat API sandbox until SIGINT/SIGTERM.
 * Settings: SANDBOX_PORT (default 8787), SANDBOX_TOKEN (default 'sandbox'), SANDBOX_HOST
 * (default 127.0.0.1; 0.0.0.0 inside a container), SANDBOX_FAULTS (JSON array of fault rules).
 */
import { parseFaults } from './faults.js';
import { platPrices } from './prices.js';
import { createSandbox } from './server.js';
import type { FaultRule } from './types.js';

interface CliSettings {
  port: number;
  host: string;
  token: string;
  faults: FaultRule[];
}

/**
 * The one reader of process.env outside config.ts (CONVENTIONS 8): the sandbox is a separate
 * program with its own three settings, and must not need the app's Slack and plat settings.
 */
function readSettings(env: NodeJS.ProcessEnv = process.env): CliSettings {
  const port = Number(env.SANDBOX_PORT ?? 8787);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new Error(`SANDBOX_PORT is not a port: ${env.SANDBOX_PORT}`);
  let faults: FaultRule[] = [];
  if (env.SANDBOX_FAULTS) {
    try {
      faults = parseFaults(JSON.parse(env.SANDBOX_FAULTS));
    } catch (error) {
      throw new Error(`SANDBOX_FAULTS: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { port, host: env.SANDBOX_HOST || '127.0.0.1', token: env.SANDBOX_TOKEN || 'sandbox', faults };
}

async function main(): Promise<void> {
  const settings = readSettings();
  const sandbox = createSandbox({ token: settings.token });
  sandbox.setFaults(settings.faults);
  const url = await sandbox.listen(settings.port, settings.host);
  const faultNote = settings.faults.length > 0 ? ` (${settings.faults.length} fault rule(s))` : '';
  console.log(`plat sandbox listening on ${url}${faultNote}`);
  // What platdesk needs to use it in place of the real plat API, its prices included.
  console.log(
    `pair platdesk with it: PLAT_BASE_URL=${url} PLAT_TOKEN=${settings.token} PLAT_PRICES=${platPrices(sandbox.prices)}`,
  );
  const stop = () => {
    sandbox.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(`plat sandbox failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
