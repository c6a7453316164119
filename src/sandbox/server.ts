/**
 * createSandbox: a local HTTP server that behaves like the plat API (spec/marketplace-api.md),
 * quirks of spec/notes.md included, with seeded data, charges, rate accounting and injectable
 * faults. Used by tests, benchmarks and `npm run sandbox`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Account } from './account.js';
import { DEBUG_PREFIX, handleDebug, type SandboxControls } from './debug-routes.js';
import { createDispatcher, emptyCounters, keptArrivals } from './dispatch.js';
import { FaultEngine } from './faults.js';
import { buildOrderBook, type OrderWire } from './fixtures.js';
import type { HandlerContext } from './handlers/index.js';
import { createPriceTable, priceList } from './prices.js';
import { RateWindow } from './rate-window.js';
import type { Sandbox, SandboxOptions, SandboxStats } from './types.js';

export const SANDBOX_DEFAULTS = {
  token: 'sandbox',
  balancePoints: 1_000_000,
  itemQuota: 100_000,
  // spec §8: 10 calls per second.
  windowMs: 1000,
  rateLimit: 10,
  seed: 1,
} as const;

export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const wallClock = options.now ?? Date.now;
  // A monotonic clock for the window, unless the test drives time itself.
  const rateClock = options.now ?? (() => performance.now());
  const anchorMs = wallClock();
  const account = new Account(
    {
      balancePoints: options.balancePoints ?? SANDBOX_DEFAULTS.balancePoints,
      itemQuota: options.itemQuota ?? SANDBOX_DEFAULTS.itemQuota,
    },
    createPriceTable(options.prices),
  );
  const rate = new RateWindow({
    windowMs: options.windowMs ?? SANDBOX_DEFAULTS.windowMs,
    limit: options.rateLimit ?? SANDBOX_DEFAULTS.rateLimit,
  });
  const faults = new FaultEngine(options.seed ?? SANDBOX_DEFAULTS.seed);
  const counters = emptyCounters();
  let requestSeq = 0;
  const context: HandlerContext = {
    account,
    orders: buildOrderBook(anchorMs, options.orderCounts),
    anchorMs,
    nextRequestId: () => `sbx-${anchorMs.toString(36)}-${(++requestSeq).toString().padStart(6, '0')}`,
  };
  let closing = new AbortController();

  const controls: SandboxControls = {
    stats: (): SandboxStats => ({
      calls: counters.calls,
      callsByOperation: { ...counters.callsByOperation },
      ...rate.snapshot(),
      ...account.stats(),
      unauthorized: counters.unauthorized,
      callsByToken: { ...counters.callsByToken },
    }),
    reset: () => {
      Object.assign(counters, emptyCounters());
      rate.reset();
      faults.set([]);
      account.reset();
      requestSeq = 0;
    },
    setFaults: (rules) => faults.set(rules),
    setBalance: (points) => account.setBalance(points),
    setItemQuota: (calls) => account.setItemQuota(calls),
    setOrderStatus: (orderSn, status) => {
      for (const orders of context.orders.values()) {
        const i = orders.findIndex((o) => o.order_sn === orderSn);
        // The book is read-only to the handlers; this control is the platform changing an order.
        if (i >= 0) (orders as OrderWire[])[i] = { ...(orders[i] as OrderWire), order_status: status };
        if (i >= 0) return true;
      }
      return false;
    },
  };

  const dispatch = createDispatcher({
    tokens: [options.token ?? SANDBOX_DEFAULTS.token, ...(options.moreTokens ?? [])],
    counters,
    rate,
    faults,
    context,
    wallClock,
    rateClock,
    closing: () => closing.signal,
  });

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://sandbox.invalid');
    const handled = url.pathname.startsWith(DEBUG_PREFIX)
      ? handleDebug(request, response, url.pathname, controls)
      : dispatch(request, response, url);
    handled.catch((error: unknown) => {
      // Only a broken socket gets here (handlers' own errors become code 200 answers).
      response.destroy(error instanceof Error ? error : undefined);
    });
  });

  return {
    ...controls,
    prices: priceList(options.prices),
    arrivals: () => keptArrivals(counters),
    listen: (port = 0, host = '127.0.0.1') =>
      new Promise<string>((resolve, reject) => {
        closing = new AbortController();
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          const { port: bound } = server.address() as AddressInfo;
          resolve(`http://${host.includes(':') ? `[${host}]` : host}:${bound}`);
        });
      }),
    close: () =>
      new Promise<void>((resolve, reject) => {
        closing.abort();
        if (!server.listening) return resolve();
        server.close((error) => (error ? reject(error) : resolve()));
        // Keep-alive and hung sockets would hold close() open; end them now.
        server.closeAllConnections();
      }),
  };
}
