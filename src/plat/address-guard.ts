/**
 * Where a plat account a workspace admin entered may send its calls (issue 34, M1). The base URL
 * is an admin's input, and the calls carry that workspace's plat token: pointed at
 * 169.254.169.254, localhost, Redis or another host of the operator's network, platdesk would be
 * the admin's way in (server-side request forgery), and over plain http:// the token would travel
 * in clear. So:
 *
 * - the URL must be https://, with no user or password in it;
 * - every address its host resolves to must be a public one: not loopback, private (RFC 1918,
 *   unique-local), link-local, carrier-grade NAT, multicast, documentation or reserved space; an
 *   IPv6 address that embeds an IPv4 one is judged by that one;
 * - it is checked when an admin saves it and again at every connection: the connection is made to
 *   the very address that was checked (the lookup below), so a name that resolves to a public
 *   address at save and to a private one later (DNS rebinding) is refused before connecting.
 *
 * `allowLoopback` (PLAT_ACCOUNTS_LOOPBACK, for tests and the demo) lets loopback addresses through,
 * with http:// too, since a sandbox on this machine speaks no TLS; nothing else.
 *
 * The operator's own account (PLAT_BASE_URL) is the operator's choice and is not checked here.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import type { buildConnector } from 'undici';

export interface AddressPolicy {
  /** Loopback addresses (and http:// to them) are allowed: tests and the demo only. */
  allowLoopback: boolean;
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** Not the public internet (IANA special-purpose registries, RFC 6890 and its updates). */
const NOT_PUBLIC = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const)
  NOT_PUBLIC.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique-local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const)
  NOT_PUBLIC.addSubnet(net, prefix, 'ipv6');

export type AddressKind = 'public' | 'loopback' | 'other';

/** The IPv4 address an IPv6 one carries (mapped ::ffff:a.b.c.d, compatible, NAT64 64:ff9b::), if any. */
function embeddedIPv4(address: string): string | null {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|::|64:ff9b::)(\d{1,3}(?:\.\d{1,3}){3})$/.exec(lower);
  if (dotted?.[1]) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex?.[1] || !hex[2]) return null;
  const high = Number.parseInt(hex[1], 16);
  const low = Number.parseInt(hex[2], 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** What an IP address is, for a plat account's calls. */
export function addressKind(address: string): AddressKind {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 0) return 'other';
  const v4 = family === 6 ? embeddedIPv4(bare) : null;
  if (v4) return addressKind(v4);
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (LOOPBACK.check(bare, type)) return 'loopback';
  return NOT_PUBLIC.check(bare, type) ? 'other' : 'public';
}

const allowed = (address: string, policy: AddressPolicy) => {
  const kind = addressKind(address);
  return kind === 'public' || (kind === 'loopback' && policy.allowLoopback);
};

/** A connection refused by the guard: nothing was sent (plat/http.ts counts it as not connected). */
export const FORBIDDEN_ADDRESS = 'EPLATADDRESS';

function forbidden(host: string, address: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(
    `${host} resolves to ${address}, which is not a public address: no connection was made`,
  );
  error.code = FORBIDDEN_ADDRESS;
  return error;
}

type Resolve = (host: string) => Promise<LookupAddress[]>;

const RESOLVE_MS = 2_000;
const resolveAll: Resolve = (host) =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`resolving ${host} took over ${RESOLVE_MS} ms`)),
      RESOLVE_MS,
    );
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses) => {
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(addresses);
    });
  });

export type PlatUrlProblem =
  /** Not a URL with a host, or a user or password in it. */
  | 'form'
  /** Not https:// (http:// only to loopback, where the policy allows it). */
  | 'https'
  /** It resolves to an address that is not public. */
  | 'address'
  /** Its host name could not be resolved. */
  | 'unresolved';

/** Checks an admin's base URL before it is stored; null when it may be used. */
export async function platUrlProblem(
  text: string,
  policy: AddressPolicy,
  resolve: Resolve = resolveAll,
): Promise<PlatUrlProblem | null> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'form';
  }
  if (url.hostname === '' || url.username !== '' || url.password !== '') return 'form';
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'https';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host) !== 0) addresses = [host];
  else {
    try {
      addresses = (await resolve(host)).map((a) => a.address);
    } catch {
      return 'unresolved';
    }
    if (addresses.length === 0) return 'unresolved';
  }
  if (!addresses.every((a) => allowed(a, policy))) return 'address';
  // Plain http:// only to this machine (a sandbox in tests and the demo): a token never goes in clear.
  if (
    url.protocol === 'http:' &&
    !(policy.allowLoopback && addresses.every((a) => addressKind(a) === 'loopback'))
  )
    return 'https';
  return null;
}

/**
 * A `lookup` for net.connect / tls.connect: resolves the host and hands back only checked
 * addresses, so the connection goes to what was checked; one address that is not allowed refuses
 * the whole name (a connection could otherwise pick it).
 */
export function guardedLookup(policy: AddressPolicy, resolve: Resolve = resolveAll): LookupFunction {
  return (host, options, callback) => {
    resolve(host).then(
      (addresses) => {
        const bad = addresses.find((a) => !allowed(a.address, policy));
        if (bad) return callback(forbidden(host, bad.address), []);
        const all = options.all === true;
        if (all) return callback(null, addresses);
        const [first] = addresses;
        if (!first)
          return callback(Object.assign(new Error(`${host} has no address`), { code: 'ENOTFOUND' }), []);
        callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, []),
    );
  };
}

/**
 * Wraps a connector made with guardedLookup: a host that is an IP literal is never looked up by
 * Node, so it is checked here, before connecting.
 */
export function guardedConnector(
  connect: buildConnector.connector,
  policy: AddressPolicy,
): buildConnector.connector {
  return (options, callback) => {
    const host = options.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) !== 0 && !allowed(host, policy)) {
      callback(forbidden(host, host), null);
      return;
    }
    connect(options, callback);
  };
}
