/**
 * Where a region's blocks go in the prompt when its blueprint does not say
 * (docs/reference/rendering.md#placement): a block the engine re-renders on
 * every change goes to the tail, the user message rebuilt after the
 * conversation, so the system section and the conversation before it stay
 * a prefix the provider's cache can reuse; everything else stays in the
 * system section. Depends only on the definition, so `lev validate` shows
 * the placement the renderer uses.
 */

import {
  type ContextPlacement,
  type Placement,
  type RegionDef,
  STAGE_INSTRUCTIONS,
} from '../shapes/frozen-blueprint.js';
import { kindFacts } from '../shapes/region-kinds.js';

/** The placement a region gets when it declares none; sliding windows render as messages and get none. */
export function defaultPlacement(
  def: Pick<RegionDef, 'name' | 'kind' | 'volatility'>,
  context: ContextPlacement,
): Placement | undefined {
  const { renders } = kindFacts(def.kind);
  if (renders === 'messages') return undefined;
  // The stage's prompt is instruction, kept after the pinned blocks (docs/reference/rendering.md#system-order);
  // a custom region's script, not its kind, decides how often its text changes.
  if (context === 'system' || def.name === STAGE_INSTRUCTIONS || renders === 'script') return 'system';
  return def.volatility === 'rewritten' ? 'tail' : 'system';
}

/**
 * Whether a region's new entries render at the point of their write (docs/reference/rendering.md#writes-in-place):
 * regions of kinds that only append, except under `[context] placement = "system"` (the 0.1 layout).
 */
export function writesInPlace(def: Pick<RegionDef, 'name' | 'kind'>, context: ContextPlacement): boolean {
  return context === 'auto' && def.name !== STAGE_INSTRUCTIONS && kindFacts(def.kind).appends;
}

/** Fills in the placement of every region that renders blocks and declared none, and marks writes in place. */
export function assignPlacements(defs: Iterable<RegionDef>, context: ContextPlacement): void {
  for (const def of defs) {
    if (writesInPlace(def, context)) def.writesInPlace = true;
    if (def.placement !== undefined) continue;
    const placement = defaultPlacement(def, context);
    if (placement !== undefined) def.placement = placement;
  }
}

/** Where a region's content lands in the prompt, as `lev validate` shows it. */
export function promptPlace(def: Pick<RegionDef, 'kind' | 'placement'>): Placement | 'messages' {
  return kindFacts(def.kind).renders === 'messages' ? 'messages' : (def.placement ?? 'system');
}
