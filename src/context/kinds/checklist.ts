/**
 * `checklist`: items with run-unique ids that are never reused, open or
 * done, each with an optional note (docs/reference/regions.md#checklists). A checklist never evicts.
 */

import type { Entry, RegionState } from '../../shapes/content.js';
import { contentText, regionTokens } from '../measure.js';
import { type Failure, failure, regionFull, tooLarge } from '../write-failures.js';
import type { KindBehaviour } from './behaviour.js';

export const checklist: KindBehaviour = {
  kind: 'checklist',
  overflow: () => 'refuse',
  reduce: () => 'keep',
  cascadePhases: () => [],
  entries: 'items',
  folds: () => 'marked',
  holdsSummaries: false,
  bulkTransforms: true,
  windowed: false,
};

export function items(region: RegionState): Entry[] {
  return region.entries.filter((e) => e.checklist !== undefined).sort((a, b) => a.checklist!.id - b.checklist!.id);
}

/** Checks that an item of `tokens` fits; the caller then stores it with id `nextItemId`. */
export function checkItemFits(region: RegionState, tokens: number): Failure | null {
  if (tokens > region.budget) return tooLarge(region, tokens);
  const used = regionTokens(region);
  if (used + tokens > region.budget) return regionFull(region, used, region.budget);
  return null;
}

export function findItem(region: RegionState, id: number): Entry | undefined {
  return region.entries.find((e) => e.checklist?.id === id);
}

export function notFoundItem(region: RegionState, id: number): Failure {
  const open = items(region)
    .filter((e) => !e.checklist!.done)
    .map((e) => `#${e.checklist!.id}`);
  const list = open.length > 0 ? `open items are ${open.join(', ')}` : 'there are no open items';
  return failure('not-found', `region "${region.name}" has no item #${id}; ${list}.`);
}

/** The note replaced on `item`, or a failure when the new note would overflow the region. */
export function withNote(region: RegionState, item: Entry, note: string, noteTokens: number): Entry | Failure {
  const meta = item.checklist!;
  const tokens = item.tokens - meta.noteTokens + noteTokens;
  const used = regionTokens(region);
  if (used - item.tokens + tokens > region.budget) return regionFull(region, used, region.budget);
  return { ...item, tokens, checklist: { ...meta, note, noteTokens } };
}

/** The checklist body of docs/reference/rendering.md#checklist-blocks; empty when there are no items. */
export function checklistBody(region: RegionState): string {
  const all = items(region);
  if (all.length === 0) return '';
  const open = all.filter((e) => !e.checklist!.done);
  const done = all.filter((e) => e.checklist!.done);
  const lines = [`${open.length} open, ${done.length} done`];
  for (const e of [...open, ...done]) {
    const meta = e.checklist!;
    lines.push(`- [${meta.done ? 'x' : ' '}] #${meta.id} ${contentText(e.content)}`);
    if (meta.note !== undefined) lines.push(`  note: ${meta.note}`);
  }
  return lines.join('\n');
}
