/**
 * The caller's account: balance in points, the item-call quota and the record of every charge.
 * Charging rules (spec §1 rule 3, §4.5, §8): balance operations deduct their price and report it
 * as withholding_money; item operations take one call of the quota and report 0 points.
 */

import { fail, ITEM_NOT_FOUND, NOT_ENOUGH_CALLS, type Reply } from './envelope.js';
import type { PriceOf } from './prices.js';
import { OPERATION_NAMES, type Operation, SANDBOX_OPERATIONS } from './spec-table.js';
import type { SandboxStats } from './types.js';

export interface AccountLimits {
  balancePoints: number;
  itemQuota: number;
}

type ChargeStats = Pick<SandboxStats, 'charges' | 'itemCallsCharged' | 'balancePoints' | 'itemQuota'>;

export class Account {
  readonly #initial: AccountLimits;
  readonly #priceOf: PriceOf;
  #balancePoints: number;
  #itemQuota: number;
  #charges = emptyCharges();
  #itemCallsCharged = 0;

  constructor(initial: AccountLimits, priceOf: PriceOf) {
    this.#initial = initial;
    this.#priceOf = priceOf;
    this.#balancePoints = initial.balancePoints;
    this.#itemQuota = initial.itemQuota;
  }

  /**
   * Charges one call and builds the answer with the points charged; answers code 204 "Not enough
   * calls left" without charging when the balance (or the item quota) cannot cover it.
   */
  charge(operation: Operation, edition: number | null, build: (points: number) => Reply): Reply {
    const points = this.#priceOf(operation, edition);
    const usesQuota = SANDBOX_OPERATIONS[operation].quota;
    if (this.#balancePoints < points || (usesQuota && this.#itemQuota <= 0))
      return fail(204, NOT_ENOUGH_CALLS);
    this.#balancePoints -= points;
    if (usesQuota) {
      this.#itemQuota -= 1;
      this.#itemCallsCharged += 1;
    }
    this.#charges.count += 1;
    this.#charges.points += points;
    const byOperation = this.#charges.byOperation[operation];
    byOperation.count += 1;
    byOperation.points += points;
    return build(points);
  }

  /**
   * An injected error answer (a fault) charges what a real one would: the withholding_money its
   * data reports, and for an item operation one call of the quota unless the code refuses the
   * call before any query (itemQueryAnswered). Returns whether anything was charged.
   */
  chargeFault(operation: Operation, code: number, msg: string, data: unknown): boolean {
    const reported = reportedPoints(data);
    const quotaCall =
      SANDBOX_OPERATIONS[operation].quota && itemQueryAnswered(code, msg) && this.#itemQuota > 0;
    if (reported === null && !quotaCall) return false;
    const points = reported ?? 0;
    this.#balancePoints -= points;
    if (quotaCall) {
      this.#itemQuota -= 1;
      this.#itemCallsCharged += 1;
    }
    this.#charges.count += 1;
    this.#charges.points += points;
    const byOperation = this.#charges.byOperation[operation];
    byOperation.count += 1;
    byOperation.points += points;
    return true;
  }

  setBalance(points: number): void {
    this.#balancePoints = points;
  }

  setItemQuota(calls: number): void {
    this.#itemQuota = calls;
  }

  stats(): ChargeStats {
    return {
      charges: {
        count: this.#charges.count,
        points: this.#charges.points,
        byOperation: structuredClone(this.#charges.byOperation),
      },
      itemCallsCharged: this.#itemCallsCharged,
      balancePoints: this.#balancePoints,
      itemQuota: this.#itemQuota,
    };
  }

  reset(): void {
    this.#balancePoints = this.#initial.balancePoints;
    this.#itemQuota = this.#initial.itemQuota;
    this.#itemCallsCharged = 0;
    this.#charges = emptyCharges();
  }
}

/**
 * Whether an item operation's error answer stands for a query that ran (and so took one call of
 * the quota, spec §1 rule 3, §8): every code but those that refuse a call before querying — no
 * permission or calls left (204), credential (401), path (404), not supported (203), and a
 * parameter error (100) other than "item does not exist". The sandbox's own reading, kept apart
 * from the client's (src/plat/codes.ts) like spec-table.ts.
 */
export function itemQueryAnswered(code: number, msg: string): boolean {
  if (code === 100) return msg === ITEM_NOT_FOUND;
  return ![203, 204, 401, 404].includes(code);
}

function reportedPoints(data: unknown): number | null {
  if (!data || typeof data !== 'object' || !('withholding_money' in data)) return null;
  const points = Number((data as { withholding_money: unknown }).withholding_money);
  return Number.isFinite(points) ? points : null;
}

function emptyCharges(): ChargeStats['charges'] {
  const byOperation = Object.fromEntries(OPERATION_NAMES.map((op) => [op, { count: 0, points: 0 }]));
  return { count: 0, points: 0, byOperation: byOperation as ChargeStats['charges']['byOperation'] };
}
