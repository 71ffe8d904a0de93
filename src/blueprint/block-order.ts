/**
 * Where a region's system blocks sort in the prompt: by volatility rank,
 * then class, then region order, so the blocks that change least come first
 * and stay in the cacheable prefix (docs/reference/rendering.md#system-order).
 * It depends only on the region's definition, so `lev validate` can lint the
 * order the engine renders.
 */
import { type RegionDef, STAGE_INSTRUCTIONS } from '../shapes/frozen-blueprint.js';
import { type BlockClass, kindBlockClass } from '../shapes/region-kinds.js';

const VOLATILITY_RANK = { stable: 0, grows: 1, rewritten: 2 } as const;

/** The class of the region's system blocks: the stage instructions' by name, every other by its kind. */
export function blockClass(def: RegionDef): BlockClass {
  return def.name === STAGE_INSTRUCTIONS ? 1 : kindBlockClass(def);
}

function volatilityRank(def: RegionDef): number {
  return def.name === STAGE_INSTRUCTIONS ? VOLATILITY_RANK.rewritten : VOLATILITY_RANK[def.volatility];
}

export function systemSortKey(def: RegionDef, order: number): [number, number, number] {
  return [volatilityRank(def), blockClass(def), order];
}

/**
 * Where the stage's grants sort (docs/reference/rendering.md#the-tool-list): as the stage
 * instructions do, right after the region at `order`.
 */
export function grantsSortKey(order: number): [number, number, number] {
  return [VOLATILITY_RANK.rewritten, 1, order + 0.5];
}
