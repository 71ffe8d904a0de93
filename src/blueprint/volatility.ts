/**
 * The volatility a region gets when its blueprint sets none: how often its
 * rendered block changes, which orders the system section (stable first,
 * then growing, then rewritten) so that what changes least stays in the
 * prompt's cacheable prefix, and how far a region under token pressure
 * sheds. See docs/reference/regions.md#default-volatility.
 */
import type { RegionDef, RegionKind, Volatility } from '../shapes/frozen-blueprint.js';
import { REGION_KIND_FACTS } from '../shapes/region-kinds.js';

export function defaultVolatility(kind: RegionKind): Volatility {
  return REGION_KIND_FACTS[kind].volatility;
}

/**
 * Token pressure on a bulk sliding window sheds its oldest turns down to this
 * fraction of the budget, so the head of the messages (and every prompt
 * block after it) changes once per chunk instead of on every write.
 */
export const LOW_WATER = 0.75;

/**
 * The low-water mark a region of this kind and strategy evicts down to, if
 * any (docs/reference/regions.md#chunked-eviction). Only a bulk sliding
 * window sheds in chunks: it renders as the messages, the prompt's cached
 * prefix. A temporary region is rewritten and renders in the tail, where a
 * chunk buys no cache, so it frees only what a write needs. Runs whose
 * blueprint was frozen with a mark on a temporary region keep it: the mark is
 * data of the blueprint they carry, so their histories replay unchanged.
 */
export function lowWaterFor(def: Pick<RegionDef, 'kind' | 'strategy' | 'admission'>): number | undefined {
  if (def.admission === 'reject') return undefined;
  if (def.kind === 'sliding_window' && def.strategy === 'bulk') return LOW_WATER;
  return undefined;
}
