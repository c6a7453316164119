/**
 * `npm run rotate-keys`: re-seals every stored secret (Slack tokens, plat tokens) under the
 * current key, the first of PLATDESK_ENCRYPTION_KEY. Put the new key first and keep the old one
 * after it (`new:…,old:…`), run this once, then the old key may be removed. Idempotent: a second
 * run changes nothing and says so. Reads DATABASE_URL / DATABASE_PATH and PLATDESK_ENCRYPTION_KEY
 * (from `.env` too, as `npm start` does), each also as `<NAME>_FILE` (a mounted Secret, as the
 * app reads them: config.ts); never prints a key or a token. In the image: `node dist/rotate-keys.js`.
 */
import { loadEnvFile, withSecretFiles } from '../config.js';
import { describeUrl, openStore } from './engine.js';
import { parseEncryptionKeys } from './secrets.js';

async function main(): Promise<number> {
  loadEnvFile('.env');
  const { env, problems: fileProblems } = withSecretFiles(process.env);
  const { keys, problems } = parseEncryptionKeys(env.PLATDESK_ENCRYPTION_KEY ?? '');
  if (fileProblems.length + problems.length > 0) {
    const all = [...fileProblems, ...problems];
    console.error(`rotate-keys: fix these settings first:\n  - ${all.join('\n  - ')}`);
    return 2;
  }
  const url = env.DATABASE_URL?.trim() || null;
  const path = env.DATABASE_PATH?.trim() || './data/platdesk.sqlite';
  const store = await openStore({ url, path, encryptionKeys: keys });
  try {
    const installations = await store.installations.reseal();
    const platAccounts = await store.platAccounts.reseal();
    const where = url ? describeUrl(url) : path;
    console.log(
      `rotate-keys: ${where}: ${installations} installation(s) and ${platAccounts} plat account(s) re-sealed under key "${keys[0]?.id}"` +
        (installations + platAccounts === 0 ? ' (every secret already was)' : ''),
    );
    return 0;
  } catch (error) {
    console.error(`rotate-keys: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await store.close();
  }
}

process.exitCode = await main();
