/**
 * The app's logs (issue 7, "Logs"; DESIGN rule 6): pino JSON captured at debug level from a run
 * of several lookups (orders pages, errors, a ledger export). Secrets and order receiver fields
 * never appear; there is one 'slack request' line per request, each with a correlation id, and a
 * confirmed lookup's 'plat call' lines carry the id of the Confirm click that ran it.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { buildOrderBook } from '../src/sandbox/fixtures.js';
import { SANDBOX_FIXTURES } from '../src/sandbox/index.js';
import { buttonOf, textOf, useHarness } from './helpers/platdesk-harness.js';
import { SLACK } from './helpers/slack-payloads.js';

const { owners, links, waybills, shops } = SANDBOX_FIXTURES;

/** Distinctive values, so a leak of any of them is found by a plain text search. */
const SECRETS = {
  botToken: 'xoxb-4242-BOTTOKEN-c0ffee-do-not-log',
  signingSecret: 'SIGNINGSECRET-8d1f-do-not-log',
  platToken: 'PLATTOKEN-77e3-do-not-log',
};

/** Every receiver value of the sandbox's raw orders (receiver_name, _phone, _address, any *address). */
function receiverValues(): string[] {
  const values = new Set<string>();
  // Receiver fields come from the seeded PRNG alone: any anchor gives the same ones.
  for (const orders of buildOrderBook(Date.now()).values())
    for (const order of orders)
      for (const [key, value] of Object.entries(order))
        if (/^receiver_|address/.test(key) && typeof value === 'string') values.add(value);
  return [...values];
}

interface LogLine {
  level: number;
  msg: string;
  correlationId?: string;
  kind?: string;
  name?: string | null;
  operation?: string;
  [key: string]: unknown;
}

describe('logs', () => {
  /** Slack requests sent, by kind and name, in order. */
  const requests: { kind: string; name: string }[] = [];
  let lines: LogLine[] = [];
  let text = '';

  const h = useHarness({
    logLevel: 'debug',
    signingSecret: SECRETS.signingSecret,
    env: { SLACK_BOT_TOKEN: SECRETS.botToken, SANDBOX_TOKEN: SECRETS.platToken, LOG_LEVEL: 'debug' },
    platTimeouts: { deadlineMs: 300 },
  });
  beforeAll(async () => {
    const command = async (name: string, argText: string, userId?: string) => {
      requests.push({ kind: 'command', name });
      return h().command(name, argText, userId ? { userId } : {});
    };
    const ask = async (name: string, argText: string) => {
      requests.push({ kind: 'command', name });
      return h().ask(name, argText);
    };
    const confirm = async (confirmation: Awaited<ReturnType<typeof ask>>['confirmation']) => {
      requests.push({ kind: 'block_actions', name: 'platdesk.confirm' });
      return h().confirm(confirmation);
    };

    // Orders, page 1 then the Next button (a pager click runs the next page's lookup).
    const first = await ask('/orders', `${owners.busy} size:5`);
    const page1 = await confirm(first.confirmation);
    expect(textOf(page1.answer)).toContain('Orders of');
    const next = buttonOf(page1.answer, 'platdesk.orders.next');
    requests.push({ kind: 'block_actions', name: 'platdesk.orders.next' });
    const click = await h().click('platdesk.orders.next', next.value);
    await h().nextResponse(click.responseUrlId); // Looking up…
    expect(textOf(await h().nextResponse(click.responseUrlId))).toContain('page 2');

    // A waybill lookup, a shop lookup, and errors: a refused token (401) and an HTML 500.
    const wb = await ask('/waybill', `${waybills.ok.join(' ')} shop:${shops.clothing}`);
    await confirm(wb.confirmation);
    h().sandbox.setFaults([{ kind: 'code', code: 401, count: 1 }]);
    const refused = await ask('/shop', links.firstMarketplace);
    expect(textOf((await confirm(refused.confirmation)).answer)).toContain('not valid');
    h().sandbox.setFaults([{ kind: 'http500', count: 1 }]);
    const broken = await ask('/orders', `${owners.small}`);
    expect(textOf((await confirm(broken.confirmation)).answer)).toContain('unreadable');
    h().sandbox.setFaults([]);

    // Invalid input, help, and the admin's ledger export (a file upload through the Web API).
    await command('/waybill', 'not-a-waybill shop:1');
    await command('/item', 'help');
    const exported = await command('/platdesk', 'export month', SLACK.adminId);
    expect(textOf(await h().nextResponse(exported.responseUrlId))).toContain('ledger export');
    await h().settle(50);
    // The request line is written when the listener is done: wait for the last ones.
    await vi.waitFor(() => {
      expect(
        h()
          .logs()
          .filter((l) => l.includes('"msg":"slack request"')),
      ).toHaveLength(requests.length);
    });
    text = h().logs().join('\n');
    lines = h()
      .logs()
      .map((l) => JSON.parse(l) as LogLine);
  });

  it('captured a debug-level run: plat calls, Bolt and Web API lines', () => {
    expect(lines.length).toBeGreaterThan(50);
    expect(lines.some((l) => l.level === 20 && l.msg === 'plat call')).toBe(true);
    expect(lines.some((l) => l.component === 'bolt' && l.level === 20)).toBe(true);
  });

  it('never holds the bot token, the signing secret or the plat token', () => {
    for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
    // Nor an Authorization header's value under another name.
    expect(text).not.toMatch(/Bearer\s+[A-Za-z0-9]/);
  });

  it('never holds a receiver name, phone or address of the raw orders', () => {
    const values = receiverValues();
    expect(values.length).toBeGreaterThan(100);
    const leaked = values.filter((v) => text.includes(v) || text.includes(JSON.stringify(v).slice(1, -1)));
    expect(leaked).toEqual([]);
  });

  it('writes one "slack request" line per request, each with its own correlation id', () => {
    const logged = lines.filter((l) => l.msg === 'slack request');
    expect(logged.map((l) => ({ kind: l.kind, name: l.name }))).toEqual(requests);
    const ids = logged.map((l) => l.correlationId);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("carries the Confirm click's correlation id into its lookup's plat call lines", () => {
    const requestLines = lines.filter((l) => l.msg === 'slack request');
    const platCalls = lines.filter((l) => l.msg === 'plat call');
    expect(platCalls).toHaveLength(5); // two orders pages, the waybills, the 401, the 500
    const byId = new Map(requestLines.map((l) => [l.correlationId, l]));
    // Every plat call belongs to the click that confirmed (or paged) its lookup.
    for (const call of platCalls) {
      const request = byId.get(call.correlationId);
      expect(request, `plat call ${call.operation} without its request`).toBeDefined();
      expect(['platdesk.confirm', 'platdesk.orders.next']).toContain(request?.name);
    }
    // And each confirm click has its lookup's calls: orders, waybill, shop (401), orders (500).
    const confirms = requestLines.filter((l) => l.name === 'platdesk.confirm');
    const firstCall = (id: string | undefined) => platCalls.find((p) => p.correlationId === id);
    expect(confirms.map((c) => firstCall(c.correlationId)?.operation)).toEqual([
      'paging-orders',
      'platdybw',
      'get-shop-info',
      'paging-orders',
    ]);
  });
});
