/**
 * Edge transforms (docs/reference/stages.md#transforms), applied after the checks and before the next
 * stage's layout. `clear` empties regions now; `compact` marks them for
 * `fold_all` at the next maintenance point. Protected regions are never
 * touched, and hashmaps only when a `custom` list names them.
 */

import type { RegionState } from '../shapes/content.js';
import type { Blueprint, EdgeDef } from '../shapes/frozen-blueprint.js';
import { isProtected } from '../shapes/region-kinds.js';
import { behaviourOf } from './kinds/index.js';
import type { RunState } from './state.js';

export interface TransformReport {
  transform: EdgeDef['transform'];
  cleared: string[];
  marked: string[];
}

function clear(state: RunState, region: RegionState, report: TransformReport): void {
  region.entries = [];
  region.pending = [];
  delete region.markedForFold;
  delete region.markedCompactPrompt;
  state.clock += 1;
  report.cleared.push(region.name);
}

function mark(region: RegionState, prompt: string | undefined, report?: TransformReport): void {
  if (region.entries.length === 0 && region.pending.length === 0) return;
  region.markedForFold = true;
  if (prompt !== undefined) region.markedCompactPrompt = prompt;
  else delete region.markedCompactPrompt;
  report?.marked.push(region.name);
}

/**
 * Marks one region for `fold_all` with the built-in summariser prompt at the
 * next maintenance point: a `summarize` context transform
 * (docs/reference/sub-agents.md#context-transforms), which, unlike an edge,
 * folds the region it names whatever its kind.
 */
export function markForFold(state: RunState, name: string): void {
  const region = state.regions.find((r) => r.name === name);
  if (region) mark(region, undefined);
}

export function applyTransform(state: RunState, _bp: Blueprint, edge: EdgeDef): TransformReport {
  const report: TransformReport = { transform: edge.transform, cleared: [], marked: [] };
  const config = edge.transformConfig ?? {};
  const open = (r: RegionState) => !isProtected(r.def) && behaviourOf(r).bulkTransforms;
  switch (edge.transform) {
    case 'direct':
      break;
    case 'clear':
      for (const r of state.regions) if (open(r)) clear(state, r, report);
      break;
    case 'compact':
      for (const r of state.regions) if (open(r) && r.def.summarizable) mark(r, config.compactPrompt, report);
      break;
    case 'custom':
      for (const r of state.regions) {
        if (isProtected(r.def)) continue;
        if (config.clear?.includes(r.name)) clear(state, r, report);
        else if (config.compact?.includes(r.name) && r.def.summarizable) mark(r, config.compactPrompt, report);
      }
      break;
  }
  return report;
}
