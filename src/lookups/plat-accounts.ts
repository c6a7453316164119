/**
 * Which plat account a tenant's lookups are charged to: in distributed mode the account an admin
 * of the workspace connected (base URL and token, sealed in the store), else the operator's
 * default account (PLAT_BASE_URL/PLAT_TOKEN) when one is set; in single-workspace mode always the
 * configured one. null: the tenant has none yet (its admin is asked to connect one).
 */
import type { PriceTable } from '../config.js';
import type { Operation } from '../plat/operations.js';
import type { PlatAccountStore } from '../store/store.js';

export interface PlatAccount {
  baseUrl: string;
  token: string;
  prices?: PriceTable;
  editions?: Partial<Record<Operation, number>>;
}

export interface PlatAccounts {
  accountFor(tenant: string): Promise<PlatAccount | null>;
}

/** Distributed mode: the tenant's own account, else the operator's default (or null). */
export function storedPlatAccounts(store: PlatAccountStore, fallback: PlatAccount | null): PlatAccounts {
  return {
    async accountFor(tenant) {
      const own = await store.get(tenant);
      if (own) return { ...(fallback ?? {}), baseUrl: own.baseUrl, token: own.token };
      return fallback;
    },
  };
}

/** What the admins' Home says of a tenant's plat account. */
export type PlatAccountStatus =
  | { state: 'none' }
  | { state: 'default' }
  | { state: 'unchecked' | 'verified'; baseUrl: string }
  | { state: 'refused'; baseUrl: string; code: string };

export async function platAccountStatus(
  store: PlatAccountStore,
  tenant: string,
  hasDefault: boolean,
): Promise<PlatAccountStatus> {
  const own = await store.get(tenant);
  if (!own) return hasDefault ? { state: 'default' } : { state: 'none' };
  if (own.failure) return { state: 'refused', baseUrl: own.baseUrl, code: own.failure };
  return { state: own.verifiedAt ? 'verified' : 'unchecked', baseUrl: own.baseUrl };
}

/** An admin's entry, checked before it is stored (the token itself is checked on first use). */
export function platAccountProblem(input: { baseUrl: string; token: string }): 'baseUrl' | 'token' | null {
  if (!/^https?:\/\/[^\s]+$/i.test(input.baseUrl)) return 'baseUrl';
  if (input.token === '' || !/^[\x21-\x7e]+$/.test(input.token)) return 'token';
  return null;
}
