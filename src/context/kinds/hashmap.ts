/** `hashmap`: keyed entries; upsert by key, LRU eviction (docs/reference/regions.md#hashmap-upserts). */

import type { Entry, RegionState } from '../../shapes/content.js';
import { regionTokens } from '../measure.js';
import { type Failure, regionFull, tooLarge } from '../write-failures.js';
import type { KindBehaviour } from './behaviour.js';

export const hashmap: KindBehaviour = {
  kind: 'hashmap',
  overflow: () => 'lru',
  reduce: () => 'keep',
  cascadePhases: () => [],
  // Hashmaps are only touched by transforms that name them in a `custom` list.
  entries: 'keyed',
  folds: () => 'marked',
  holdsSummaries: false,
  bulkTransforms: false,
  windowed: false,
};

export type UpsertOutcome = { ok: true; entries: Entry[]; removed: Entry[]; created: boolean; entry: Entry } | Failure;

/** Index of the least recently touched entry, skipping `keep`. */
function lruIndex(entries: readonly Entry[], keep: string | undefined): number {
  let best = -1;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    if (keep !== undefined && e.key === keep) continue;
    if (best < 0 || e.touched < entries[best]!.touched) best = i;
  }
  return best;
}

/**
 * Upserts `next` (already charged its final tokens) under its key. Works on
 * a copy: `region` is untouched; the caller commits the returned entries.
 * `make` builds the stored entry, given the entry it replaces if any.
 */
export function upsert(
  region: RegionState,
  key: string,
  tokens: number,
  make: (old: Entry | undefined) => Entry,
): UpsertOutcome {
  const max = region.budget;
  if (tokens > max) return tooLarge(region, tokens);
  const reject = region.def.admission === 'reject';
  const entries = [...region.entries];
  const removed: Entry[] = [];
  const evictUntil = (done: () => boolean): boolean => {
    while (!done()) {
      const i = lruIndex(entries, key);
      if (i < 0) return false;
      removed.push(...entries.splice(i, 1));
    }
    return true;
  };
  const existing = entries.findIndex((e) => e.key === key);
  if (existing >= 0) {
    const old = entries[existing]!;
    const fits = () => regionTokens({ entries }) - old.tokens + tokens <= max;
    if (!fits()) {
      if (reject) return regionFull(region, regionTokens(region), max);
      if (!evictUntil(fits)) return regionFull(region, regionTokens(region), max);
    }
    const entry = make(old);
    entries[entries.indexOf(old)] = entry;
    return { ok: true, entries, removed, created: false, entry };
  }
  const maxEntries = region.def.maxEntries;
  if (maxEntries !== undefined && entries.length >= maxEntries) {
    if (reject) return regionFull(region, entries.length, maxEntries, 'entries', 'max_entries');
    evictUntil(() => entries.length < maxEntries);
  }
  const fits = () => regionTokens({ entries }) + tokens <= max;
  if (!fits()) {
    if (reject) return regionFull(region, regionTokens(region), max);
    if (!evictUntil(fits)) return regionFull(region, regionTokens(region), max);
  }
  const entry = make(undefined);
  entries.push(entry);
  return { ok: true, entries, removed, created: true, entry };
}
