/**
 * The lookups a message shortcut offers (issue 5): what was found becomes one request per item,
 * account or linked shop, and one waybill request for the chosen waybill numbers (batched by the
 * client, 20 a call). One confirmation states the total of the chosen ones; its Confirm claims
 * the batch once (store/unfurls.ts ShortcutBatches), so a double submit never runs anything twice.
 */
import { z } from 'zod';
import { lazySchema } from '../lazy-schema.js';
import type { BatchClaim, ShortcutBatch, Store } from '../store/store.js';
import { CONFIRM_TTL_MS, type LookupService, summarize } from './lookup-service.js';
import type { Candidate, Found, ShortcutKind } from './message-refs.js';
import { MAX_WAYBILLS_PER_COMMAND } from './parse/command-text.js';
import { CARRIER_CODES } from './parse/waybill.js';
import type { RegisteredShop } from './settings.js';
import type { LookupRequest, Quote } from './types.js';

export interface ShortcutPayload {
  kind: ShortcutKind;
  found: Found;
}

const marketplace = lazySchema(() => z.enum(['0', '1', '2']));
const candidateSchema = lazySchema(() =>
  z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('item'), itemId: z.string(), marketplace: marketplace.nullable() }),
    z.object({ kind: z.literal('shop-info'), url: z.string(), shopType: marketplace, itemId: z.string() }),
    z.object({ kind: z.literal('shop-id'), wwid: z.string() }),
    z.object({ kind: z.literal('waybill'), waybillCode: z.string(), carrier: z.string().nullable() }),
  ]),
);
const payloadSchema = lazySchema(() =>
  z.object({
    kind: z.enum(['items', 'waybills', 'shops', 'any']),
    found: z.object({
      candidates: z.array(candidateSchema),
      shortLinks: z.array(z.string()),
      more: z.number(),
      target: z.string().nullable(),
    }),
  }),
);

export function readPayload(batch: ShortcutBatch): ShortcutPayload | null {
  try {
    const parsed = payloadSchema.safeParse(JSON.parse(batch.payloadJson));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** What the user chose in the modal. */
export interface Selection {
  /** Indexes into found.candidates. */
  chosen: number[];
  /** `shop:<id or alias>` or `owner:<id or alias>` (waybills only). */
  target: string | null;
  /** Carrier for waybill numbers whose shape does not tell (owner: only). */
  carrier: string | null;
}

export interface PlannedLookup {
  request: LookupRequest;
  summary: string;
  quote: Quote;
}

/** A problem with the choice, on the modal field it concerns; blocks/ words it (`shortcut.problem.*`). */
export type PlanProblem = {
  field: 'pick' | 'target' | 'carrier';
  code: 'choose_some' | 'whose' | 'too_many' | 'carrier_code' | 'carrier_unknown' | 'carrier_unknown_more';
  values?: Record<string, string | number>;
};

export interface Plan {
  lookups: PlannedLookup[];
  /** The total of every chosen lookup (null points when one price is not known yet). */
  total: Quote;
  problems: PlanProblem[];
  /** Waybills were chosen but no target yet: the total cannot be stated. */
  needsTarget: boolean;
}

/** One quote for several lookups: the lines side by side, points and quota calls added up. */
export function sumQuotes(quotes: readonly Quote[]): Quote {
  let totalPoints: number | null = 0;
  let quotaCalls = 0;
  for (const q of quotes) {
    quotaCalls += q.quotaCalls;
    const hasPoints = q.lines.some((l) => l.unit === 'points');
    if (hasPoints)
      totalPoints = q.totalPoints === null || totalPoints === null ? null : totalPoints + q.totalPoints;
  }
  return { lines: quotes.flatMap((q) => q.lines), totalPoints, quotaCalls };
}

export const TARGET_PATTERN = /^(shop|owner):([\w.:@-]{1,64})$/i;

function requestOf(c: Exclude<Candidate, { kind: 'waybill' }>): LookupRequest {
  switch (c.kind) {
    case 'item':
      return { kind: 'item', itemId: c.itemId, withPrices: false };
    case 'shop-info':
      return { kind: 'shop-info', url: c.url, shopType: c.shopType };
    case 'shop-id':
      return { kind: 'shop-id', wwid: c.wwid };
  }
}

/** What one candidate's own lookup costs (waybills: null, they are looked up together). */
export async function candidateQuote(
  lookups: Pick<LookupService, 'quote'>,
  c: Candidate,
): Promise<Quote | null> {
  return c.kind === 'waybill' ? null : lookups.quote(requestOf(c));
}

/** Builds the requests of the chosen candidates and their total; problems name the modal field. */
export async function planSelection(
  lookups: Pick<LookupService, 'quote'>,
  found: Found,
  selection: Selection,
): Promise<Plan> {
  const problems: PlanProblem[] = [];
  const chosen = [...new Set(selection.chosen)]
    .filter((i) => i >= 0 && i < found.candidates.length)
    .sort((a, b) => a - b)
    .map((i) => found.candidates[i])
    .filter((c): c is Candidate => c !== undefined);
  if (chosen.length === 0) problems.push({ field: 'pick', code: 'choose_some' });

  const requests: LookupRequest[] = [];
  for (const c of chosen) if (c.kind !== 'waybill') requests.push(requestOf(c));

  const waybills = chosen.filter((c): c is Extract<Candidate, { kind: 'waybill' }> => c.kind === 'waybill');
  let needsTarget = false;
  if (waybills.length > 0) {
    const target = selection.target?.trim() ?? '';
    const m = target.match(TARGET_PATTERN);
    if (!m?.[1] || !m[2]) {
      needsTarget = true;
      problems.push({ field: 'target', code: 'whose' });
    } else if (waybills.length > MAX_WAYBILLS_PER_COMMAND) {
      problems.push({ field: 'pick', code: 'too_many', values: { max: MAX_WAYBILLS_PER_COMMAND } });
    } else if (m[1].toLowerCase() === 'shop') {
      requests.push({
        kind: 'waybill-print',
        shopId: m[2],
        waybills: waybills.map((w) => ({ waybillCode: w.waybillCode, carrier: w.carrier })),
      });
    } else {
      const carrier = selection.carrier?.toUpperCase() ?? null;
      if (carrier !== null && !(CARRIER_CODES as readonly string[]).includes(carrier))
        problems.push({
          field: 'carrier',
          code: 'carrier_code',
          values: { codes: CARRIER_CODES.join(', ') },
        });
      const refs = waybills.map((w) => ({ waybillCode: w.waybillCode, carrier: w.carrier ?? carrier }));
      // platdzmd needs a carrier for every waybill (spec §4.6: wp_code required).
      const unknown = refs.filter((r) => r.carrier === null).map((r) => r.waybillCode);
      if (unknown.length > 0)
        problems.push({
          field: 'carrier',
          code: unknown.length > 3 ? 'carrier_unknown_more' : 'carrier_unknown',
          values: { numbers: unknown.slice(0, 3).join(', '), n: unknown.length - 3 },
        });
      else requests.push({ kind: 'waybill-info', ownerId: m[2], waybills: refs });
    }
  }
  const planned = await Promise.all(
    requests.map(async (request) => ({
      request,
      summary: summarize(request),
      quote: await lookups.quote(request),
    })),
  );
  return { lookups: planned, total: sumQuotes(planned.map((p) => p.quote)), problems, needsTarget };
}

/** The target options offered for the waybill shortcut: the registered shops. */
export function targetOptions(shops: readonly RegisteredShop[]): { value: string; label: string }[] {
  const out: { value: string; label: string }[] = [];
  for (const s of shops) {
    if (s.shopId) out.push({ value: `shop:${s.alias}`, label: `${s.alias}: print data (shop ${s.shopId})` });
    if (s.ownerId)
      out.push({ value: `owner:${s.alias}`, label: `${s.alias}: information (owner ${s.ownerId})` });
  }
  return out.slice(0, 100);
}

/** The shortcut's offer, kept until its Confirm (or expiry: the confirmation's 10 minutes). */
export function openBatch(
  store: Store,
  input: {
    userId: string;
    kind: ShortcutKind;
    channelId: string | null;
    threadTs: string | null;
    found: Found;
    ttlMs?: number;
  },
): Promise<ShortcutBatch> {
  const payload: ShortcutPayload = { kind: input.kind, found: input.found };
  return store.shortcutBatches.create({
    userId: input.userId,
    kind: input.kind,
    channelId: input.channelId,
    threadTs: input.threadTs,
    payloadJson: JSON.stringify(payload),
    ttlMs: input.ttlMs ?? CONFIRM_TTL_MS,
  });
}

export function claimBatch(store: Store, batchId: string, userId: string): Promise<BatchClaim> {
  return store.shortcutBatches.claim(batchId, userId);
}
