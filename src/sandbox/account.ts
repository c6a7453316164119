/**
 * The caller's account: balance in points, the item-call quota and the record of every charge.
 * Charging rules (spec §1 rule 3, §4.5, §8): balance operations deduct their price and report it
 * as withholding_money; item operations take one call of the quota and report 0 points.
 */

import { fail, NOT_ENOUGH_CALLS, type Reply } from './envelope.js';
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

function emptyCharges(): ChargeStats['charges'] {
  const byOperation = Object.fromEntries(OPERATION_NAMES.map((op) => [op, { count: 0, points: 0 }]));
  return { count: 0, points: 0, byOperation: byOperation as ChargeStats['charges']['byOperation'] };
}
