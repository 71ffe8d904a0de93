/**
 * Budget strings and their resolution against a model window (docs/reference/regions.md#resolving-budgets). It
 * lives with the blueprint because `lev validate` resolves budgets too; the
 * engine imports it from here, so the blueprint never imports the engine.
 * Pure: used by the engine at every stage entry and by `lev validate`.
 */
import type { RegionDef } from '../shapes/frozen-blueprint.js';

/** Budget assumed when a region sets neither `budget` nor `max_tokens`. */
export const DEFAULT_MAX_TOKENS = 5000;

export type PercentParse =
  | { ok: true; percent: number }
  | { ok: false; reason: 'no-percent' | 'not-a-number' | 'out-of-range' };

/** `" 35 % "` -> 35. Each failure names the rule it broke. */
export function parsePercent(text: string): PercentParse {
  const trimmed = text.trim();
  if (!trimmed.endsWith('%')) return { ok: false, reason: 'no-percent' };
  const number = trimmed.slice(0, -1).trim();
  if (!/^\d+(\.\d+)?$/.test(number)) return { ok: false, reason: 'not-a-number' };
  const percent = Number(number);
  if (!(percent > 0 && percent <= 100)) return { ok: false, reason: 'out-of-range' };
  return { ok: true, percent };
}

/** Resolved budget M of a region at window W. */
export function resolveBudget(
  def: Pick<RegionDef, 'budgetPercent' | 'maxTokens' | 'minTokens'>,
  window: number,
): number {
  if (def.budgetPercent === undefined) return def.maxTokens ?? DEFAULT_MAX_TOKENS;
  // Math.round rounds halves up for the non-negative values we have here.
  let v = Math.round((window * def.budgetPercent) / 100);
  if (def.maxTokens !== undefined) v = Math.min(v, def.maxTokens);
  if (def.minTokens !== undefined) v = Math.max(v, def.minTokens);
  return v;
}

/** Compacting threshold θ for a resolved budget (docs/reference/regions.md#compacting-threshold). */
export function resolveThreshold(def: Pick<RegionDef, 'compactAt' | 'thresholdTokens'>, budget: number): number {
  const fromFraction = def.compactAt === undefined ? undefined : Math.floor(budget * def.compactAt);
  if (fromFraction !== undefined && def.thresholdTokens !== undefined)
    return Math.min(fromFraction, def.thresholdTokens);
  if (fromFraction !== undefined) return fromFraction;
  if (def.thresholdTokens !== undefined) return def.thresholdTokens;
  return Math.floor(budget * 0.8);
}

/** Minimum free space a layout must leave on windows of at least 20k tokens. */
export const WORKING_SPACE_MIN = 8000;
export const WORKING_SPACE_FROM_WINDOW = 20000;

/** Null when the layout leaves enough working space, else the shortfall facts. */
export function workingSpaceShortfall(fixedBudgets: number[], window: number): { fixed: number; free: number } | null {
  if (window < WORKING_SPACE_FROM_WINDOW) return null;
  const fixed = fixedBudgets.reduce((a, b) => a + b, 0);
  const free = window - fixed;
  return free < WORKING_SPACE_MIN ? { fixed, free } : null;
}
