/**
 * Injected faults: the failures a client of a paid remote API must survive (slow answers, no
 * answer, a proxy's HTML error page, a cut-off body, and every error code of spec §7).
 * Rules are checked in the order given on every call that passed auth and reached an operation.
 * A latency rule adds its delay and lets later rules apply too; the first other matching rule
 * decides the answer.
 */
import { z } from 'zod';
import { mulberry32, type Random } from './prng.js';
import { OPERATION_NAMES, type Operation } from './spec-table.js';
import type { FaultKind, FaultRule } from './types.js';

const scope = {
  count: z.number().int().nonnegative().optional(),
  rate: z.number().min(0).max(1).optional(),
  operations: z.array(z.enum(OPERATION_NAMES)).optional(),
  pages: z.array(z.number().int().nonnegative()).optional(),
};

const faultRuleSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('latency'),
    ms: z.number().nonnegative(),
    jitterMs: z.number().nonnegative().optional(),
    ...scope,
  }),
  z.strictObject({ kind: z.literal('hang'), ...scope }),
  z.strictObject({ kind: z.literal('http500'), ...scope }),
  z.strictObject({ kind: z.literal('malformed'), ...scope }),
  z.strictObject({
    kind: z.literal('code'),
    code: z.number().int(),
    msg: z.string().optional(),
    data: z.unknown().optional(),
    ...scope,
  }),
]);

/** Validates fault rules from JSON (the debug endpoint, SANDBOX_FAULTS); throws a readable error. */
export function parseFaults(input: unknown): FaultRule[] {
  const parsed = z.array(faultRuleSchema).safeParse(input);
  if (!parsed.success) throw new Error(`invalid fault rules: ${z.prettifyError(parsed.error)}`);
  // exactOptionalPropertyTypes: drop the keys zod filled with undefined.
  return parsed.data.map((rule): FaultRule => withoutUndefined(rule));
}

/** The fault that decides the answer, if any, and the delay before it (or before the normal answer). */
export interface FaultDecision {
  delayMs: number;
  fault: Exclude<FaultKind, { kind: 'latency' }> | null;
}

interface ActiveRule {
  rule: FaultRule;
  /** Calls it still applies to; null for every call. */
  remaining: number | null;
}

export class FaultEngine {
  readonly #seed: number;
  #random: Random;
  #rules: ActiveRule[] = [];

  constructor(seed: number) {
    this.#seed = seed;
    this.#random = mulberry32(seed);
  }

  /** Replaces the rules and restarts the PRNG, so the same rules hit the same calls on every run. */
  set(rules: readonly FaultRule[]): void {
    this.#rules = rules.map((rule) => ({ rule, remaining: rule.count ?? null }));
    this.#random = mulberry32(this.#seed);
  }

  /** Whether some rule names pages (dispatch then reads a paging-orders call's page first). */
  get needsPage(): boolean {
    return this.#rules.some((active) => active.rule.pages !== undefined);
  }

  /** `page`: the paging-orders call's page number (null for other operations or when unread). */
  decide(operation: Operation, page: number | null = null): FaultDecision {
    let delayMs = 0;
    for (const active of this.#rules) {
      const { rule } = active;
      if (active.remaining === 0) continue;
      if (rule.operations !== undefined && !rule.operations.includes(operation)) continue;
      if (rule.pages !== undefined && (page === null || !rule.pages.includes(page))) continue;
      if (rule.rate !== undefined && this.#random() >= rule.rate) continue;
      if (active.remaining !== null) active.remaining -= 1;
      if (rule.kind === 'latency') {
        delayMs += rule.ms + (rule.jitterMs ? this.#random() * rule.jitterMs : 0);
        continue;
      }
      return { delayMs, fault: rule };
    }
    return { delayMs, fault: null };
  }
}

/** Each member of a union, with `?: T | undefined` keys narrowed to `?: T`. */
type WithoutUndefined<T> = T extends unknown ? { [K in keyof T]: Exclude<T[K], undefined> } : never;

function withoutUndefined<T extends object>(value: T): WithoutUndefined<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as WithoutUndefined<T>;
}
