/**
 * How big an entry or region is and how its content reads in a line: the
 * measures the region kinds and the engine's operations share. Kept apart
 * from `state.ts` so that the kinds (`kinds/`) can use them without
 * importing the run state, which imports the kinds.
 */
import type { Content, Entry, RegionState } from '../shapes/content.js';
import { clipUnits } from '../truncate.js';

export function regionTokens(region: Pick<RegionState, 'entries'>): number {
  let sum = 0;
  for (const e of region.entries) sum += e.tokens;
  return sum;
}

export function entriesTokens(entries: readonly Entry[]): number {
  let sum = 0;
  for (const e of entries) sum += e.tokens;
  return sum;
}

/** Short text for messages and listings; blob contents show their preview. */
export function contentText(content: Content): string {
  return typeof content === 'string' ? content : content.preview;
}

export function preview(content: Content, chars: number): string {
  const flat = contentText(content).replace(/\r?\n/g, ' ');
  return clipUnits(flat, chars);
}
