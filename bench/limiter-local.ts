/**
 * `npm run bench:limiter` (in-process mode): the real plat client and limiter (default settings: 10 calls per
 * 1000 ms + 10 ms margin, 2 of 10 slots kept for interactive calls) against the sandbox in this process, on loopback.
 *
 *   0. cold burst: 20 calls from a cold start (new sockets, first-time code), as a service restart sees it;
 *   a. throughput: 300 mixed calls from 50 concurrent callers: achieved calls/s, and the sandbox's
 *      busiest 1000 ms window and rate violations;
 *   b. priorities: a 50-page bulk job (paging-orders at priority 'bulk') while 20 interactive calls
 *      arrive at random moments: interactive wait p50/p99 (limiter `onStarted` waitedMs), bulk wait
 *      and the bulk job's total time.
 *
 * Prints a labeled summary and, last, the same figures as one JSON line.
 */
import { createPlatClient, type PlatClient } from '../src/plat/client.js';
import { createPlatHttp } from '../src/plat/http.js';
import { LIMITER_DEFAULTS, type Priority, type StartedInfo } from '../src/plat/limiter.js';
import { createLocalLimiter } from '../src/plat/local-limiter.js';
import { createSandbox, SANDBOX_FIXTURES as F } from '../src/sandbox/index.js';
import { mulberry32 } from '../src/sandbox/prng.js';

const THROUGHPUT_CALLS = 300;
const CALLERS = 50;
const BULK_PAGES = 50;
/** 350 orders of the busy owner at 7 per page: 50 pages. */
const BULK_PAGE_SIZE = Math.ceil(F.orderCounts.busy / BULK_PAGES);
const INTERACTIVE_CALLS = 20;
/** Interactive calls arrive uniformly at random within this span after the bulk job starts. */
const INTERACTIVE_SPAN_MS = 5_000;

interface Start extends StartedInfo {
  at: number;
}

const starts: Start[] = [];
const sandbox = createSandbox();
const baseUrl = await sandbox.listen(0);
const http = createPlatHttp({ baseUrl, token: 'sandbox' });
const limiter = createLocalLimiter({ onStarted: (info) => starts.push({ ...info, at: performance.now() }) });
const client = createPlatClient({ http, limiter });
const random = mulberry32(20_240_601);

/** Nearest-rank percentile. */
function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return (
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN
  );
}
const round = (n: number, digits = 0) => Number(n.toFixed(digits));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One mixed call: item details, shop id, or a page of orders. */
function mixedCall(c: PlatClient, n: number, priority: Priority = 'interactive'): Promise<unknown> {
  const items = [F.items.basic, F.items.withVideo, F.items.manySkus, F.items.tea];
  switch (n % 3) {
    case 0:
      return c.itemInfo({ itemId: items[n % items.length] ?? F.items.basic }, { priority });
    case 1:
      return c.shopId({ wwid: n % 2 === 0 ? F.wwids.known : F.wwids.unknown }, { priority });
    default:
      return c.orders({ ownerId: F.owners.busy, pageSize: 20, page: n % 18 }, { priority });
  }
}

/** The stats of one phase, from the limiter's start records and the sandbox's counters. */
function phaseStats(from: number) {
  const mine = starts.slice(from);
  const first = mine[0]?.at ?? 0;
  const last = mine.at(-1)?.at ?? 0;
  const elapsedS = (last - first) / 1000;
  const { calls, maxInWindow, violations } = sandbox.stats();
  return {
    calls,
    elapsedS: round(elapsedS, 3),
    // n starts span n − 1 intervals: (calls − 1) / (last start − first start).
    callsPerS: round((mine.length - 1) / elapsedS, 2),
    // The first burst starts at once; every later call waited for a slot: the sustained rate.
    sustainedCallsPerS: round((mine.length - LIMITER_DEFAULTS.maxCalls) / elapsedS, 2),
    maxInWindow,
    violations,
  };
}

async function settleAll(calls: Promise<unknown>[]): Promise<number> {
  const results = await Promise.allSettled(calls);
  const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  for (const f of failed.slice(0, 3))
    console.error('  failed:', f.reason instanceof Error ? f.reason.message : f.reason);
  return failed.length;
}

let failures = 0;
const benchStarted = performance.now();
console.log(
  `limiter: ${LIMITER_DEFAULTS.maxCalls} calls per ${LIMITER_DEFAULTS.windowMs} ms + ${LIMITER_DEFAULTS.safetyMarginMs} ms margin; sandbox window 1000 ms, limit 10`,
);

// ---- 0. cold burst ---------------------------------------------------------------------------
let from = starts.length;
failures += await settleAll(Array.from({ length: 20 }, (_, n) => mixedCall(client, n)));
const cold = phaseStats(from);
console.log(
  `0 cold burst    ${cold.calls} calls: maxInWindow ${cold.maxInWindow}, violations ${cold.violations}`,
);
await sleep(LIMITER_DEFAULTS.windowMs + LIMITER_DEFAULTS.safetyMarginMs);
sandbox.reset();

// ---- a. throughput ---------------------------------------------------------------------------
from = starts.length;
let issued = 0;
const callers = Array.from({ length: CALLERS }, async () => {
  const calls: Promise<unknown>[] = [];
  while (issued < THROUGHPUT_CALLS) {
    const call = mixedCall(client, issued++);
    calls.push(call);
    await call.catch(() => {});
  }
  return settleAll(calls);
});
failures += (await Promise.all(callers)).reduce((a, b) => a + b, 0);
const throughput = phaseStats(from);
console.log(
  // Starts come in bursts of maxCalls, so (calls − 1) / span overstates the rate; the sustained
  // figure counts only the calls that had to wait for a slot.
  `a throughput    ${throughput.calls} calls, ${CALLERS} callers: sustained ${throughput.sustainedCallsPerS} calls/s ` +
    `(first→last start ${throughput.elapsedS} s), ` +
    `maxInWindow ${throughput.maxInWindow}, violations ${throughput.violations}`,
);
await sleep(LIMITER_DEFAULTS.windowMs + LIMITER_DEFAULTS.safetyMarginMs);
sandbox.reset();

// ---- b. bulk job with interactive calls ------------------------------------------------------
from = starts.length;
const bulkStarted = performance.now();
const bulkJob = (async () => {
  // A digest: page 0 says how many pages there are; the rest are queued at once.
  const first = await client.orders(
    { ownerId: F.owners.busy, pageSize: BULK_PAGE_SIZE },
    { priority: 'bulk' },
  );
  const pages = Array.from({ length: first.data.totalPages - 1 }, (_, i) =>
    client.orders({ ownerId: F.owners.busy, pageSize: BULK_PAGE_SIZE, page: i + 1 }, { priority: 'bulk' }),
  );
  const failed = await settleAll(pages);
  return { pages: first.data.totalPages, failed, ms: performance.now() - bulkStarted };
})();
const moments = Array.from({ length: INTERACTIVE_CALLS }, () =>
  Math.round(random() * INTERACTIVE_SPAN_MS),
).sort((a, b) => a - b);
const interactive = moments.map(async (at, n) => {
  await sleep(at);
  return n % 2 === 0
    ? client.itemInfo({ itemId: F.items.basic })
    : client.shopId({ wwid: F.wwids.known }, { correlationId: `interactive-${n}` });
});
failures += await settleAll(interactive);
const bulk = await bulkJob;
failures += bulk.failed;
const phaseB = starts.slice(from);
const waits = (priority: Priority) => phaseB.filter((s) => s.priority === priority).map((s) => s.waitedMs);
const interactiveWaits = waits('interactive');
const bulkWaits = waits('bulk');
const priorities = phaseStats(from);
const prioritiesSummary = {
  bulkPages: bulk.pages,
  bulkTotalS: round(bulk.ms / 1000, 2),
  interactiveCalls: interactiveWaits.length,
  interactiveWaitMs: {
    p50: round(percentile(interactiveWaits, 50)),
    p99: round(percentile(interactiveWaits, 99)),
    max: round(Math.max(...interactiveWaits)),
  },
  bulkWaitMs: { p50: round(percentile(bulkWaits, 50)), p99: round(percentile(bulkWaits, 99)) },
  maxInWindow: priorities.maxInWindow,
  violations: priorities.violations,
};
console.log(
  `b priorities    ${bulk.pages}-page bulk job in ${prioritiesSummary.bulkTotalS} s; ` +
    `${interactiveWaits.length} interactive calls waited p50 ${prioritiesSummary.interactiveWaitMs.p50} ms, ` +
    `p99 ${prioritiesSummary.interactiveWaitMs.p99} ms (max ${prioritiesSummary.interactiveWaitMs.max}); ` +
    `bulk pages waited p50 ${prioritiesSummary.bulkWaitMs.p50} ms, p99 ${prioritiesSummary.bulkWaitMs.p99} ms; ` +
    `maxInWindow ${priorities.maxInWindow}, violations ${priorities.violations}`,
);

limiter.stop();
await http.close();
await sandbox.close();

const totalS = round((performance.now() - benchStarted) / 1000, 1);
console.log(`total ${totalS} s, failed calls ${failures}`);
console.log(
  JSON.stringify({
    limiter: LIMITER_DEFAULTS,
    coldBurst: { calls: cold.calls, maxInWindow: cold.maxInWindow, violations: cold.violations },
    throughput: { ...throughput, callers: CALLERS },
    priorities: prioritiesSummary,
    failures,
    totalS,
  }),
);
process.exitCode = failures === 0 ? 0 : 1;
