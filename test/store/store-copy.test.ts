/**
 * `npm run store:copy` (src/store/copy.ts, copy-cli.ts, built to dist/store-copy.js) through real parts: a SQLite store filled
 * through the Store API, copied into a fresh database on the run's PostgreSQL test server, then
 * opened there with the Store API and read back; refusals (non-empty target, older or newer
 * source) and the command line itself (exit codes, the counts table, no password printed).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, inject, it } from 'vitest';
import {
  converterFor,
  copySqliteToPostgres,
  StoreCopyMismatchError,
  StoreCopyRefusedError,
  type TableCopied,
} from '../../src/store/copy.js';
import { openStore } from '../../src/store/engine.js';
import { MIGRATIONS, migrate } from '../../src/store/migrations.js';
import type { Schema } from '../../src/store/schema.js';
import type { CapLimit, Lease, NewLedgerEntry, Store } from '../../src/store/store.js';
import {
  createPostgresDatabase,
  dropPostgresDatabase,
  type TestDatabase,
  testDatabase,
} from '../helpers/store-engines.js';

/** PLATDESK_ENCRYPTION_KEY of every store in this file. */
const KEYS = [{ id: 'k1', key: Buffer.alloc(32, 3) }];
const T0 = Date.parse('2026-11-20T01:00:00.000Z');
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const clock = { now: () => T0 };
/** The claiming process of a running confirmation, with its lease. */
const holder = { instanceId: 'instance-a', leaseMs: 10 * MINUTE };
const ALL_TIME = { from: new Date(0), to: new Date(T0 + 365 * DAY) };
const caps: CapLimit[] = [
  { scope: 'user', subject: 'U1', period: 'daily', key: '2026-11-20', cap: 5000 },
  { scope: 'workspace', subject: '*', period: 'monthly', key: '2026-11', cap: 50_000 },
];
const lease = (owner: string, ms = 10 * MINUTE): Lease => ({ owner, ms });

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function sqliteSource(): Promise<TestDatabase> {
  const db = await testDatabase('sqlite');
  cleanups.push(() => db.dispose());
  return db;
}

async function postgresTarget(): Promise<string> {
  const url = await createPostgresDatabase();
  cleanups.push(() => dropPostgresDatabase(url));
  return url;
}

function ledgerEntry(n: number, overrides: Partial<NewLedgerEntry> = {}): NewLedgerEntry {
  return {
    chargeId: `copy-charge-${n}`,
    at: new Date(T0 - n * MINUTE),
    userId: n % 3 === 0 ? null : `U${n % 2}`,
    channelId: 'C1234',
    operation: n % 2 === 0 ? 'item-details' : 'paging-orders',
    edition: n % 2 === 0 ? 1 : null,
    points: 1.5 * n,
    quotaCalls: n % 2,
    code: n % 5 === 0 ? 202 : 0,
    outcome: n % 5 === 0 ? 'error' : 'ok',
    requestId: `req-${n}`,
    correlationId: `cor-${n}`,
    pendingId: null,
    source: n % 3 === 0 ? 'digest' : 'interactive',
    ...overrides,
  };
}

/** What the fill left behind, to read back on the other engine. */
interface Filled {
  pendingIds: string[];
  runIds: number[];
  subscriptionIds: number[];
  batchIds: string[];
  alertSubscriptionId: number;
  checkIds: number[];
}

/** Everything platdesk keeps, written through the Store API as the app would. */
async function fill(store: Store): Promise<Filled> {
  const newPending = (userId: string, ttlMs = 5 * MINUTE) =>
    store.pending.create({
      userId,
      channelId: 'C1234',
      teamId: 'T1234',
      request: { kind: 'orders', ownerId: 'S100', filters: { startTime: new Date(T0 - DAY) } },
      quote: { totalPoints: 10, lines: [{ operation: 'paging-orders', edition: 1 }] },
      summary: 'Orders of shop S100 & <friends>, page 1',
      responseUrl: 'https://hooks.slack.test/actions/1',
      ttlMs,
    });
  // Confirmations in every state: pending, running, done, failed, cancelled, and one expired.
  const pending = await newPending('U1');
  const running = await newPending('U1');
  const done = await newPending('U2');
  const failed = await newPending('U2');
  const cancelled = await newPending('U1');
  const expired = await newPending('U3', -1);
  await store.pending.claim(running.id, 'U1', holder);
  await store.pending.claim(done.id, 'U2', holder);
  await store.pending.finish(done.id, 'done', '{"text":"3 orders","blocks":[]}');
  await store.pending.claim(failed.id, 'U2', holder);
  await store.pending.finish(failed.id, 'failed', null);
  await store.pending.cancel(cancelled.id, 'U1');

  for (let n = 1; n <= 40; n++)
    await store.ledger.record(ledgerEntry(n, { pendingId: n === 1 ? done.id : null }));

  await store.prefs.setConfirmThreshold('U1', 25.5);
  await store.prefs.setConfirmThreshold('U2', null);
  await store.settings.set('admins', ['UADMIN', 'U2'], 'UADMIN');
  await store.settings.set(
    'budgets',
    { dailyUserCap: 1000, monthlyCap: 5000, since: new Date(T0) },
    'UADMIN',
  );
  await store.settings.set('shops', { tea: '2200001002' }, 'UADMIN');
  await store.settings.delete('shops', 'U2');

  const tea = await store.digests.add({
    ownerId: '2200001002',
    shopLabel: 'tea',
    channelId: 'C1234',
    localTime: '09:00',
    timeZone: 'Asia/Shanghai',
    createdBy: 'UADMIN',
  });
  const gone = await store.digests.add({
    ownerId: '2200001003',
    shopLabel: 'gone',
    channelId: 'C9999',
    localTime: '18:30',
    timeZone: 'Europe/Berlin',
    createdBy: 'UADMIN',
  });
  const window = { windowStart: new Date(T0 - DAY), windowEnd: new Date(T0), requestedBy: null };
  const posted = await store.digests.claimScheduled(
    { subscriptionId: tea.id, localDate: '2026-11-19', ...window },
    lease('a'),
  );
  await store.digests.addCharge(posted.run.id, 12.5, 3);
  const postedBy = { owner: 'a', epoch: posted.run.epoch };
  await store.digestPages.record(posted.run.id, postedBy, {
    window: 0,
    page: 0,
    totalPages: 1,
    ordersJson: '[]',
    orderCount: 0,
    points: 2,
  });
  // A call written ahead whose answer never reached the ledger (its holder died).
  await store.sentCalls.record({
    chargeId: `digest:${posted.run.id}:${posted.run.epoch}:1:0`,
    runKey: `digest:${posted.run.id}`,
    epoch: posted.run.epoch,
    source: 'digest',
    operation: 'paging-orders',
    edition: 1,
    channelId: tea.channelId,
    correlationId: `digest-${posted.run.id}`,
    attempt: 0,
    sentAt: new Date(T0),
  });
  await store.digests.markPosting(posted.run.id, { ...lease('a'), ...postedBy }, '{"orders":3}');
  await store.digests.markPosted(posted.run.id, postedBy, '1763600000.000100', new Date(T0));
  const failing = await store.digests.claimScheduled(
    { subscriptionId: tea.id, localDate: '2026-11-20', ...window },
    lease('a'),
  );
  await store.digests.markFailed(
    failing.run.id,
    { owner: 'a', epoch: failing.run.epoch },
    {
      error: 'plat 101',
      nextAttemptAt: new Date(T0 + 5 * MINUTE),
      now: new Date(T0),
    },
  );
  await store.digests.setNoticeTs(failing.run.id, '1763600000.000200');
  const manual = await store.digests.createManual(
    { subscriptionId: gone.id, localDate: '2026-11-20', ...window, requestedBy: 'UADMIN' },
    lease('b'),
  );
  if (!manual) throw new Error('the fill expected a manual run');
  await store.digests.awaitApproval(manual.id, { owner: 'b', epoch: manual.epoch }, 900, new Date(T0));
  await store.digests.remove(gone.id, 'UADMIN');

  await store.unfurls.firstSeen('Ev1', DAY);
  await store.unfurls.firstSeen('Ev2', DAY);
  const auto = { channelId: 'C1234', userId: 'U1', since: new Date(T0 - DAY), day: '2026-11-20', cap: 5 };
  const first = await store.unfurls.beginAuto({ ...auto, itemId: '100' });
  const second = await store.unfurls.beginAuto({ ...auto, itemId: '200' });
  if (!first.started || !second.started) throw new Error('the fill expected two automatic lookups');
  await store.unfurls.finishAuto(first.record.id, 'done', '{"kind":"item","id":"100"}', null);
  // Removed: its id stays used (SQLite AUTOINCREMENT), and must stay used on PostgreSQL.
  await store.unfurls.abandonAuto(second.record.id, auto.day);
  await store.unfurls.recordOffered({
    channelId: 'C1234',
    itemId: '300',
    userId: 'U2',
    pendingId: pending.id,
  });

  const open = await store.shortcutBatches.create({
    userId: 'U1',
    kind: 'items',
    channelId: 'C1234',
    threadTs: '1763600000.000300',
    payloadJson: '{"items":["100","200"]}',
    ttlMs: 10 * MINUTE,
  });
  const used = await store.shortcutBatches.create({
    userId: 'U2',
    kind: 'any',
    channelId: null,
    threadTs: null,
    payloadJson: '{"waybills":["YT123"]}',
    ttlMs: 10 * MINUTE,
  });
  await store.shortcutBatches.claim(used.id, 'U2');

  const reserved = await store.budgets.reserve({ userId: 'U1', points: 30, caps, ttlMs: 10 * MINUTE });
  const released = await store.budgets.reserve({ userId: null, points: 7, caps, ttlMs: 10 * MINUTE });
  if (!reserved.ok || !released.ok) throw new Error('the fill expected two reservations');
  await store.budgets.release(released.id);

  await store.cache.set('item:100', '{"title":"Tea & <cups>"}');
  await store.cache.set('shop:ww:1', '{"shopId":"S100"}');
  await store.alertsSent.claim('balance:low:2026-11-20T01', 60 * MINUTE);
  await store.alertsSent.claim('budget:daily:2026-11-20', DAY);
  // Whose turn the hourly housekeeping was (store/turns.ts).
  expect(await store.turns.take('housekeeping', 'copy-test', 60 * MINUTE)).toBe(true);

  // Distributed mode (issue 24): an installation and a plat account, sealed (their values open
  // after the copy: the associated data names the tenant and purpose, not the table or engine),
  // and an uninstalled workspace awaiting erasure.
  const installation = (tenant: string) => ({
    tenant,
    enterpriseId: null,
    enterpriseName: null,
    teamId: tenant,
    teamName: 'Shop & <co>',
    isEnterpriseInstall: false,
    appId: 'A1234',
    botId: 'B1',
    botUserId: 'UBOT',
    botScopes: ['commands', 'chat:write'],
    botToken: `xoxe.xoxb-${tenant}`,
    botRefreshToken: `xoxe-1-${tenant}`,
    botExpiresAt: new Date(Date.parse('2026-11-21T00:00:00Z')),
    installerUserId: 'UADMIN',
  });
  await store.installations.save(installation('T1234'));
  await store.installations.save(installation('T5678'));
  await store.platAccounts.set(
    'T1234',
    { baseUrl: 'https://plat.example', token: 'plat-token-T1234' },
    'UADMIN',
  );
  await store.installations.uninstall('T5678', {
    reason: 'app_uninstalled',
    eraseAfter: new Date(Date.parse('2026-12-20T00:00:00Z')),
  });

  // Language choices are settings (lookups/locale.ts keys).
  await store.settings.set('locale.workspace', 'zh-CN', 'UADMIN');
  await store.settings.set('locale.user.U1', 'en', 'U1');
  await store.settings.set('locale.channel.C1234', 'zh-CN', 'UADMIN');

  // Ship-by alerts: a subscription, a posted check with its alerted orders (one claimed, one
  // handled), a check waiting for approval, the day's cap approval and ask, the failure notice.
  const shipBy = await store.alerts.add({
    ownerId: '2200001002',
    shopLabel: 'tea',
    channelId: 'C1234',
    withinHours: 6,
    everyMinutes: 30,
    hoursFrom: '09:00',
    hoursTo: '18:00',
    timeZone: 'Asia/Shanghai',
    capPoints: 500,
    createdBy: 'UADMIN',
  });
  const order = (sn: string, hours: number) => ({
    orderSn: sn,
    goodsName: `Tea & <cups> ${sn}`,
    goodsCount: 2,
    amountFen: 1999,
    lastShipTime: new Date(T0 + hours * 60 * MINUTE),
  });
  const checked = await store.alerts.claimCheck(
    { subscriptionId: shipBy.id, slotAt: new Date(T0 - 30 * MINUTE), localDate: '2026-11-20' },
    lease('a'),
  );
  if (!checked.claimed) throw new Error('the fill expected a check');
  await store.alerts.addCharge(checked.check.id, 4.5, 2);
  const checkedBy = { owner: 'a', epoch: checked.check.epoch };
  await store.alerts.recordPending(checked.check.id, { ...lease('a'), ...checkedBy }, [
    order('SN1', 2),
    order('SN2', 5),
  ]);
  await store.alerts.markPosting(checked.check.id, { ...lease('a'), ...checkedBy });
  await store.alerts.markPosted(checked.check.id, checkedBy, '1763600000.000400', new Date(T0));
  await store.alerts.claimOrder(shipBy.id, 'SN1', 'U1', new Date(T0));
  await store.alerts.handleOrder(shipBy.id, 'SN2', 'U2', new Date(T0));
  const waiting = await store.alerts.claimCheck(
    { subscriptionId: shipBy.id, slotAt: new Date(T0), localDate: '2026-11-20' },
    lease('b'),
  );
  if (!waiting.claimed) throw new Error('the fill expected a second check');
  await store.alerts.awaitApproval(
    waiting.check.id,
    { owner: 'b', epoch: waiting.check.epoch },
    700,
    new Date(T0),
  );
  await store.alerts.markAsked(shipBy.id, '2026-11-20', new Date(T0));
  await store.alerts.approveDay(shipBy.id, '2026-11-19', 'UADMIN', new Date(T0 - DAY));
  await store.alerts.setNoticeTs(shipBy.id, '1763600000.000500');
  // The agent's thread memory and feedback (issue 36; not filled on branch agent).
  await store.agent.setThread('C1234', '1763600000.000600', '{"refs":[],"lastCalls":[]}');
  await store.agent.addFeedback({
    userId: 'U1',
    channelId: 'C1234',
    messageTs: '1763600000.000700',
    value: 'good',
    tools: 'lookup_waybill',
    at: new Date(T0),
  });
  // MCP tokens (issue 37): one live and used, one revoked.
  await store.mcpTokens.create({
    id: 'tok-1',
    userId: 'U1',
    name: 'laptop',
    hash: 'a'.repeat(64),
    expiresAt: new Date(T0 + DAY),
  });
  await store.mcpTokens.create({
    id: 'tok-2',
    userId: 'U2',
    name: 'ci',
    hash: 'b'.repeat(64),
    expiresAt: new Date(T0 + DAY),
  });
  await store.mcpTokens.used('tok-1', new Date(T0), 'Claude Desktop');
  await store.mcpTokens.revoke('ci', 'U2', 'UADMIN');

  return {
    pendingIds: [pending.id, running.id, done.id, failed.id, cancelled.id, expired.id],
    runIds: [posted.run.id, failing.run.id, manual.id],
    subscriptionIds: [tea.id, gone.id],
    batchIds: [open.id, used.id],
    alertSubscriptionId: shipBy.id,
    checkIds: [checked.check.id, waiting.check.id],
  };
}

/** Everything the Store API can read of what fill() wrote. */
async function readAll(store: Store, filled: Filled) {
  return {
    pending: await Promise.all(filled.pendingIds.map((id) => store.pending.get(id))),
    runningClaims: await store.pending.runningClaims(),
    ledger: await store.ledger.list(ALL_TIME),
    ledgerTotals: await store.ledger.totals(ALL_TIME),
    byUser: await store.ledger.groupTotals('user', ALL_TIME),
    byOperation: await store.ledger.groupTotals('operation', ALL_TIME),
    lastCharge: await store.ledger.lastCharge('item-details', 1),
    thresholds: [await store.prefs.getConfirmThreshold('U1'), await store.prefs.getConfirmThreshold('U2')],
    audit: await store.audit.list(100),
    settings: [
      await store.settings.get('admins'),
      await store.settings.get('budgets'),
      await store.settings.get('shops'),
      await store.settings.get('locale.workspace'),
      await store.settings.get('locale.user.U1'),
      await store.settings.get('locale.channel.C1234'),
    ],
    subscriptions: await store.digests.list(),
    removedSubscription: await store.digests.get(filled.subscriptionIds[1] ?? -1),
    installation: await store.installations.get('T1234'),
    platAccount: await store.platAccounts.get('T1234'),
    erasure: await store.installations.erasure('T5678'),
    runs: await Promise.all(filled.runIds.map((id) => store.digests.run(id))),
    lastRuns: await Promise.all(filled.subscriptionIds.map((id) => store.digests.lastRun(id))),
    unfurls: [
      await store.unfurls.recent('C1234', '100', new Date(0)),
      await store.unfurls.recent('C1234', '200', new Date(0)),
      await store.unfurls.recent('C1234', '300', new Date(0)),
    ],
    autoUsed: await store.unfurls.autoUsed('C1234', '2026-11-20'),
    batches: await Promise.all(filled.batchIds.map((id) => store.shortcutBatches.get(id))),
    budgetUses: [await store.budgets.uses(caps), await store.budgets.uses(caps.slice(1))],
    cache: [await store.cache.get('item:100', new Date(0)), await store.cache.get('shop:ww:1', new Date(0))],
    alertsSent: [await store.alertsSent.recent('balance:', 10), await store.alertsSent.recent('budget:', 10)],
    alertSubscriptions: await store.alerts.list(),
    checks: await Promise.all(filled.checkIds.map((id) => store.alerts.check(id))),
    openChecks: await store.alerts.openChecks(),
    lastPosted: await store.alerts.lastPosted(filled.alertSubscriptionId),
    spentOn: await store.alerts.spentOn(filled.alertSubscriptionId, '2026-11-20'),
    alertOrders: await store.alerts.orders(filled.alertSubscriptionId, [
      'pending',
      'alerted',
      'handled',
      'shipped',
      'unknown',
    ]),
    approvedOn: [
      await store.alerts.approvedOn(filled.alertSubscriptionId, '2026-11-19'),
      await store.alerts.approvedOn(filled.alertSubscriptionId, '2026-11-20'),
    ],
    alertNotice: await store.alerts.noticeTs(filled.alertSubscriptionId),
  };
}

const count = (tables: TableCopied[], name: string) => tables.find((t) => t.table === name)?.source;

describe('store:copy (SQLite → PostgreSQL)', () => {
  it('copies a store filled through the Store API, and the PostgreSQL store reads back the same', async () => {
    const source = await sqliteSource();
    const filling = await source.open({ clock, encryptionKeys: KEYS });
    const filled = await fill(filling);
    await filling.close();
    const url = await postgresTarget();

    const report = await copySqliteToPostgres({ from: source.options.path ?? '', to: url, batchRows: 7 });

    expect(report.version).toBe(MIGRATIONS.length);
    // Every table of the source, counted on both sides, and equal; but the migration runner's own
    // bookkeeping (what older builds may still write), which each engine's runner writes itself.
    const sqlite = new Database(source.options.path ?? '', { readonly: true });
    const tables = sqlite
      .prepare(
        `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'platdesk_rollout'`,
      )
      .pluck()
      .all() as string[];
    for (const t of report.tables)
      expect(t.source, t.table).toBe(sqlite.prepare(`SELECT count(*) FROM "${t.table}"`).pluck().get());
    sqlite.close();
    expect(report.tables.map((t) => t.table).sort()).toEqual(tables.sort());
    for (const t of report.tables) expect(t.target, t.table).toBe(t.source);
    // The fill reaches every table (migration 6's shared state and the alert tables included),
    // so a table the copier skipped or emptied would show here.
    for (const t of report.tables) expect(t.source, `${t.table} filled`).toBeGreaterThan(0);
    expect(count(report.tables, 'ledger')).toBe(40);
    expect(count(report.tables, 'pending_lookups')).toBe(6);
    expect(count(report.tables, 'digest_runs')).toBe(3);
    // Parents before children (digest_runs references digest_subscriptions).
    const order = report.tables.map((t) => t.table);
    expect(order.indexOf('digest_subscriptions')).toBeLessThan(order.indexOf('digest_runs'));

    const before = await source.open({ clock, encryptionKeys: KEYS });
    const after = await openStore({ url, clock, encryptionKeys: KEYS });
    cleanups.push(() => after.close());
    const expected = await readAll(before, filled);
    expect(expected.ledger).toHaveLength(40);
    expect(expected.pending.every((p) => p !== null)).toBe(true);
    expect(expected.runs.every((r) => r !== null)).toBe(true);
    // The running claim keeps its holder and lease; the alert rows are there to compare.
    expect(expected.runningClaims).toEqual([
      expect.objectContaining({ claimedBy: 'instance-a', leaseExpiresAt: new Date(T0 + 10 * MINUTE) }),
    ]);
    expect(expected.checks.map((c) => c?.state)).toEqual(['posted', 'awaiting_approval']);
    expect(expected.alertOrders.map((o) => [o.orderSn, o.state, o.claimedBy])).toEqual([
      ['SN1', 'alerted', 'U1'],
      ['SN2', 'handled', null],
    ]);
    expect(await readAll(after, filled)).toEqual(expected);

    // Handled event ids stay handled: a Slack retry is not processed again after the move.
    expect(await after.unfurls.firstSeen('Ev1', DAY)).toBe(false);
    // The single-use claim carries over: the pending one can be claimed once, the done one not.
    const [pendingId, , doneId] = filled.pendingIds;
    expect((await after.pending.claim(pendingId ?? '', 'U1', holder)).ok).toBe(true);
    expect(await after.pending.claim(pendingId ?? '', 'U1', holder)).toMatchObject({
      ok: false,
      reason: 'already_used',
    });
    expect(await after.pending.claim(doneId ?? '', 'U2', holder)).toMatchObject({
      ok: false,
      reason: 'already_used',
    });
  });

  it('new rows continue after every id the source used (sequences moved, deleted ids never reused)', async () => {
    const source = await sqliteSource();
    const filling = await source.open({ clock, encryptionKeys: KEYS });
    await fill(filling);
    await filling.close();
    const url = await postgresTarget();
    await copySqliteToPostgres({ from: source.options.path ?? '', to: url });

    const store = await openStore({ url, clock, encryptionKeys: KEYS });
    cleanups.push(() => store.close());
    expect((await store.ledger.record(ledgerEntry(41))).id).toBe(41);
    const sub = await store.digests.add({
      ownerId: '1',
      shopLabel: 'x',
      channelId: 'C1',
      localTime: '08:00',
      timeZone: 'UTC',
      createdBy: 'U1',
    });
    expect(sub.id).toBe(3);
    // Unfurl records 1 (done), 2 (abandoned: deleted) and 3 (offered) were used on SQLite.
    const offered = await store.unfurls.recordOffered({
      channelId: 'C1',
      itemId: '9',
      userId: 'U1',
      pendingId: 'P',
    });
    expect(offered.id).toBe(4);
    const shipBy = await store.alerts.add({
      ownerId: '1',
      shopLabel: 'x',
      channelId: 'C1',
      withinHours: 1,
      everyMinutes: 30,
      hoursFrom: '09:00',
      hoursTo: '18:00',
      timeZone: 'UTC',
      capPoints: 10,
      createdBy: 'U1',
    });
    expect(shipBy.id).toBe(2);

    // Every sequence-filled column of every table: its sequence is past the largest id copied.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    cleanups.push(() => client.end());
    const { rows: columns } = await client.query<{ table_name: string; column_name: string }>(`
      SELECT table_name, column_name FROM information_schema.columns
       WHERE table_schema = 'public' AND (is_identity = 'YES' OR column_default LIKE 'nextval(%')`);
    expect(columns.map((c) => c.table_name).sort()).toEqual(
      expect.arrayContaining([
        'alert_checks',
        'alert_subscriptions',
        'digest_runs',
        'ledger',
        'unfurl_records',
      ]),
    );
    for (const { table_name: table, column_name: column } of columns) {
      const { rows } = await client.query<{ max: string | null; last: string | null }>(
        `SELECT (SELECT max("${column}")::text FROM "${table}") AS max,
                (SELECT last_value::text FROM pg_sequences
                  WHERE schemaname = 'public' AND sequencename =
                        split_part(pg_get_serial_sequence('"${table}"', '${column}'), '.', 2)) AS last`,
      );
      const [{ max, last } = { max: null, last: null }] = rows;
      if (max !== null) expect(BigInt(last ?? '0'), `${table}.${column}`).toBeGreaterThanOrEqual(BigInt(max));
    }
  });

  it('refuses a second copy onto the now non-empty target, and keeps what is there', async () => {
    const source = await sqliteSource();
    const filling = await source.open({ clock, encryptionKeys: KEYS });
    await fill(filling);
    await filling.close();
    const url = await postgresTarget();
    await copySqliteToPostgres({ from: source.options.path ?? '', to: url });

    const again = copySqliteToPostgres({ from: source.options.path ?? '', to: url });
    await expect(again).rejects.toBeInstanceOf(StoreCopyRefusedError);
    await expect(again).rejects.toThrow(
      /is not empty \(.*ledger holds 40 rows.*\); refusing to copy over existing data/,
    );

    const store = await openStore({ url, clock, encryptionKeys: KEYS });
    cleanups.push(() => store.close());
    expect(await store.ledger.list(ALL_TIME)).toHaveLength(40);
  });

  it('rolls everything back when a count differs after copying', async () => {
    const source = await sqliteSource();
    const filling = await source.open({ clock, encryptionKeys: KEYS });
    await fill(filling);
    await filling.close();
    const url = await postgresTarget();
    // A migrated target whose ledger silently drops rows with odd ids (a trigger), as a broken
    // target might: the counts catch it.
    await (await openStore({ url })).close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    cleanups.push(() => client.end());
    await client.query(`
      CREATE FUNCTION drop_odd() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.id % 2 = 1 THEN RETURN NULL; END IF; RETURN NEW; END $$;
      CREATE TRIGGER drop_odd BEFORE INSERT ON ledger FOR EACH ROW EXECUTE FUNCTION drop_odd();`);

    const copy = copySqliteToPostgres({ from: source.options.path ?? '', to: url });
    await expect(copy).rejects.toBeInstanceOf(StoreCopyMismatchError);
    await expect(copy).rejects.toThrow(
      'Row counts differ after copying, nothing was kept (rolled back): ledger 40 in SQLite, 20 in PostgreSQL',
    );
    const { rows } = await client.query(
      'SELECT (SELECT count(*) FROM ledger)::int AS ledger, (SELECT count(*) FROM pending_lookups)::int AS pending',
    );
    expect(rows[0]).toEqual({ ledger: 0, pending: 0 });
  });

  it('refuses a source written by a newer platdesk, before touching the target', async () => {
    const source = await sqliteSource();
    const store = await source.open({ clock, encryptionKeys: KEYS });
    await store.ledger.record(ledgerEntry(1));
    await store.close();
    // A newer build: this build's migrations and one more.
    const newer = [
      ...MIGRATIONS,
      {
        rollout: 'online' as const,
        summary: 'runs_v2',
        sql: 'CREATE TABLE runs_v2 (id INTEGER PRIMARY KEY, at INTEGER NOT NULL) STRICT;',
      },
    ];
    const db = new Kysely<Schema>({
      dialect: new SqliteDialect({ database: new Database(source.options.path ?? '') }),
    });
    expect(await migrate(db, 'sqlite', newer)).toBe(MIGRATIONS.length + 1);
    await db.destroy();
    const url = await postgresTarget();

    await expect(copySqliteToPostgres({ from: source.options.path ?? '', to: url })).rejects.toThrow(
      new RegExp(
        `is at schema version ${MIGRATIONS.length + 1} but this build of platdesk knows only up to ${MIGRATIONS.length}`,
      ),
    );
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query(
      `SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public'`,
    );
    await client.end();
    expect(rows[0].n).toBe(0);
  });

  it('refuses a source older than this build, naming how to migrate it', async () => {
    const source = await sqliteSource();
    const db = new Kysely<Schema>({
      dialect: new SqliteDialect({ database: new Database(source.options.path ?? '') }),
    });
    await migrate(db, 'sqlite', MIGRATIONS.slice(0, 2));
    await db.destroy();
    const url = await postgresTarget();
    await expect(copySqliteToPostgres({ from: source.options.path ?? '', to: url })).rejects.toThrow(
      `is at schema version 2 and this build is at ${MIGRATIONS.length}. Start this platdesk once with DATABASE_PATH=`,
    );
  });

  it('refuses a missing source file, a --to that is not a PostgreSQL URL, and an unreachable server without its password', async () => {
    const url = await postgresTarget();
    await expect(copySqliteToPostgres({ from: '/nonexistent/platdesk.sqlite', to: url })).rejects.toThrow(
      'There is no SQLite database at /nonexistent/platdesk.sqlite.',
    );
    await expect(copySqliteToPostgres({ from: '/nonexistent/x', to: 'mysql://u:p@h/db' })).rejects.toThrow(
      '--to must be a postgres:// or postgresql:// URL.',
    );
    // A server that cannot be reached: named without its password, nothing kept.
    const source = await sqliteSource();
    await (await source.open({ clock, encryptionKeys: KEYS })).close();
    const unreachable = copySqliteToPostgres({
      from: source.options.path ?? '',
      to: 'postgres://platdesk:Pa55-w0rd@127.0.0.1:1/platdesk',
    });
    await expect(unreachable).rejects.toThrow(
      /^Copy to postgres:\/\/platdesk@127\.0\.0\.1:1\/platdesk failed, nothing was kept: .*ECONNREFUSED/,
    );
    await expect(unreachable).rejects.not.toThrow(/Pa55-w0rd/);
  });

  it('converts values to the PostgreSQL types a schema may declare, and refuses what does not fit', async () => {
    const url = await postgresTarget();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    cleanups.push(() => client.end());
    await client.query(
      'CREATE TABLE typed (n bigint, f double precision, d numeric, b boolean, ts timestamptz, j jsonb, t text, raw bytea)',
    );
    const column = (name: string, type: string) => converterFor('typed', { name, type, sequenced: false });
    const row = [
      column('n', 'bigint')(9_007_199_254_740_993n, 1), // past 2^53: exact only as bigint
      column('f', 'double precision')(3n, 1),
      column('d', 'numeric')(12_345_678_901_234_567_890n, 1),
      column('b', 'boolean')(1n, 1),
      column('ts', 'timestamp with time zone')(BigInt(T0), 1),
      column('j', 'jsonb')('{"a":[1,2]}', 1),
      column('t', 'text')(42n, 1),
      column('raw', 'bytea')(Buffer.from([0, 255]), 1),
    ];
    await client.query('INSERT INTO typed VALUES ($1, $2, $3, $4, $5, $6, $7, $8)', row);
    const { rows } = await client.query(
      `SELECT n::text, f, d::text, b, (extract(epoch FROM ts) * 1000)::bigint::text AS ms, j, t, raw FROM typed`,
    );
    expect(rows[0]).toEqual({
      n: '9007199254740993',
      f: 3,
      d: '12345678901234567890',
      b: true,
      ms: String(T0),
      j: { a: [1, 2] },
      t: '42',
      raw: Buffer.from([0, 255]),
    });
    expect(() => column('b', 'boolean')(2n, 7)).toThrow(
      'Cannot convert "2" in typed.b (row 7) to PostgreSQL boolean.',
    );
    expect(() => column('j', 'jsonb')('{not json', 3)).toThrow(
      /Cannot convert "\{not json" in typed.j \(row 3\)/,
    );
    expect(() => column('n', 'bigint')(1.5, 1)).toThrow(StoreCopyRefusedError);
    expect(() => column('p', 'point')).toThrow(
      'Column typed.p has PostgreSQL type point, which the copier does not know how to fill.',
    );
  });
});

describe('npm run store:copy (the command)', () => {
  const run = promisify(execFile);
  const cli = (args: string[]) =>
    run(join(process.cwd(), 'node_modules', '.bin', 'tsx'), ['src/store/copy-cli.ts', ...args], {
      cwd: process.cwd(),
    }).then(
      (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({
        code: e.code,
        stdout: e.stdout,
        stderr: e.stderr,
      }),
    );

  it('prints the row count of every table and exits 0; a second run is refused with exit 1; never the password', async () => {
    const source = await sqliteSource();
    const filling = await source.open({ clock, encryptionKeys: KEYS });
    await fill(filling);
    await filling.close();
    const plain = await postgresTarget();
    // A role with a password (the test server trusts loopback, so any password is accepted):
    // the URL carries it, and no line may show it.
    const secret = 'S3cret-pass-w0rd';
    const admin = new pg.Client({ connectionString: inject('postgresUrl') });
    await admin.connect();
    await admin.query(
      `DO $$ BEGIN CREATE ROLE copier LOGIN SUPERUSER PASSWORD '${secret}'; EXCEPTION WHEN duplicate_object THEN NULL; END $$`,
    );
    await admin.end();
    const u = new URL(plain);
    const url = `postgres://copier:${secret}@${u.host}${u.pathname}`;

    const first = await cli(['--from', source.options.path ?? '', '--to', url]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(
      `schema version ${MIGRATIONS.length}) to postgres://copier@${u.host}${u.pathname}`,
    );
    expect(first.stdout).toMatch(/^ledger\s+40\s+40$/m);
    expect(first.stdout).toMatch(/^pending_lookups\s+6\s+6$/m);
    expect(first.stdout).toContain('Row counts match.');
    expect(first.stdout).not.toContain(secret);

    const second = await cli(['--from', source.options.path ?? '', '--to', url]);
    expect(second.code).toBe(1);
    expect(second.stdout).toBe('');
    expect(second.stderr).toMatch(/^store:copy: postgres:\/\/copier@.* is not empty \(/);
    expect(second.stderr).not.toContain(secret);

    const usage = await cli(['--from', source.options.path ?? '']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('usage: npm run store:copy -- --from <platdesk.sqlite> --to');
  });
});
