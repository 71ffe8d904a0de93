/**
 * `custom`: a region whose write, overflow and render behaviour comes from a
 * Rhai script (docs/reference/regions.md#custom-region-hooks). The engine calls the script through these hooks,
 * synchronously; the adapter that builds them from a script lives elsewhere.
 */

import type { Entry, RegionState } from '../../shapes/content.js';
import type { RegionDef } from '../../shapes/frozen-blueprint.js';
import { contentText, regionTokens } from '../measure.js';
import type { KindBehaviour } from './behaviour.js';

export type HookResult = { ok: true; value: unknown } | { ok: false; error: string };

export interface CustomRegionHooks {
  render(ctx: unknown): HookResult;
  onWrite?(ctx: unknown): HookResult;
  onOverflow?(ctx: unknown): HookResult;
}

export interface EngineEnv {
  /** Workflow time in seconds. */
  now: number;
  hooks?: (region: string) => CustomRegionHooks | undefined;
  /** Overrides the blueprint's `[compaction] max_summary_tokens`. */
  maxSummaryTokens?: number;
  /**
   * Told of the entries a committed write evicted to make room, so the workflow can count them
   * (docs/reference/operating.md#leviaths-metrics). Nothing the engine answers or stores depends
   * on it, and the activities' replay of the operations leaves it unset.
   */
  onEvict?: (region: RegionState, entries: readonly Entry[]) => void;
}

function persistent(def: RegionDef): boolean {
  return def.persistent === true;
}

export const custom: KindBehaviour = {
  kind: 'custom',
  overflow: (_def, hasOverflowHook) => (hasOverflowHook ? 'hook' : 'refuse'),
  reduce: () => 'keep',
  cascadePhases: (def) => (persistent(def) ? [] : [2, 3]),
  entries: 'log',
  folds: () => 'marked',
  holdsSummaries: false,
  bulkTransforms: true,
  windowed: false,
};

export function hooksFor(env: EngineEnv, region: RegionState): CustomRegionHooks | undefined {
  return region.kind === 'custom' ? env.hooks?.(region.name) : undefined;
}

export function regionCtx(region: RegionState): { name: string; budget: number; tokens: number; entry_count: number } {
  return { name: region.name, budget: region.budget, tokens: regionTokens(region), entry_count: region.entries.length };
}

export type OnWriteVerdict =
  | { action: 'accept' }
  | { action: 'replace'; content: string }
  | { action: 'decline' }
  | { action: 'failed'; error: string };

/** Interprets `on_write`'s return value (docs/reference/regions.md#custom-region-hooks). */
export function callOnWrite(
  hooks: CustomRegionHooks,
  region: RegionState,
  entry: Pick<Entry, 'content' | 'kind' | 'key' | 'tokens'>,
): OnWriteVerdict {
  if (!hooks.onWrite) return { action: 'accept' };
  const result = hooks.onWrite({
    region: regionCtx(region),
    entry: { content: contentText(entry.content), kind: entry.kind, key: entry.key ?? null, tokens: entry.tokens },
  });
  if (!result.ok) return { action: 'failed', error: result.error };
  const v = result.value;
  if (typeof v === 'string') return { action: 'replace', content: v };
  if (v === true || v === undefined || v === null) return { action: 'accept' };
  if (v === false) return { action: 'decline' };
  return { action: 'failed', error: `on_write returned ${JSON.stringify(v)}, expected a string or a boolean` };
}

/**
 * Asks `on_overflow` which entries to drop. Returns the deduplicated indices,
 * or an error when the answer is unusable (which frees nothing).
 */
export function callOnOverflow(
  hooks: CustomRegionHooks,
  region: RegionState,
  needed: number,
): { ok: true; indices: number[] } | { ok: false; error: string } {
  if (!hooks.onOverflow) return { ok: true, indices: [] };
  const result = hooks.onOverflow({
    region: regionCtx(region),
    entries: region.entries.map((e, index) => ({
      index,
      content: contentText(e.content),
      key: e.key ?? null,
      tokens: e.tokens,
    })),
    needed_tokens: needed,
  });
  if (!result.ok) return result;
  const v = result.value;
  if (!Array.isArray(v))
    return { ok: false, error: `on_overflow returned ${JSON.stringify(v)}, expected an array of entry indices` };
  const indices: number[] = [];
  for (const i of v) {
    if (typeof i !== 'number' || !Number.isInteger(i))
      return { ok: false, error: `on_overflow returned a non-integer index ${JSON.stringify(i)}` };
    if (i < 0 || i >= region.entries.length)
      return {
        ok: false,
        error: `on_overflow returned index ${i}, but the region has ${region.entries.length} entries`,
      };
    if (!indices.includes(i)) indices.push(i);
  }
  return { ok: true, indices };
}
