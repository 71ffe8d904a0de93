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
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  NON_PUBLIC.addSubnet(net, bits, 'ipv6');

/** The eight 16-bit groups of an IPv6 literal (its zone dropped), or undefined when it is not one. */
function ipv6Groups(address: string): number[] | undefined {
  let text = address.replace(/%.*$/, '').toLowerCase();
  if (isIP(text) !== 6) return undefined;
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  const [head = '', tail] = text.split('::');
  const front = parse(head);
  if (tail === undefined) return front;
  const back = parse(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

const ipv4Of = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;

/**
 * The IPv4 addresses an IPv6 address carries, which is where a connection to it may end up:
 * IPv4-mapped (`::ffff:0:0/96`, any spelling), IPv4-compatible (`::/96`), IPv4-translated
 * (`::ffff:0:0:0/96`), NAT64 (`64:ff9b::/96`), 6to4 (`2002::/16`) and both ends of Teredo (`2001::/32`).
 */
function embeddedIPv4(groups: readonly number[]): string[] {
  const [g0, g1, g2, g3, g4, g5, g6 = 0, g7 = 0] = groups;
  const zeros = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  if (zeros(0, 5) && (g5 === 0xffff || g5 === 0)) return [ipv4Of(g6, g7)];
  if (zeros(0, 4) && g4 === 0xffff && g5 === 0) return [ipv4Of(g6, g7)];
  if (g0 === 0x64 && g1 === 0xff9b && zeros(2, 6)) return [ipv4Of(g6, g7)];
  if (g0 === 0x2002) return [ipv4Of(g1 ?? 0, g2 ?? 0)];
  if (g0 === 0x2001 && g1 === 0) return [ipv4Of(g2 ?? 0, g3 ?? 0), ipv4Of(~g6 & 0xffff, ~g7 & 0xffff)];
  return [];
}

/** The non-public addresses a connection to `address` may reach: itself, and each IPv4 address written inside it. */
function nonPublicParts(address: string): string[] {
  if (isIP(address) === 4) return NON_PUBLIC.check(address, 'ipv4') ? [address] : [];
  const groups = ipv6Groups(address);
  if (!groups) return [];
  const own = NON_PUBLIC.check(address.replace(/%.*$/, '').toLowerCase(), 'ipv6') ? [address] : [];
  return [...own, ...embeddedIPv4(groups).filter((v4) => NON_PUBLIC.check(v4, 'ipv4'))];
}

/**
 * Whether `address` (an IP literal) is private, loopback, link-local or otherwise not on the
 * public internet, or an IPv6 address that carries such an IPv4 address in any of its forms.
 */
export function isNonPublicAddress(address: string): boolean {
  return nonPublicParts(address).length > 0;
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
  const list = new BlockList();
  for (const entry of allowed) {
    const [net, bits] = entry.split('/');
    const type = isIP(net ?? '') === 6 ? 'ipv6' : 'ipv4';
    if (!net || isIP(net) === 0) continue;
    if (bits === undefined) list.addAddress(net, type);
    else list.addSubnet(net, Number(bits), type);
  }
  const plain = address.replace(/%.*$/, '');
  return list.check(plain, isIP(plain) === 6 ? 'ipv6' : 'ipv4');
}

/**
 * Why the address may not be reached, or undefined when it may: each non-public part of it (the
 * address, or an IPv4 address inside an IPv6 one) must be allowed, or the address itself.
 */
export function addressRefusal(host: string, address: string, policy: WebPolicy): string | undefined {
  const parts = nonPublicParts(address);
  if (policy.allowPrivate || parts.length === 0) return undefined;
  if (explicitlyAllowed(address, policy.allowAddresses)) return undefined;
  if (parts.every((part) => explicitlyAllowed(part, policy.allowAddresses))) return undefined;
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
