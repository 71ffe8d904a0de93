/**
 * `sliding_window`: a message list bounded by tokens and by item count,
 * with the `per_item`, `bulk` and `compact` strategies (docs/reference/regions.md#sliding-window-strategies).
 */

import type { Entry } from '../../shapes/content.js';
import type { RegionDef } from '../../shapes/frozen-blueprint.js';
import { groupRanges } from '../groups.js';
import type { KindBehaviour } from './behaviour.js';

export const DEFAULT_MAX_ITEMS = 10;
export const DEFAULT_OVERFLOW = 10;
export const DEFAULT_COMPACT_COUNT = 10;

function compactStrategy(def: RegionDef): boolean {
  return def.strategy === 'compact';
}

export const slidingWindow: KindBehaviour = {
  kind: 'sliding_window',
  overflow: (def) => (compactStrategy(def) ? 'pending' : 'discard'),
  reduce: (def) => (compactStrategy(def) ? 'pending' : 'discard'),
  cascadePhases: () => [],
  entries: 'log',
  folds: (def) => (compactStrategy(def) ? 'pending' : 'marked'),
  holdsSummaries: false,
  bulkTransforms: true,
  windowed: true,
};

export function maxItems(def: RegionDef): number {
  return def.maxItems ?? DEFAULT_MAX_ITEMS;
}

/**
 * Applies the window's strategy after an insert under `evict`. `protectFrom`
 * is the start of the group just written to, which is never taken. Mutates
 * `entries`; returns what was discarded and what was sent to pending.
 */
export function applyStrategy(
  def: RegionDef,
  entries: Entry[],
  protectFrom: number,
): { removed: Entry[]; pending: Entry[] } {
  const n = maxItems(def);
  const removed: Entry[] = [];
  const pending: Entry[] = [];
  const strategy = def.strategy ?? 'per_item';
  const shiftUnprotected = (): boolean => {
    const first = groupRanges(entries)[0];
    if (!first || first[0] >= protectFrom) return false;
    removed.push(...entries.splice(0, first[1]));
    protectFrom -= first[1];
    return true;
  };
  if (strategy === 'per_item') {
    while (entries.length > n && shiftUnprotected());
  } else if (strategy === 'bulk') {
    if (entries.length > n + (def.overflow ?? DEFAULT_OVERFLOW)) {
      while (entries.length > n && shiftUnprotected());
    }
  } else if (entries.length > n) {
    const k = Math.max(def.compactCount ?? DEFAULT_COMPACT_COUNT, entries.length - n + 1);
    let boundary = 0;
    for (const [, end] of groupRanges(entries)) {
      if (end > protectFrom) break;
      boundary = end;
      if (end >= k) break;
    }
    pending.push(...entries.splice(0, boundary));
  }
  return { removed, pending };
}
