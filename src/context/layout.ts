/**
 * Writes in place (docs/reference/rendering.md#writes-in-place): a region of a kind that only
 * appends shows the entries it held when it was last laid out in its block, and each later entry
 * as a message at the point of its write, so a write adds to the end of the prompt instead of
 * changing a block in front of the conversation. The block is laid out again, with every entry
 * the region holds, only after entries left the region (an eviction, a fold, a deletion, a clear):
 * at most once per eviction, not once per write. What the region holds, its budget and its
 * eviction are the engine's as before; only where each entry is shown changes.
 */
import type { Entry, RegionState } from '../shapes/content.js';
import type { RunState } from './state.js';

/**
 * At a maintenance point: lays out again every `writesInPlace` region that lost entries since the
 * previous one, and a region laid out for the first time. Cheap: one pass over each such region.
 */
export function settleLayouts(state: RunState): void {
  const last = state.nextEntryId - 1;
  for (const region of state.regions) {
    if (!region.def.writesInPlace) continue;
    const layout = region.layout;
    // Entries only arrive with ids above `seen`: fewer at or below it means some left.
    const lost = layout === undefined || region.entries.filter((e) => e.id <= layout.seen).length < layout.count;
    region.layout = { through: lost ? last : (layout?.through ?? last), seen: last, count: region.entries.length };
  }
}

export interface LaidOut {
  /** Entries shown in the region's block. */
  block: Entry[];
  /** Entries shown as messages at the point of their write. */
  inPlace: Entry[];
}

/** Which of a region's entries its block shows and which render where they were written. */
export function laidOut(region: RegionState): LaidOut {
  const layout = region.layout;
  if (!region.def.writesInPlace || layout === undefined) return { block: region.entries, inPlace: [] };
  return {
    block: region.entries.filter((e) => e.id <= layout.through),
    inPlace: region.entries.filter((e) => e.id > layout.through),
  };
}
