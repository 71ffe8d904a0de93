/**
 * How much of a request a provider's prompt cache could reuse from earlier
 * requests, measured on the recorded wire bodies. A body is split into
 * segments in the order the provider reads them (the tool list, the system,
 * then each message or content block); tokens are counted on each segment's serialized JSON.
 */
import type { ModelPrices } from '../src/shapes/model-info.js';
import { countTokens } from '../src/tokens/count.js';

export interface Segment {
  text: string;
  system: boolean;
  /** Anthropic: the block carries `cache_control`. */
  breakpoint: boolean;
  /** What the segment holds: a system block's region, or a message role. */
  label: string;
}

const tokenCache = new Map<string, number>();

export function tokensOf(text: string): number {
  let n = tokenCache.get(text);
  if (n === undefined) {
    n = countTokens(text, 'o200k_base');
    tokenCache.set(text, n);
  }
  return n;
}

// biome-ignore lint/suspicious/noExplicitAny: wire JSON
type Body = any;

/** The region a system block renders, from its `## name` heading. */
function heading(text: string): string {
  return /^## (\S+)/.exec(text)?.[1] ?? 'system';
}

/** The tool list, which both providers read before anything else. */
function toolsSegment(body: Body): Segment[] {
  return body.tools ? [{ text: JSON.stringify(body.tools), system: false, breakpoint: false, label: 'tools' }] : [];
}

export function openaiSegments(body: Body): Segment[] {
  return [
    ...toolsSegment(body),
    ...(body.messages as Body[]).map((m) => ({
      text: JSON.stringify(m),
      system: m.role === 'system',
      breakpoint: false,
      label: m.role,
    })),
  ];
}

function withoutCacheControl(block: Body): Body {
  const { cache_control: _marker, ...rest } = block;
  return rest;
}

export function anthropicSegments(body: Body): Segment[] {
  const out: Segment[] = toolsSegment(body);
  for (const b of (body.system ?? []) as Body[]) {
    out.push({
      text: JSON.stringify(withoutCacheControl(b)),
      system: true,
      breakpoint: b.cache_control !== undefined,
      label: heading(b.text),
    });
  }
  for (const m of body.messages as Body[]) {
    for (const b of m.content as Body[]) {
      out.push({
        text: JSON.stringify({ role: m.role, ...withoutCacheControl(b) }),
        system: false,
        breakpoint: b.cache_control !== undefined,
        label: m.role,
      });
    }
  }
  return out;
}

export function totalTokens(segments: readonly Segment[]): number {
  return segments.reduce((sum, s) => sum + tokensOf(s.text), 0);
}

function commonChars(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

export interface PrefixShare {
  /** Tokens of `cur` that continue the longest common prefix with `prev`. */
  reused: number;
  total: number;
  /** Tokens of `prev`'s system section that `cur` repeats unchanged from the start. */
  systemKept: number;
  systemPrevious: number;
  /** Tokens of the whole segments `cur` repeats unchanged from the start. */
  unchanged: number;
  /** The first segment of `cur` that differs from `prev` (or that `prev` lacks). */
  firstChanged?: Segment;
}

/** Longest common prefix of two requests, in tokens of their serialized segments. */
export function prefixShare(prev: readonly Segment[], cur: readonly Segment[]): PrefixShare {
  let reused = 0;
  let systemKept = 0;
  let unchanged = 0;
  let firstChanged: Segment | undefined;
  for (let i = 0; i < cur.length; i++) {
    const a = prev[i];
    const b = cur[i]!;
    if (a === undefined) {
      firstChanged = b;
      break;
    }
    if (a.text === b.text) {
      const t = tokensOf(b.text);
      reused += t;
      unchanged += t;
      if (a.system) systemKept += t;
      continue;
    }
    firstChanged = b;
    const shared = b.text.slice(0, commonChars(a.text, b.text));
    const t = shared === '' ? 0 : tokensOf(shared);
    reused += t;
    if (a.system && b.system) systemKept += t;
    break;
  }
  const systemPrevious = prev.filter((s) => s.system).reduce((sum, s) => sum + tokensOf(s.text), 0);
  return {
    reused,
    total: totalTokens(cur),
    systemKept,
    systemPrevious,
    unchanged,
    ...(firstChanged ? { firstChanged } : {}),
  };
}

export interface CacheCharge {
  read: number;
  write: number;
  input: number;
}

/**
 * OpenAI's automatic prefix cache: a prompt of at least 1024 tokens reuses
 * the longest prefix seen before, in steps of 128 tokens; writing is free.
 */
export function openaiCharge(prev: readonly Segment[] | undefined, cur: readonly Segment[]): CacheCharge {
  const total = totalTokens(cur);
  const lcp = prev ? prefixShare(prev, cur).reused : 0;
  const read = total >= 1024 && lcp >= 1024 ? Math.floor(lcp / 128) * 128 : 0;
  return { read, write: 0, input: total - read };
}

/** Anthropic's minimum cacheable prefix for Sonnet and Opus models. */
export const ANTHROPIC_MIN_CACHED = 1024;
/** Anthropic looks this many blocks back from a breakpoint for an earlier cache entry. */
const ANTHROPIC_LOOKBACK = 20;

/**
 * Anthropic's explicit cache: each `cache_control` breakpoint writes the
 * prefix up to it; a later request reads the longest prefix ending at a
 * block boundary (within 20 blocks before one of its breakpoints) that an
 * earlier breakpoint wrote. Tokens after the read part up to the last
 * breakpoint are charged as cache writes, the rest as plain input.
 */
export class AnthropicCache {
  private readonly written = new Set<string>();

  charge(cur: readonly Segment[]): CacheCharge {
    const keys: string[] = [];
    const ends: number[] = [];
    let key = '';
    let tokens = 0;
    for (const s of cur) {
      key = `${key}\u0000${s.text}`;
      tokens += tokensOf(s.text);
      keys.push(key);
      ends.push(tokens);
    }
    let read = 0;
    let lastBreakpoint = -1;
    cur.forEach((s, i) => {
      if (!s.breakpoint) return;
      lastBreakpoint = i;
      for (let j = i; j >= Math.max(0, i - ANTHROPIC_LOOKBACK + 1); j--) {
        if (this.written.has(keys[j]!)) {
          read = Math.max(read, ends[j]!);
          break;
        }
      }
    });
    const total = tokens;
    const cachedUpTo = lastBreakpoint >= 0 ? ends[lastBreakpoint]! : 0;
    const write = cachedUpTo >= ANTHROPIC_MIN_CACHED ? Math.max(0, cachedUpTo - read) : 0;
    cur.forEach((s, i) => {
      if (s.breakpoint && ends[i]! >= ANTHROPIC_MIN_CACHED) this.written.add(keys[i]!);
    });
    return { read, write, input: total - read - write };
  }
}

/** USD for a charge at per-million-token prices. */
export function cost(c: CacheCharge, p: ModelPrices): number {
  return (c.read * p.cachedRead + c.write * p.cacheWrite + c.input * p.input) / 1_000_000;
}
