/**
 * The volatility a region gets when its blueprint sets none: how often its
 * rendered block changes, which orders the system section (stable first,
 * then growing, then rewritten) so that what changes least stays in the
 * prompt's cacheable prefix. See README, "Prompt caching".
 */
import type { RegionKind, Volatility } from './types.js';

const BY_KIND: Readonly<Record<RegionKind, Volatility>> = {
  // Written once (the task, a stage prompt) and then left alone.
  pinned: 'stable',
  // Appended to; a fold or an eviction takes entries from the front only now and then.
  compact_history: 'grows',
  compacting: 'grows',
  hashmap: 'grows',
  // Re-rendered on every change: a checklist's counts line heads its block; scratch space turns over.
  checklist: 'rewritten',
  temporary: 'rewritten',
  clearable: 'rewritten',
  // A script renders whatever it likes; sliding windows render as messages, not system blocks.
  custom: 'rewritten',
  sliding_window: 'rewritten',
};

export function defaultVolatility(kind: RegionKind): Volatility {
  return BY_KIND[kind];
}
