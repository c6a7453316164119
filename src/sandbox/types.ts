/**
 * Public types of the sandbox: a local server that behaves like the plat API
 * (spec/marketplace-api.md, with the quirks of spec/notes.md) for tests, benchmarks and demos.
 */
import type { Operation } from './spec-table.js';

/** Points for one call, per edition (the vvtype number of spec §9). */
export type EditionPrices = Readonly<Partial<Record<number, number>>>;

/**
 * Points per call: one number for every edition of the operation, or a price per edition
 * (missing editions keep their default). Prices are not documented (spec §8), so they are ours.
 */
export type PriceSetting = number | EditionPrices;
export type SandboxPrices = Partial<Record<Operation, PriceSetting>>;

export interface SandboxOptions {
  /** Bearer token every plat call must send (spec §5). Default 'sandbox'. */
  token?: string;
  /**
   * More tokens accepted besides `token`: several plat accounts on one sandbox (issue 24: a plat
   * account per workspace); `stats().callsByToken` counts each one's calls.
   */
  moreTokens?: readonly string[];
  /** Account balance in points (1 point = 0.01 yuan). Default 1_000_000. */
  balancePoints?: number;
  /** Item-operation calls left (spec §8: one call per item query). Default 100_000. */
  itemQuota?: number;
  prices?: SandboxPrices;
  /**
   * Clock in ms. Default Date.now. Orders are seeded relative to its value when createSandbox is
   * called; when given, it is also the clock of the rate accounting (otherwise performance.now()).
   */
  now?: () => number;
  /** Rate accounting window. Default 1000 (spec §8: 10 calls per second). */
  windowMs?: number;
  /** Calls allowed per window before a call counts as a violation. Default 10. */
  rateLimit?: number;
  /**
   * Kept for future use: the sandbox only counts violations, it never refuses a call for its rate
   * (the real service's behaviour over the limit is not documented).
   */
  enforceRateLimit?: boolean;
  /**
   * Orders per owner over the 72 h before the anchor, replacing the seeded counts (benchmarks:
   * a shop of a given size). Only authorized owners of the fixtures.
   */
  orderCounts?: Readonly<Record<string, number>>;
  /** Seed of the PRNG behind fault `rate`s. Default 1. */
  seed?: number;
}

export interface SandboxStats {
  /** Every plat call that arrived (401s and 404s included; debug endpoints excluded). */
  calls: number;
  /** Calls that passed auth and reached an operation. */
  callsByOperation: Record<Operation, number>;
  /** Largest number of calls that arrived within any sliding `windowMs`. */
  maxInWindow: number;
  /** Calls that arrived when `rateLimit` or more calls had already arrived within the previous `windowMs`. */
  violations: number;
  charges: {
    count: number;
    points: number;
    byOperation: Record<Operation, { count: number; points: number }>;
  };
  /** Item-operation calls taken from the quota. */
  itemCallsCharged: number;
  balancePoints: number;
  itemQuota: number;
  /** Calls answered with code 401. */
  unauthorized: number;
  /** Calls that passed auth, by the token they sent. */
  callsByToken: Record<string, number>;
}

/** Which calls a fault applies to. */
export interface FaultScope {
  /** Applies to the next N matching calls, then is used up. Default: every matching call. */
  count?: number;
  /** Probability (0..1), drawn from the seeded PRNG, that a matching call is hit. Default 1. */
  rate?: number;
  /** Operations it applies to. Default: all. */
  operations?: Operation[];
  /**
   * paging-orders only: the page numbers (the request's `page`, from 0) it applies to, so a test
   * can fail or slow one given page of a digest. A call of another operation never matches.
   * Default: every page (and every operation).
   */
  pages?: number[];
}

export type FaultKind =
  /** Delays the answer by ms (+ up to jitterMs); the call then proceeds, so it combines with later rules. */
  | { kind: 'latency'; ms: number; jitterMs?: number }
  /** Never answers, until the sandbox is closed. */
  | { kind: 'hang' }
  /** HTTP 500 with an HTML body (a proxy error page, not JSON). */
  | { kind: 'http500' }
  /** HTTP 200 with a truncated JSON body. */
  | { kind: 'malformed' }
  /**
   * HTTP 200 with this envelope code; msg and data default per code (spec §7). Charged only as a
   * real answer would be: the withholding_money its data reports, and on the item operations one
   * call of the quota unless the code refuses before querying (203, 204, 401, 404, 100 but not-found).
   */
  | { kind: 'code'; code: number; msg?: string; data?: unknown };

export type FaultRule = FaultKind & FaultScope;

export interface Sandbox {
  /** Starts listening; resolves to the base URL, e.g. http://127.0.0.1:54321. Port 0 (default) picks one. */
  listen(port?: number, host?: string): Promise<string>;
  /** Closes the server and every socket at once, hung requests included. */
  close(): Promise<void>;
  stats(): SandboxStats;
  /** Points per call by operation and edition (`*`: every edition): what this sandbox charges. */
  readonly prices: Readonly<Record<Operation, Readonly<Record<string, number>>>>;
  /**
   * When each plat call arrived (every call `stats().calls` counts, at the moment it is counted),
   * oldest first, in the rate clock: `now` when given, else this process's performance.now(). At
   * most the newest 100,000. For per-phase figures: "no call between t1 and t2", the largest
   * count in any sliding second of one phase, the first call after a recovery.
   */
  arrivals(): number[];
  /** Counters, arrival times, faults, balance and quota back to their initial values. */
  reset(): void;
  /** Replaces the fault rules (and restarts their PRNG, so runs repeat). */
  setFaults(faults: FaultRule[]): void;
  setBalance(points: number): void;
  setItemQuota(calls: number): void;
  /**
   * Changes an order's order_status (1 awaiting shipment, 2 shipped, 3 received), as the
   * platform does when the shop ships it; false when no authorized owner has that order.
   */
  setOrderStatus(orderSn: string, status: number): boolean;
}
