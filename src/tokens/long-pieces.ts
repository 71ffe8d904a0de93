/**
 * Byte-pair encoding for the pieces the BPE encoders are slow on. Their merge
 * loops rescan every pair after each merge, which is quadratic in the piece
 * length: a run of one letter is one piece, and 16 KB of it took seconds. The
 * rank tables come from js-tiktoken's rank files, loaded only for long pieces
 * and for the encoding's splitting pattern. This module produces the same tokens (lowest rank first, leftmost
 * on ties) with a heap of candidate pairs, so a piece costs O(n log n).
 */
import { createRequire } from 'node:module';
import type { TiktokenBPE } from 'js-tiktoken/lite';
import type { Encoding } from '../shapes/model-info.js';

const require = createRequire(import.meta.url);

/** Pieces at most this long (in UTF-16 units) go to js-tiktoken unchanged; its cost there is negligible. */
export const LONG_PIECE = 128;

interface Ranks {
  /** Token bytes, one char per byte (latin1), to rank. */
  byBytes: Map<string, number>;
  /** Length in bytes of the longest token: longer spans are never looked up. */
  longest: number;
  /** The encoding's pre-tokenising pattern (the rank file's `pat_str`). */
  pattern: string;
}

const tables = new Map<Encoding, Ranks>();

function rankFile(encoding: Encoding): TiktokenBPE {
  return require(`js-tiktoken/ranks/${encoding}`) as TiktokenBPE;
}

/** The pre-tokenising pattern of an encoding, to split text into pieces as js-tiktoken does. */
export function piecePattern(encoding: Encoding): RegExp {
  return new RegExp(rankFile(encoding).pat_str, 'gu');
}

/** Built on the first long piece only, so ordinary text never pays for a second rank table. */
function ranksFor(encoding: Encoding): Ranks {
  let ranks = tables.get(encoding);
  if (ranks) return ranks;
  const file = rankFile(encoding);
  const byBytes = new Map<string, number>();
  let longest = 0;
  for (const line of file.bpe_ranks.split('\n')) {
    if (!line) continue;
    const [, offsetText, ...tokens] = line.split(' ');
    const offset = Number.parseInt(offsetText ?? '0', 10);
    tokens.forEach((token, i) => {
      const bytes = Buffer.from(token, 'base64').toString('latin1');
      byBytes.set(bytes, offset + i);
      longest = Math.max(longest, bytes.length);
    });
  }
  ranks = { byBytes, longest, pattern: file.pat_str };
  tables.set(encoding, ranks);
  return ranks;
}

/** Starts are Int32 offsets and ranks stay below 2^21 (o200k has 200k tokens), so a key is exact in a double. */
const START_SPAN = 2 ** 31;

/**
 * A binary min-heap of candidate merges keyed by rank, then start (one
 * number: rank * 2^31 + start); `end` says which span the key was made for.
 * Typed arrays sized once: a piece of n bytes offers at most 3n merges.
 */
class MergeHeap {
  private readonly keys: Float64Array;
  private readonly ends: Int32Array;
  size = 0;

  constructor(capacity: number) {
    this.keys = new Float64Array(capacity);
    this.ends = new Int32Array(capacity);
  }

  push(rank: number, start: number, end: number): void {
    const key = rank * START_SPAN + start;
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const above = this.keys[parent] ?? 0;
      if (above <= key) break;
      this.keys[i] = above;
      this.ends[i] = this.ends[parent] ?? 0;
      i = parent;
    }
    this.keys[i] = key;
    this.ends[i] = end;
  }

  /** The end and rank of the entry `pop` last removed. */
  poppedEnd = 0;
  poppedRank = 0;

  /** Removes the smallest entry and returns its start. */
  pop(): number {
    const top = this.keys[0] ?? 0;
    this.poppedEnd = this.ends[0] ?? 0;
    this.poppedRank = Math.floor(top / START_SPAN);
    const size = --this.size;
    const key = this.keys[size] ?? 0;
    const end = this.ends[size] ?? 0;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= size) break;
      if (child + 1 < size && (this.keys[child + 1] ?? 0) < (this.keys[child] ?? 0)) child += 1;
      if ((this.keys[child] ?? 0) >= key) break;
      this.keys[i] = this.keys[child] ?? 0;
      this.ends[i] = this.ends[child] ?? 0;
      i = child;
    }
    this.keys[i] = key;
    this.ends[i] = end;
    return top % START_SPAN;
  }
}

/** The tokens of one piece, exactly as tiktoken's byte-pair merge gives them. */
export function encodeLongPiece(piece: string, encoding: Encoding): number[] {
  const { byBytes, longest } = ranksFor(encoding);
  const bytes = Buffer.from(piece, 'utf8').toString('latin1');
  const n = bytes.length;
  // Parts form a linked list by start offset; a part ends where the next one
  // starts, and every part is a token whose rank is kept in `rankOf`.
  const next = new Int32Array(n);
  const prev = new Int32Array(n);
  const rankOf = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    next[i] = i + 1;
    prev[i] = i - 1;
    rankOf[i] = byBytes.get(bytes[i] ?? '') ?? -1;
  }
  const endOf = (start: number) => (start < 0 || start >= n ? n : (next[start] ?? n));
  // What two adjacent tokens merge into (-1: nothing), by their ranks: long
  // runs repeat the same few pairs, so most lookups skip slicing the text.
  const merged = new Map<number, number>();
  const heap = new MergeHeap(3 * n + 1);
  const offer = (start: number) => {
    if (start < 0 || start >= n) return;
    const middle = endOf(start);
    if (middle >= n) return;
    const end = endOf(middle);
    if (end - start > longest) return;
    const pair = (rankOf[start] ?? 0) * START_SPAN + (rankOf[middle] ?? 0);
    let rank = merged.get(pair);
    if (rank === undefined) {
      rank = byBytes.get(bytes.slice(start, end)) ?? -1;
      merged.set(pair, rank);
    }
    if (rank >= 0) heap.push(rank, start, end);
  };
  for (let i = 0; i < n - 1; i++) offer(i);
  const alive = new Uint8Array(n).fill(1);
  while (heap.size > 0) {
    const start = heap.pop();
    const end = heap.poppedEnd;
    // Stale entries name a span that has since grown or been absorbed.
    if (!alive[start]) continue;
    const middle = endOf(start);
    if (middle >= n || endOf(middle) !== end) continue;
    alive[middle] = 0;
    next[start] = end;
    rankOf[start] = heap.poppedRank;
    if (end < n) prev[end] = start;
    offer(start);
    offer(prev[start] ?? -1);
  }
  const tokens: number[] = [];
  for (let start = 0; start < n; start = endOf(start)) tokens.push(rankOf[start] ?? -1);
  return tokens;
}
