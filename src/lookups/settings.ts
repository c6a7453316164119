/**
 * The admin settings that govern spending (issue: spend control), stored as JSON in the store's
 * settings (they survive restarts; every change is audited with who made it) and validated with
 * zod when read, so a hand-edited or older value falls back to safe defaults instead of crashing.
 */
import { z } from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { OPERATION_NAMES, type Operation } from '../plat/operations.js';
import type { Settings } from '../store/store.js';

/** Who may run charged lookups. Default: everyone in the workspace (DESIGN, "defaults"). */
export const accessPolicySchema = lazySchema(() =>
  z.object({
    mode: z.enum(['everyone', 'listed']).default('everyone'),
    users: z.array(z.string()).default([]),
    groups: z.array(z.string()).default([]),
    channels: z.array(z.string()).default([]),
  }),
);
export type AccessPolicy = z.infer<typeof accessPolicySchema>;

const caps = lazySchema(() =>
  z.object({
    daily: z.number().nonnegative().nullable().default(null),
    monthly: z.number().nonnegative().nullable().default(null),
  }),
);
export type Caps = z.infer<typeof caps>;

/** Daily and monthly caps in points, for the whole workspace, per user and per channel. */
export const budgetsSchema = lazySchema(() =>
  z.object({
    /** Days and months are counted in this zone (the marketplaces' time by default). */
    timezone: z.string().default('Asia/Shanghai'),
    workspace: caps.default({ daily: null, monthly: null }),
    /** The cap of every user without a cap of their own. */
    perUser: caps.default({ daily: null, monthly: null }),
    users: z.record(z.string(), caps).default({}),
    /**
     * Caps of single channels (by channel id): every charge made in the channel counts, whoever
     * asked, and lookups, digests and alerts there stop at them (a workflow step's charges name
     * no channel). No entry: no channel cap.
     */
    channels: z.record(z.string(), caps).default({}),
  }),
);
export type Budgets = z.infer<typeof budgetsSchema>;

/** A registered shop: an alias staff can type, its ids, and the channels that may query it. */
export const shopSchema = lazySchema(() =>
  z.object({
    alias: z.string().regex(/^[\w.-]{1,40}$/),
    ownerId: z.string().nullable().default(null),
    shopId: z.string().nullable().default(null),
    /** Empty: any channel. */
    channels: z.array(z.string()).default([]),
  }),
);
export type RegisteredShop = z.infer<typeof shopSchema>;
export const shopRegistrySchema = lazySchema(() =>
  z.object({
    shops: z.array(shopSchema).default([]),
    /** When true, orders and waybills of shops that are not registered cannot be queried. */
    registeredOnly: z.boolean().default(false),
  }),
);
export type ShopRegistry = z.infer<typeof shopRegistrySchema>;

/**
 * Cache lifetimes in seconds by operation. Item details, prices and shop answers are cached by
 * default; waybill print data and orders are not (they change and may be personal).
 */
export const cacheTtlSchema = lazySchema(() =>
  z
    .record(z.string(), z.number().int().nonnegative())
    .default({})
    .transform((ttl): Record<Operation, number> => ({ ...DEFAULT_CACHE_TTL_S, ...pickOperations(ttl) })),
);
export const DEFAULT_CACHE_TTL_S: Record<Operation, number> = {
  platiteminfo: 3600,
  platiteminfoprice: 600,
  'get-shop-info': 6 * 3600,
  'get-shop-id': 6 * 3600,
  platdybw: 0,
  platdzmd: 0,
  'paging-orders': 0,
};
function pickOperations(ttl: Record<string, number>): Partial<Record<Operation, number>> {
  const out: Partial<Record<Operation, number>> = {};
  for (const op of OPERATION_NAMES) if (ttl[op] !== undefined) out[op] = ttl[op];
  return out;
}

/**
 * Price overrides set by admins (App Home), in points per call by operation and edition ('*':
 * every edition). They take precedence over PLAT_PRICES in every quote and budget check.
 */
export const priceOverridesSchema = lazySchema(() =>
  z
    .record(z.string(), z.record(z.string().regex(/^(\d{1,2}|\*)$/), z.number().nonnegative().finite()))
    .default({})
    .transform((table) => {
      const out: Partial<Record<Operation, Record<string, number>>> = {};
      for (const op of OPERATION_NAMES)
        if (table[op] && Object.keys(table[op]).length > 0) out[op] = table[op];
      return out;
    }),
);
export type PriceOverrides = z.output<typeof priceOverridesSchema>;

export const SETTING_KEYS = {
  access: 'access',
  budgets: 'budgets',
  shops: 'shops',
  cacheTtl: 'cache.ttl',
  admins: 'admins',
  prices: 'prices',
} as const;

/**
 * Adds an admin of the tenant whose settings these are (the OAuth install makes its first
 * installer one: `addAdmin(store.forTenant(t).settings, installerId, installerId)`); audited like
 * every setting. Returns the tenant's stored admins. PLATDESK_ADMINS is the single tenant's only.
 */
export async function addAdmin(settings: Settings, userId: string, actorId: string): Promise<string[]> {
  const stored = (await settings.get<string[]>(SETTING_KEYS.admins)) ?? [];
  if (stored.includes(userId)) return stored;
  const next = [...stored, userId];
  await settings.set(SETTING_KEYS.admins, next, actorId);
  return next;
}

/** Typed, validated access to the spend settings (read from the store each time: shared by every process). */
export interface SpendSettings {
  access(): Promise<AccessPolicy>;
  budgets(): Promise<Budgets>;
  shops(): Promise<ShopRegistry>;
  cacheTtlS(): Promise<Record<Operation, number>>;
  priceOverrides(): Promise<PriceOverrides>;
  setAccess(value: AccessPolicy, actorId: string): Promise<void>;
  setBudgets(value: Budgets, actorId: string): Promise<void>;
  setShops(value: ShopRegistry, actorId: string): Promise<void>;
  setCacheTtl(value: Partial<Record<Operation, number>>, actorId: string): Promise<void>;
  setPriceOverrides(value: PriceOverrides, actorId: string): Promise<void>;
}

export function spendSettings(settings: Settings): SpendSettings {
  const read = async <S extends z.ZodType>(key: string, schema: S): Promise<z.output<S>> => {
    const parsed = schema.safeParse((await settings.get(key)) ?? undefined);
    return parsed.success ? parsed.data : schema.parse(undefined);
  };
  return {
    access: () =>
      read(
        SETTING_KEYS.access,
        accessPolicySchema.default({ mode: 'everyone', users: [], groups: [], channels: [] }),
      ),
    budgets: () => read(SETTING_KEYS.budgets, budgetsSchema.default(budgetsSchema.parse({}))),
    shops: () => read(SETTING_KEYS.shops, shopRegistrySchema.default({ shops: [], registeredOnly: false })),
    cacheTtlS: () => read(SETTING_KEYS.cacheTtl, cacheTtlSchema),
    priceOverrides: () => read(SETTING_KEYS.prices, priceOverridesSchema),
    setAccess: (value, actorId) =>
      settings.set(SETTING_KEYS.access, accessPolicySchema.parse(value), actorId),
    setBudgets: (value, actorId) => settings.set(SETTING_KEYS.budgets, budgetsSchema.parse(value), actorId),
    setShops: (value, actorId) => settings.set(SETTING_KEYS.shops, shopRegistrySchema.parse(value), actorId),
    setCacheTtl: (value, actorId) => settings.set(SETTING_KEYS.cacheTtl, value, actorId),
    setPriceOverrides: (value, actorId) =>
      settings.set(SETTING_KEYS.prices, priceOverridesSchema.parse(value), actorId),
  };
}
