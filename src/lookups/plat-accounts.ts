/**
 * A plat account per tenant (issue 24): where each tenant's calls go, with which token, at which
 * prices and editions, and the plat client built for it.
 *
 * - `PlatAccounts` says which account a tenant spends from. The default (operatorAccounts) is the
 *   operator's: PLAT_BASE_URL / PLAT_TOKEN (or the sandbox) for every tenant, as in
 *   single-workspace mode. Distributed mode's (storedPlatAccounts) is the account the tenant's admin
 *   entered, falling back to the operator's account where one is set.
 * - `createPlatClients` builds one plat client per account and keeps it: one undici pool per base
 *   URL (accounts on one origin share its sockets) and ONE limiter for every tenant. The spec
 *   states the limit (10 calls in any 1000 ms) without saying whether it counts per token or per
 *   caller address; the conservative reading is per deployment, so every tenant's calls go
 *   through the one limiter (plat/limiter.ts), interactive calls still ahead of scheduled ones.
 */
import type { Logger } from 'pino';
import type { Pool } from 'undici';
import type { PriceTable } from '../config.js';
import { type AddressPolicy, guardedConnector, guardedLookup } from '../plat/address-guard.js';
import type { AttemptInfo, PlatClient } from '../plat/client.js';
import { PlatNoAccountError } from '../plat/errors.js';
import { createPlatHttp, type HttpTimeouts, type PlatHttp } from '../plat/http.js';
import { OPERATIONS, type Operation } from '../plat/operations.js';
import type { Undici } from '../plat/undici.js';
import type { PlatAccountStore } from '../store/store.js';

export interface PlatAccount {
  /** The spec's {base_url}. */
  baseUrl: string;
  /** The account's access token: never logged, never shown. */
  token: string;
  /** Prices per operation and edition, in points (as PLAT_PRICES); the operator's where absent. */
  prices?: PriceTable;
  /** Edition per operation (as PLAT_EDITIONS); the operator's where absent. */
  editions?: Partial<Record<Operation, number>>;
  /**
   * Told of every attempt sent with this account (a stored account's first-use check): such an
   * account gets a client of its own tenant, not shared with another tenant on the same token.
   */
  observe?: { tenant: string; onAttempt(info: AttemptInfo): void };
}

export interface PlatAccounts {
  /** The account a tenant spends from; null: none (the tenant's lookups are refused). */
  accountFor(tenant: string): Promise<PlatAccount | null>;
  /** Whether the operator's account serves the tenant when it connects none (the Home says so). */
  servesByDefault?(tenant: string): Promise<boolean>;
}

/** Who the operator's account serves in distributed mode (PLATDESK_DEFAULT_ACCOUNT_FOR). */
export type DefaultAccountFor = readonly string[] | 'all';

/** The workspace and org of an installed tenant (null: not installed). */
export type InstalledAs = { teamId: string | null; enterpriseId: string | null } | null;

/**
 * Whether the operator's account serves an installed tenant: every one with `*`, else one whose
 * tenant, workspace or org is named (issue 34 H3: a stranger's install never spends it).
 */
export function defaultServes(
  defaultFor: DefaultAccountFor,
  tenant: string,
  installed: InstalledAs,
): boolean {
  if (installed === null) return false;
  if (defaultFor === 'all') return true;
  return [tenant, installed.teamId, installed.enterpriseId].some(
    (id) => id !== null && defaultFor.includes(id),
  );
}

/** The operator's account for every tenant (PLAT_BASE_URL / PLAT_TOKEN, or the sandbox). */
export function operatorAccounts(account: PlatAccount): PlatAccounts {
  return { accountFor: async () => account };
}

/** A tenant's plat client and what its quotes state. */
export interface TenantPlat {
  client: PlatClient;
  prices: PriceTable;
}

/**
 * A tenant's plat client as its parts hold it (tenant-services.ts), made once per tenant: the one
 * place a tenant without a plat account is found out.
 */
export interface TenantAccountPlat extends TenantPlat {
  /** Rejects with PlatNoAccountError when the tenant has no plat account now; nothing is sent. */
  ensureAccount(): Promise<void>;
}

export interface PlatClients {
  /** The tenant's client (built once per account, rebuilt when its account changes), or null. */
  clientFor(tenant: string): Promise<TenantPlat | null>;
  /**
   * The tenant's client whatever its account: each call reads the tenant's current account (one
   * an admin connects, on this replica or another, serves the very next call; an uninstall's
   * deleted account refuses it) and goes to that account's client; with none, the call is refused
   * with PlatNoAccountError before anything is sent. Prices and editions are those of the account
   * the tenant had when this was made (the operator's where it had none).
   */
  forTenant(tenant: string): Promise<TenantAccountPlat>;
  /** How many accounts' clients are kept now (idle ones are let go). */
  kept(): number;
  /** Closes every pool (see PlatHttp.close: `force` cuts calls in flight off). */
  close(options?: { force?: boolean }): Promise<void>;
}

/** An account's client unused this long is let go (built again by its next call). */
export const ACCOUNT_IDLE_MS = 10 * 60_000;

export interface PlatClientsDeps {
  /** Default ACCOUNT_IDLE_MS. */
  idleMs?: number;
  /** The clock idleness is judged by (default Date.now). */
  now?: () => number;
  accounts: PlatAccounts;
  /**
   * Where a workspace's own account (one an admin entered) may connect (plat/address-guard.ts):
   * its pool resolves and checks every address it connects to. The operator's is not checked.
   */
  guard: AddressPolicy;
  timeouts: Partial<HttpTimeouts>;
  /** The operator's prices and editions, under each account's own. */
  defaults: { prices: PriceTable; editions: Partial<Record<Operation, number>> };
  /** Builds the client on an account's HTTP path (the one limiter, metrics, retries: main.ts). */
  makeClient(
    http: PlatHttp,
    editions: Partial<Record<Operation, number>>,
    onAttempt?: (info: AttemptInfo) => void,
  ): PlatClient;
}

export function createPlatClients(deps: PlatClientsDeps): PlatClients {
  const pools = new Map<string, Pool>();
  const idleMs = deps.idleMs ?? ACCOUNT_IDLE_MS;
  const now = deps.now ?? Date.now;
  /**
   * By account (base URL and token): tenants on one account share its client. An account unused
   * for idleMs is let go (issue 39: clients per account are made on demand and released).
   */
  const byAccount = new Map<string, TenantPlat & { http: PlatHttp; usedAt: number }>();
  /** The operator's paths let go, kept one more idleMs so a call still on one is cut off at shutdown. */
  const retired = new Map<PlatHttp, number>();
  /**
   * A workspace's own account: the key of the client it uses now, and that client's own guarded
   * pool. When the account is replaced, deleted or idle, that pool is closed (calls in flight
   * finish first) and the client forgotten: no socket or token of a replaced account stays.
   */
  const ownKey = new Map<string, string>();
  const ownPools = new Map<string, { pool: Pool | null; http: PlatHttp }>();
  const letGo = (key: string) => {
    const plat = byAccount.get(key);
    byAccount.delete(key);
    for (const [tenant, k] of ownKey) if (k === key) ownKey.delete(tenant);
    const own = ownPools.get(key);
    ownPools.delete(key);
    if (own) own.pool?.close().catch(() => undefined);
    else if (plat) retired.set(plat.http, now());
  };
  const retire = (tenant: string) => {
    const key = ownKey.get(tenant);
    if (key !== undefined) letGo(key);
  };
  let sweptAt = now();
  function sweep(): void {
    const t = now();
    if (t - sweptAt < idleMs / 4) return;
    sweptAt = t;
    for (const [http, at] of retired) if (t - at >= idleMs) retired.delete(http);
    for (const [key, plat] of byAccount) if (t - plat.usedAt >= idleMs) letGo(key);
  }
  // A workspace's own pool: every connection resolved and checked by the guard, the very address
  // checked connected to (DNS rebinding), an IP literal checked before connecting.
  const guardedPool = (key: string, baseUrl: string) => (undici: Undici) => {
    const connect = guardedConnector(
      undici.buildConnector({
        ...(deps.timeouts.connectMs !== undefined ? { timeout: deps.timeouts.connectMs } : {}),
        lookup: guardedLookup(deps.guard),
      }),
      deps.guard,
    );
    const pool = new undici.Pool(new URL(baseUrl).origin, {
      connections: 4,
      connect,
      ...(deps.timeouts.headersMs !== undefined ? { headersTimeout: deps.timeouts.headersMs } : {}),
      ...(deps.timeouts.bodyMs !== undefined ? { bodyTimeout: deps.timeouts.bodyMs } : {}),
      keepAliveTimeout: 30_000,
    });
    const own = ownPools.get(key);
    if (own) own.pool = pool;
    return pool;
  };
  // Made with the first call's undici (plat/http.ts loads it then): start does not load undici.
  const poolFor = (baseUrl: string) => (undici: Undici) => {
    const origin = new URL(baseUrl).origin;
    let pool = pools.get(origin);
    if (!pool) {
      pool = new undici.Pool(origin, {
        connections: 16,
        ...(deps.timeouts.connectMs !== undefined ? { connect: { timeout: deps.timeouts.connectMs } } : {}),
        ...(deps.timeouts.headersMs !== undefined ? { headersTimeout: deps.timeouts.headersMs } : {}),
        ...(deps.timeouts.bodyMs !== undefined ? { bodyTimeout: deps.timeouts.bodyMs } : {}),
        keepAliveTimeout: 30_000,
      });
      pools.set(origin, pool);
    }
    return pool;
  };
  async function clientFor(tenant: string): Promise<TenantPlat | null> {
    const account = await deps.accounts.accountFor(tenant);
    // The token is a map key in memory only (never logged): a changed token is a new client.
    const key = account && `${account.observe?.tenant ?? ''}\u0000${account.baseUrl}\u0000${account.token}`;
    // The workspace's own account was replaced or deleted since its last call: its client goes.
    if (ownKey.has(tenant) && ownKey.get(tenant) !== (account?.observe ? key : undefined)) retire(tenant);
    sweep();
    if (!account || !key) return null;
    let plat = byAccount.get(key);
    if (!plat) {
      const own = account.observe !== undefined;
      const http = createPlatHttp({
        baseUrl: account.baseUrl,
        token: account.token,
        timeouts: deps.timeouts,
        pool: own ? guardedPool(key, account.baseUrl) : poolFor(account.baseUrl),
      });
      if (own) {
        ownKey.set(tenant, key);
        // Its pool is made with the first call (undici loads then); closed when it is retired.
        ownPools.set(key, { http, pool: null });
      }
      const editions = { ...deps.defaults.editions, ...account.editions };
      plat = {
        http,
        usedAt: now(),
        client: deps.makeClient(http, editions, account.observe?.onAttempt),
        prices: { ...deps.defaults.prices, ...account.prices },
      };
      byAccount.set(key, plat);
    }
    plat.usedAt = now();
    return { client: plat.client, prices: plat.prices };
  }
  return {
    clientFor,
    kept: () => byAccount.size,
    async forTenant(tenant) {
      const first = await clientFor(tenant);
      const current = async (operation: Operation | null): Promise<PlatClient> => {
        const plat = await clientFor(tenant);
        if (!plat) throw new PlatNoAccountError(operation);
        return plat.client;
      };
      const via =
        <K extends Exclude<keyof PlatClient, 'editionFor'>>(name: K, operation: Operation) =>
        async (...args: Parameters<PlatClient[K]>): Promise<Awaited<ReturnType<PlatClient[K]>>> =>
          // biome-ignore lint/suspicious/noExplicitAny: one forwarder for every operation's signature
          (await current(operation))[name](...(args as [any, any])) as Awaited<ReturnType<PlatClient[K]>>;
      const editions = { ...deps.defaults.editions };
      return {
        client: {
          editionFor: first
            ? first.client.editionFor
            : (operation) => editions[operation] ?? OPERATIONS[operation].defaultEdition,
          waybillPrintData: via('waybillPrintData', 'platdybw'),
          itemInfo: via('itemInfo', 'platiteminfo'),
          itemPrices: via('itemPrices', 'platiteminfoprice'),
          shopInfo: via('shopInfo', 'get-shop-info'),
          shopId: via('shopId', 'get-shop-id'),
          waybillInfo: via('waybillInfo', 'platdzmd'),
          orders: via('orders', 'paging-orders'),
        },
        prices: first?.prices ?? { ...deps.defaults.prices },
        ensureAccount: async () => {
          await current(null);
        },
      };
    },
    async close({ force = false } = {}) {
      const https = [...[...byAccount.values()].map((p) => p.http), ...retired.keys()];
      await Promise.all(https.map((h) => h.close({ force })));
      const all = [...pools.values(), ...[...ownPools.values()].flatMap((o) => (o.pool ? [o.pool] : []))];
      await Promise.all(all.map((p) => (force ? p.destroy() : p.close())));
    },
  };
}

/**
 * Distributed mode (issue 24): the account an admin of the tenant connected (sealed in the store,
 * store/plat-accounts.ts), else the operator's default account when one is set, the tenant is
 * installed and PLATDESK_DEFAULT_ACCOUNT_FOR names it (issue 34 H3), else none. Read at each call
 * (forTenant), so a change on any replica applies at once.
 *
 * The spec has no free call to check a token with, so a connected token is checked on first use:
 * the first answer read with it (any envelope code but 401) marks it verified, a 401 ("credential
 * invalid", spec §7) marks it refused with that code; the admins' Home shows which.
 */
export function storedPlatAccounts(
  store: PlatAccountStore,
  fallback: PlatAccount | null,
  logger: Pick<Logger, 'warn'>,
  /** The tenant's installation now: an uninstalled one never spends from the default. */
  installed: (tenant: string) => Promise<InstalledAs>,
  /** Whom the default serves (PLATDESK_DEFAULT_ACCOUNT_FOR). */
  defaultFor: DefaultAccountFor,
): PlatAccounts {
  const servesByDefault = async (tenant: string) =>
    fallback !== null && defaultServes(defaultFor, tenant, await installed(tenant));
  /** Tenant and token whose verification is written already (one write per token, not per call). */
  const verified = new Set<string>();
  const observe = (tenant: string, token: string): NonNullable<PlatAccount['observe']> => ({
    tenant,
    onAttempt({ outcome, apiCode }) {
      const key = `${tenant}\u0000${token}`;
      let write: Promise<void>;
      if (outcome === 'credential_invalid') {
        verified.delete(key);
        write = store.markRefused(tenant, String(apiCode ?? 401));
      } else if (apiCode !== null && !verified.has(key)) {
        verified.add(key);
        write = store.markVerified(tenant);
      } else return;
      write.catch((err: unknown) => {
        verified.delete(key);
        logger.warn({ err, tenant }, 'could not record the plat account check');
      });
    },
  });
  return {
    async accountFor(tenant) {
      // Both read at once where the default may serve: a workspace without an account of its own
      // (most) waits for one round trip, not two (issue 39: a cold workspace's first request).
      const serves = fallback ? servesByDefault(tenant) : Promise.resolve(false);
      serves.catch(() => undefined);
      const own = await store.get(tenant);
      if (own)
        return {
          ...(fallback ?? {}),
          baseUrl: own.baseUrl,
          token: own.token,
          observe: observe(tenant, own.token),
        };
      // Its own account goes with an uninstall; the default must not outlive it either, and
      // serves only whom it is for.
      return fallback && (await serves) ? fallback : null;
    },
    servesByDefault,
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

/**
 * An admin's token, checked before it is stored (the plat API checks it on first use); the base
 * URL is checked by plat/address-guard.ts platUrlProblem.
 */
export const platTokenProblem = (token: string): boolean => token === '' || !/^[\x21-\x7e]+$/.test(token);
