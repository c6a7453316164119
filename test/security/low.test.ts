/**
 * Issue 34, the low findings, one test each (each failed on 5ce7905):
 * - `/platdesk language WORKSPACE …` in capitals skipped the admin check;
 * - `/metrics` and `/healthz` were public on the Slack port, `/healthz` with the process's
 *   internals (engine, limiter, ledger backlog);
 * - the GCM tag length was not pinned: a value whose tag was cut to 4 bytes still opened;
 * - `rotate-keys` counted a row as re-sealed when its conditional UPDATE changed nothing;
 * - the early ack answered 413 to every body error (an aborted body was logged as too large);
 * - at debug level, message bodies (goods names, remarks) reached the log.
 */
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import { createSecretBox } from '../../src/store/secrets.js';
import type { NewInstallation } from '../../src/store/store.js';
import {
  type PlatdeskHarness,
  SIGNING_SECRET,
  startPlatdeskHarness,
  textOf,
  useHarness,
} from '../helpers/platdesk-harness.js';
import { slackSignature } from '../helpers/slack-http.js';
import { SLACK, slashCommand } from '../helpers/slack-payloads.js';
import { ENGINES, testDatabase } from '../helpers/store-engines.js';

const { owners } = SANDBOX_FIXTURES;

describe('low: /platdesk language WORKSPACE in capitals', () => {
  const h = useHarness();

  it('is for admins in any case of letters, and changes nothing for others', async () => {
    for (const text of ['language WORKSPACE zh-CN', 'language Workspace zh-CN', 'LANGUAGE wOrKsPaCe zh-CN']) {
      const sent = await h().command('/platdesk', text, { userId: SLACK.userId });
      expect(textOf(await h().nextResponse(sent.responseUrlId))).toContain('is for platdesk admins');
    }
    expect(await h().platdesk.store.settings.get('locale.workspace')).toBeNull();
  });
});

describe('low: /metrics and /healthz on the Slack port', () => {
  const h = useHarness();

  it('/metrics is not served on the Slack port; it is on METRICS_PORT. /healthz there tells ok or not, nothing more', async () => {
    const onSlackPort = await fetch(`${h().platdesk.url}/metrics`);
    expect(onSlackPort.status).toBe(404);
    await onSlackPort.text();
    const health = await fetch(`${h().platdesk.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true });

    const internal = (h().platdesk as { metricsUrl?: string | null }).metricsUrl;
    expect(internal).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(internal).not.toBe(h().platdesk.url);
    const metrics = await fetch(`${internal}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('platdesk_ledger_backlog');
    const details = await (await fetch(`${internal}/healthz`)).json();
    expect(details).toMatchObject({ ok: true, store: { engine: 'sqlite', reachable: true } });
  });

  it('with METRICS_TOKEN, /metrics is on the Slack port too, for that bearer token only', async () => {
    const token = randomBytes(16).toString('hex');
    const app = await startPlatdeskHarness({ env: { METRICS_TOKEN: token } });
    try {
      const none = await fetch(`${app.platdesk.url}/metrics`);
      const wrong = await fetch(`${app.platdesk.url}/metrics`, { headers: { authorization: 'Bearer nope' } });
      const right = await fetch(`${app.platdesk.url}/metrics`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect([none.status, wrong.status, right.status]).toEqual([401, 401, 200]);
      expect(await right.text()).toContain('platdesk_ledger_backlog');
    } finally {
      await app.close();
    }
  });
});

describe('low: the GCM tag length', () => {
  it('a sealed value whose tag is cut short does not open (the tag is 16 bytes, always)', () => {
    const box = createSecretBox([{ id: 'k1', key: randomBytes(32) }]);
    const row = { tenant: 'T1', purpose: 'plat.token' };
    const parts = box.seal('plat-token-secret', row).split(':');
    const tag = Buffer.from(parts[3] ?? '', 'base64url');
    for (const bytes of [4, 8, 12, 15]) {
      const cut = [...parts];
      cut[3] = tag.subarray(0, bytes).toString('base64url');
      expect(() => box.open(cut.join(':'), row)).toThrow(/does not open|not a sealed value/);
    }
  });
});

describe.each(ENGINES)('low: rotate-keys on %s', (engine) => {
  const install = (tenant: string): NewInstallation => ({
    tenant,
    enterpriseId: null,
    enterpriseName: null,
    teamId: tenant,
    teamName: tenant,
    isEnterpriseInstall: false,
    appId: 'A1',
    botId: 'B1',
    botUserId: 'UBOT',
    botScopes: ['commands'],
    botToken: `xoxb-${tenant}`,
    botRefreshToken: null,
    botExpiresAt: null,
    installerUserId: 'U1',
  });

  it('counts only the rows it really re-sealed', async () => {
    const db = await testDatabase(engine);
    try {
      const old = { id: 'old', key: randomBytes(32) };
      const before = await db.open({ encryptionKeys: [old] });
      for (const t of ['T1', 'T2']) {
        await before.installations.save(install(t));
        await before.platAccounts.set(t, { baseUrl: 'https://plat.example', token: `tok-${t}` }, 'U1');
      }
      // T2's rows change under rotate-keys (a token refreshed, an account replaced): its
      // conditional UPDATE then changes nothing. Stood for by a trigger that skips its updates.
      if (engine === 'sqlite') {
        const raw = new Database(db.options.path as string);
        for (const table of ['slack_installations', 'plat_accounts'])
          raw.exec(
            `CREATE TRIGGER skip_${table} BEFORE UPDATE ON ${table} WHEN OLD.tenant = 'T2' BEGIN SELECT RAISE(IGNORE); END`,
          );
        raw.close();
      } else {
        const client = new pg.Client({ connectionString: db.options.url as string });
        await client.connect();
        await client.query(
          `CREATE FUNCTION skip_t2() RETURNS trigger AS $$ BEGIN IF OLD.tenant = 'T2' THEN RETURN NULL; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`,
        );
        for (const table of ['slack_installations', 'plat_accounts'])
          await client.query(
            `CREATE TRIGGER skip_${table} BEFORE UPDATE ON ${table} FOR EACH ROW EXECUTE FUNCTION skip_t2()`,
          );
        await client.end();
      }
      const after = await db.open({ encryptionKeys: [{ id: 'new', key: randomBytes(32) }, old] });
      expect(await after.installations.reseal()).toBe(1);
      expect(await after.platAccounts.reseal()).toBe(1);
    } finally {
      await db.dispose();
    }
  });
});

describe('low: body errors of the early ack', () => {
  let h: PlatdeskHarness;
  beforeAll(async () => {
    h = await startPlatdeskHarness({ logLevel: 'info' });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('a body cut off mid-way is logged as cut off (not as too large) and a compressed one gets 415', async () => {
    const body = new URLSearchParams(
      slashCommand({ command: '/item', text: 'help', responseUrl: h.fake.responseUrl('cut') }) as never,
    ).toString();
    const ts = Math.floor(Date.now() / 1000);
    const { port } = new URL(h.eventsUrl);
    // Headers promise the whole body; half of it comes, then the connection is cut.
    await new Promise<void>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(
          [
            'POST /slack/events HTTP/1.1',
            'host: 127.0.0.1',
            'content-type: application/x-www-form-urlencoded',
            `content-length: ${body.length}`,
            `x-slack-request-timestamp: ${ts}`,
            `x-slack-signature: ${slackSignature(SIGNING_SECRET, ts, body)}`,
            '',
            body.slice(0, 20),
          ].join('\r\n'),
        );
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 100);
      });
    });
    await new Promise((r) => setTimeout(r, 200));
    const lines = h.logs().join('\n');
    expect(lines).not.toContain('over the size limit');
    expect(lines).toContain('Slack request body cut off');

    const gzip = await fetch(h.eventsUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'content-encoding': 'gzip',
        'x-slack-request-timestamp': String(ts),
        'x-slack-signature': slackSignature(SIGNING_SECRET, ts, body),
      },
      body,
    });
    expect(gzip.status).toBe(415);
  });
});

describe('low: message bodies at debug level', () => {
  let h: PlatdeskHarness;
  beforeAll(async () => {
    h = await startPlatdeskHarness({ logLevel: 'debug' });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('an /orders page with goods names and remarks leaves neither in the log', async () => {
    const canary = { goods: '金丝猴奶糖-CANARY-GOODS', remark: '请放门口-CANARY-REMARK' };
    h.sandbox.setFaults([
      {
        kind: 'code',
        code: 0,
        operations: ['paging-orders'],
        data: {
          content: [
            {
              order_sn: '260101-0000000001',
              goods_name: canary.goods,
              goods_spec: '500g',
              goods_count: 1,
              pay_amount: 19.9,
              order_status: 1,
              confirm_time: Math.floor(Date.now() / 1000) - 3600,
              last_ship_time: Math.floor(Date.now() / 1000) + 3600,
              remark: canary.remark,
              remark_tag: 1,
              remark_tag_name: null,
            },
          ],
          page: 0,
          pageSize: 20,
          total_elements: 1,
          withholding_money: 2,
        },
      },
    ]);
    const { answer } = await h.lookup('/orders', owners.busy);
    expect(textOf(answer)).toContain(canary.goods);
    // A digest of the same orders, posted with chat.postMessage (the Web API client's debug lines).
    const later = new Date(h.now().getTime() + 20 * 3_600_000);
    const at = `${String(later.getUTCHours()).padStart(2, '0')}:00`;
    const admin = async (text: string, wait = 5000) => {
      const sent = await h.command('/orders', text, { userId: SLACK.adminId });
      return textOf(await h.nextResponse(sent.responseUrlId, wait));
    };
    expect(await admin(`digest add ${owners.busy} <#C1234|support> ${at}`)).toContain('Digest #1 added');
    const sent = await h.command('/orders', 'digest run 1', { userId: SLACK.adminId });
    await h.nextResponse(sent.responseUrlId);
    expect(textOf(await h.nextResponse(sent.responseUrlId, 10_000))).toContain('Digest posted');
    const posted = h.fake.callsTo('chat.postMessage').map((c) => JSON.stringify(c.body));
    expect(posted.some((p) => p.includes('CANARY-REMARK'))).toBe(true);
    await new Promise((r) => setTimeout(r, 200));
    const lines = h.logs();
    expect(lines.some((l) => JSON.parse(l).level === 20)).toBe(true);
    for (const line of lines) {
      expect(line).not.toContain('CANARY');
      // Slack's form encoding of the same text.
      expect(line).not.toContain(encodeURIComponent(canary.goods));
    }
  });
});
