/**
 * Which addresses `web_fetch` may reach (docs/reference/web.md#what-web_fetch-refuses):
 * the user config's `[web]` host lists, and never a private, loopback,
 * link-local or otherwise non-public address unless `allow_private = true`.
 * Every address a host resolves to is checked, on every hop of a redirect,
 * and the connection goes to the address that was checked.
 */
import { BlockList, isIP } from 'node:net';

export interface WebPolicy {
  /** When not empty, only these hosts (and their subdomains) are fetched. */
  allowHosts: string[];
  /** Never fetched, even when allowed above. */
  denyHosts: string[];
  /** Private, loopback and link-local addresses may be fetched too. */
  allowPrivate: boolean;
  /** Non-public addresses or CIDR blocks that may be fetched all the same (`["127.0.0.1"]`). */
  allowAddresses: string[];
  /** The most a fetch reads of a response body. */
  maxBytes: number;
}

export const DEFAULT_WEB_MAX_BYTES = 1_048_576;

export const DEFAULT_WEB_POLICY: WebPolicy = Object.freeze({
  allowHosts: [],
  denyHosts: [],
  allowPrivate: false,
  allowAddresses: [],
  maxBytes: DEFAULT_WEB_MAX_BYTES,
}) as WebPolicy;

const NON_PUBLIC = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  NON_PUBLIC.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  NON_PUBLIC.addSubnet(net, bits, 'ipv6');

/** Whether `address` (an IP literal) is private, loopback, link-local or otherwise not on the public internet. */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return NON_PUBLIC.check(address, 'ipv4');
  if (family !== 6) return false;
  const lower = address.toLowerCase();
  // An IPv4 address written as IPv6 (::ffff:127.0.0.1) is the IPv4 address.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped?.[1]) return NON_PUBLIC.check(mapped[1], 'ipv4');
  return NON_PUBLIC.check(lower, 'ipv6');
}

function matchesHost(host: string, patterns: readonly string[]): boolean {
  return patterns.some((p) => {
    const want = p.toLowerCase().replace(/^\*\./, '').replace(/\.$/, '');
    return host === want || host.endsWith(`.${want}`);
  });
}

/** Why the host may not be fetched by the lists, or undefined when it may. */
export function hostRefusal(host: string, policy: WebPolicy): string | undefined {
  const h = host
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  if (matchesHost(h, policy.denyHosts))
    return `${h} is in [web] deny_hosts of the user config, so it is not fetched; use another source.`;
  if (policy.allowHosts.length > 0 && !matchesHost(h, policy.allowHosts))
    return `${h} is not in [web] allow_hosts of the user config (${policy.allowHosts.join(', ')}), so it is not fetched; ask the user to add it.`;
  return undefined;
}

/** Whether `address` is one of `allow_addresses` (an address, or `address/bits`). */
function explicitlyAllowed(address: string, allowed: readonly string[]): boolean {
  if (allowed.length === 0) return false;
  const list = new BlockList();
  for (const entry of allowed) {
    const [net, bits] = entry.split('/');
    const type = isIP(net ?? '') === 6 ? 'ipv6' : 'ipv4';
    if (!net || isIP(net) === 0) continue;
    if (bits === undefined) list.addAddress(net, type);
    else list.addSubnet(net, Number(bits), type);
  }
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  const plain = mapped ?? address;
  return list.check(plain, isIP(plain) === 6 ? 'ipv6' : 'ipv4');
}

/** Why the address may not be reached, or undefined when it may. */
export function addressRefusal(host: string, address: string, policy: WebPolicy): string | undefined {
  if (policy.allowPrivate || !isNonPublicAddress(address)) return undefined;
  if (explicitlyAllowed(address, policy.allowAddresses)) return undefined;
  const via = host === address ? '' : ` (${host} resolves to it)`;
  return `${address}${via} is a private, loopback or link-local address, which web_fetch does not reach; to allow it, the user config needs \`[web] allow_addresses = ["${address}"]\` (or \`allow_private = true\`).`;
}

/** A search API for `web_search` (docs/reference/web.md). */
export type SearchKind = 'searxng' | 'brave';

export interface SearchConfig {
  kind: SearchKind;
  /** The API's base URL: a SearXNG instance, or Brave's endpoint (its default). */
  url: string;
  /** Brave's subscription token (`${VAR}` expanded from the worker's environment). */
  apiKey?: string;
}
