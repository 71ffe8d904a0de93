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
  CONVERSATION,
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

/** A sliding window that drops its oldest turn on every write once full (`per_item`, not `reject`). */
export function dropsTurnPerWrite(def: Pick<RegionDef, 'kind' | 'admission' | 'strategy'>): boolean {
  return def.kind === 'sliding_window' && def.admission !== 'reject' && (def.strategy ?? 'per_item') === 'per_item';
}

/**
 * Whether a region's new entries render at the point of their write (docs/reference/rendering.md#writes-in-place):
 * regions of kinds that only append, except under `[context] placement = "system"` (the 0.1 layout)
 * and beside a conversation that drops a turn per write, whose head moves every turn: entries
 * written among its messages would be re-sent with them on every request, where a block in the
 * system section stays cached.
 */
export function writesInPlace(
  def: Pick<RegionDef, 'name' | 'kind'>,
  context: ContextPlacement,
  conversation: RegionDef | undefined,
): boolean {
  if (context !== 'auto' || (conversation !== undefined && dropsTurnPerWrite(conversation))) return false;
  return def.name !== STAGE_INSTRUCTIONS && kindFacts(def.kind).appends;
}

/**
 * Fills in the placement of every region that renders blocks and declared none, and marks writes
 * in place; `defs` start with the global layout, whose `conversation` decides the latter.
 */
export function assignPlacements(defs: readonly RegionDef[], context: ContextPlacement): void {
  const conversation = defs.find((d) => d.name === CONVERSATION);
  for (const def of defs) {
    if (writesInPlace(def, context, conversation)) def.writesInPlace = true;
    if (def.placement !== undefined) continue;
    const placement = defaultPlacement(def, context);
    if (placement !== undefined) def.placement = placement;
  }
}

/** Where a region's content lands in the prompt, as `lev validate` shows it. */
export function promptPlace(def: Pick<RegionDef, 'kind' | 'placement'>): Placement | 'messages' {
  return kindFacts(def.kind).renders === 'messages' ? 'messages' : (def.placement ?? 'system');
}
