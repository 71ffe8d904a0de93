/**
 * Where a region's system blocks sort in the prompt: by volatility rank,
 * then class, then region order, so the blocks that change least come first
 * and stay in the cacheable prefix (docs/reference/rendering.md#system-order).
 * It depends only on the region's definition, so `lev validate` can lint the
 * order the engine renders.
 */
import { type RegionDef, STAGE_INSTRUCTIONS } from '../shapes/frozen-blueprint.js';

const VOLATILITY_RANK = { stable: 0, grows: 1, rewritten: 2 } as const;

/** 0 pinned-like, 1 stage instructions, 2 working regions, 3 scratch. */
export type BlockClass = 0 | 1 | 2 | 3;

export function blockClass(def: RegionDef): BlockClass {
  if (def.name === STAGE_INSTRUCTIONS) return 1;
  switch (def.kind) {
    case 'pinned':
    case 'compact_history':
      return 0;
    case 'custom':
      return def.persistent ? 0 : 2;
    case 'temporary':
    case 'clearable':
      return def.volatility === 'rewritten' ? 3 : 2;
    case 'checklist':
    case 'hashmap':
    case 'compacting':
    case 'sliding_window':
      return 2;
    default: {
      const unknown: never = def.kind;
      throw new Error(`no block class for kind ${String(unknown)}`);
    }
  }
}

function volatilityRank(def: RegionDef): number {
  return def.name === STAGE_INSTRUCTIONS ? VOLATILITY_RANK.rewritten : VOLATILITY_RANK[def.volatility];
}

export function systemSortKey(def: RegionDef, order: number): [number, number, number] {
  return [volatilityRank(def), blockClass(def), order];
}
