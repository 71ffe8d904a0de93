/**
 * What distinguishes one region kind from another (docs/reference/regions.md#kinds), behind one
 * interface. Each kind has its own module; `index.ts` maps kind names to them.
 */
import type { RegionDef, RegionKind } from '../../shapes/frozen-blueprint.js';

/**
 * How a write that overflows under `evict` makes room (docs/reference/regions.md#generic-write step 5):
 * discard oldest groups, move them to pending for a fold, ask the custom
 * script, or refuse. Hashmaps evict by LRU in their own upsert.
 */
export type OverflowRule = 'discard' | 'pending' | 'hook' | 'refuse' | 'lru';

/** What re-resolution does to a region left over its new budget (docs/reference/regions.md#resolving-budgets). */
export type ReduceRule = 'discard' | 'pending' | 'keep';

/** Phases of the window cascade a region takes part in (docs/reference/regions.md#window-cascade). */
export type CascadePhase = 1 | 2 | 3 | 4;

/**
 * How entries are addressed: a log of entries in order, entries upserted by
 * key (`context_append` with a key extends one), or checklist items with ids
 * the `todo_*` tools work on.
 */
export type EntryModel = 'log' | 'keyed' | 'items';

/**
 * When the maintenance pass folds the region: above its compaction
 * threshold (`compact_at`), whenever it has entries pending a summary, or
 * only when a transform marks it.
 */
export type FoldTrigger = 'threshold' | 'pending' | 'marked';

export interface KindBehaviour {
  kind: RegionKind;
  overflow(def: RegionDef, hasOverflowHook: boolean): OverflowRule;
  reduce(def: RegionDef): ReduceRule;
  cascadePhases(def: RegionDef): CascadePhase[];
  entries: EntryModel;
  folds(def: RegionDef): FoldTrigger;
  /** Receives the summaries folded out of its `source_region`; the model reads it but never writes it. */
  holdsSummaries: boolean;
  /** Whether `clear` and `compact` transforms, which touch every unprotected region, touch this one. */
  bulkTransforms: boolean;
  /**
   * Counts entries against `max_items` and applies its `strategy` after each write
   * (docs/reference/regions.md#sliding-window-strategies).
   */
  windowed: boolean;
}
