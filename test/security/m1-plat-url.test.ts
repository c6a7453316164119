/**
 * Issue 34 M1 / point 5: the plat base URL a workspace admin enters. On 5ce7905 only
 * `^https?://\S+` was checked: it could point at 169.254.169.254, localhost, Redis or any host of
 * the operator's network (server-side request forgery, the workspace's token sent along), over
 * plain http:// (the token in clear), and the pools of replaced accounts were never closed.
 *
 * Now, through the real app on both engines: the Connect form refuses anything but https:// to a
 * public address; a stored URL whose host resolves (now) to a loopback address is refused at the
 * connection, before a byte is sent (DNS rebinding: checked where it connects, not only where it
 * was saved); and a replaced account's connections are closed. Tests opt in to loopback plat
 * sandboxes with PLAT_ACCOUNTS_LOOPBACK=1; these run without it, but for the last.
 */
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { PLAT_ACCOUNT_FORM } from '../../src/blocks/plat-account.js';
import { createSandbox, SANDBOX_FIXTURES, type Sandbox } from '../../src/sandbox/index.js';
import { type PlatdeskHarness, startPlatdeskHarness, textOf } from '../helpers/platdesk-harness.js';
import {
  distributedModeEnv,
  installFakeOAuth,
  installThroughOAuth,
  openConnectForm,
  platAccountValues,
} from '../helpers/slack-oauth.js';
import { SLACK } from '../helpers/slack-payloads.js';
import { ENGINES, type TestDatabase, testDatabase } from '../helpers/store-engines.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const SIGNING_SECRET = 'test-secret';
const { items } = SANDBOX_FIXTURES;

const REFUSED = [
  ['http://93.184.216.34', 'Enter an https:// URL'],
  ['https://user:secret@93.184.216.34', 'Enter an https:// URL'],
  ['https://169.254.169.254/latest/meta-data', 'not on the public internet'],
  ['https://127.0.0.1:6379', 'not on the public internet'],
  ['https://localhost:8443', 'not on the public internet'],
  ['https://10.0.0.5', 'not on the public internet'],
  ['https://172.16.3.4', 'not on the public internet'],
  ['https://192.168.1.1', 'not on the public internet'],
  ['https://100.64.0.1', 'not on the public internet'],
  ['https://224.0.0.1', 'not on the public internet'],
  ['https://0.0.0.0', 'not on the public internet'],
  ['https://[::1]', 'not on the public internet'],
  ['https://[fd00::1]', 'not on the public internet'],
  ['https://[fe80::1]', 'not on the public internet'],
  ['https://[::ffff:127.0.0.1]', 'not on the public internet'],
  ['https://[::ffff:a9fe:a9fe]', 'not on the public internet'],
] as const;

const dbEnv = (db: TestDatabase) =>
  db.options.url ? { DATABASE_URL: db.options.url } : { DATABASE_PATH: db.options.path ?? '' };

/** distributedModeEnv without the tests' loopback opt-in. */
function strictEnv(): Record<string, string> {
  const { PLAT_ACCOUNTS_LOOPBACK: _, ...env } = distributedModeEnv();
  return env;
}

describe.each(ENGINES)('M1: a workspace’s plat base URL on %s', (engine) => {
  let h: PlatdeskHarness | undefined;
  let db: TestDatabase | undefined;
  let listener: Server | undefined;
  afterEach(async () => {
    await h?.close();
    await db?.dispose();
    await new Promise((r) => (listener ? listener.close(r) : r(undefined)));
    listener = undefined;
  });

  async function start(env: Record<string, string>): Promise<PlatdeskHarness> {
    db = await testDatabase(engine);
    const app = await startPlatdeskHarness({ signingSecret: SIGNING_SECRET, env: { ...env, ...dbEnv(db) } });
    h = app;
    const oauth = installFakeOAuth(app.fake);
    await installThroughOAuth(app.platdesk.url, oauth, {
      teamId: SLACK.teamId,
      installerUserId: SLACK.adminId,
    });
    return app;
  }

  it('at save: https:// to a public address only; loopback, private, link-local, multicast and credentials are refused, nothing stored', async () => {
    const app = await start(strictEnv());
    await openConnectForm(app);
    for (const [url, why] of REFUSED) {
      const res = await app.submitView({
        callbackId: PLAT_ACCOUNT_FORM.callbackId,
        userId: SLACK.adminId,
        values: platAccountValues(url, 'plat-token-1'),
      });
      const body = JSON.parse(res.body || '{}') as { errors?: Record<string, string> };
      expect(body.errors?.[PLAT_ACCOUNT_FORM.baseUrl.block], url).toContain(why);
    }
    expect(await app.platdesk.store.platAccounts.get(SLACK.teamId)).toBeNull();
    const saved = await app.submitView({
      callbackId: PLAT_ACCOUNT_FORM.callbackId,
      userId: SLACK.adminId,
      values: platAccountValues('https://93.184.216.34', 'plat-token-1'),
    });
    expect(saved.body).toBe('');
    await expect
      .poll(() => app.platdesk.store.platAccounts.get(SLACK.teamId).then((a) => a?.baseUrl))
      .toBe('https://93.184.216.34');
  });

  it('at connect: a stored URL whose host now resolves to this machine (or is its address) gets no connection at all; nothing is charged', async () => {
    const app = await start(strictEnv());
    let connections = 0;
    listener = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener?.listen(0, '127.0.0.1', resolve));
    const port = (listener.address() as { port: number }).port;
    // As a save made while the name still resolved to a public address left it (DNS rebinding).
    for (const baseUrl of [`https://localhost:${port}`, `https://127.0.0.1:${port}`]) {
      await app.platdesk.store.platAccounts.set(
        SLACK.teamId,
        { baseUrl, token: 'plat-token-2' },
        SLACK.adminId,
      );
      const asked = await app.ask('/item', items.basic);
      const { answer } = await app.confirm(asked.confirmation);
      expect(textOf(answer)).toContain('The data service could not be reached');
    }
    expect(connections).toBe(0);
    const range = { from: new Date(0), to: new Date(Date.now() + 86_400_000) };
    expect(await app.platdesk.store.forTenant(SLACK.teamId).ledger.list(range)).toEqual([]);
  });
});

describe('M1: a replaced account’s connections', () => {
  let h: PlatdeskHarness | undefined;
  const sandboxes: Sandbox[] = [];
  let proxy: TcpProxy | undefined;
  afterEach(async () => {
    await h?.close();
    await proxy?.close();
    for (const s of sandboxes.splice(0)) await s.close();
  });

  it('are closed once the workspace connects another', async () => {
    // Loopback sandboxes: this test opts in (distributedModeEnv does).
    h = await startPlatdeskHarness({ signingSecret: SIGNING_SECRET, env: distributedModeEnv() });
    const oauth = installFakeOAuth(h.fake);
    await installThroughOAuth(h.platdesk.url, oauth, {
      teamId: SLACK.teamId,
      installerUserId: SLACK.adminId,
    });
    const first = createSandbox({ token: 'plat-first' });
    const second = createSandbox({ token: 'plat-second' });
    sandboxes.push(first, second);
    const firstUrl = new URL(await first.listen(0));
    proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(firstUrl.port) });
    const secondUrl = await second.listen(0);

    const connect = async (baseUrl: string, token: string) => {
      await openConnectForm(h as PlatdeskHarness);
      await h?.submitView({
        callbackId: PLAT_ACCOUNT_FORM.callbackId,
        userId: SLACK.adminId,
        values: platAccountValues(baseUrl, token),
      });
      await expect
        .poll(() => h?.platdesk.store.platAccounts.get(SLACK.teamId).then((a) => a?.token))
        .toBe(token);
    };
    await connect(`http://127.0.0.1:${proxy.port}`, 'plat-first');
    await h.lookup('/item', items.basic);
    expect(first.stats().calls).toBe(1);
    // The pool keeps its connection alive for the next call.
    expect(proxy.connections().open).toBe(1);

    await connect(secondUrl, 'plat-second');
    // Another item (the first is cached).
    await h.lookup('/item', items.withVideo);
    expect(second.stats().calls).toBe(1);
    await expect.poll(() => proxy?.connections().open, { timeout: 5000 }).toBe(0);
    expect(first.stats().calls).toBe(1);
  });
});
