/**
 * The run state (docs/reference/regions.md#run-state): plain JSON data a workflow holds and
 * continue-as-new carries. Helpers here read it; the operations that change
 * it live in their own modules and mutate it only when they succeed.
 */

import { resolveBudget, resolveThreshold } from '../blueprint/budget.js';
import type { Severity } from '../errors.js';
import type { Entry, RegionState } from '../shapes/content.js';
import type { Blueprint, RegionDef } from '../shapes/frozen-blueprint.js';
import { behaviourOf } from './kinds/index.js';
import { regionTokens } from './measure.js';

export interface RunDiagnostic {
  code: string;
  severity: Severity;
  detail: string;
}

export interface GateForced {
  stage: string;
  /** Target stage, or `null` when the run was ending. */
  target: string | null;
  check: string;
  detail: string;
}

/** One row per maintenance point (the inference that follows it). */
export interface LedgerRow {
  stage: string;
  turn: number;
  tokens: Record<string, number>;
  used: number;
  gap: number;
  reportedPromptTokens?: number;
}

export interface RunState {
  /** Visible regions in the current stage's effective order, then hidden ones. */
  regions: RegionState[];
  window: { max: number; gap: number };
  /** Simulator `--window`: overrides every stage's model window. */
  windowOverride?: number;
  /** Current stage; empty before the first stage is entered. */
  stage: string;
  visits: Record<string, number>;
  /** Completion attempts in this visit (docs/reference/stages.md#gates). */
  attempts: number;
  /** Maintenance points (inferences) in this visit. */
  turn: number;
  gatesForced: GateForced[];
  requiredRegionsAbandoned: string[];
  /** Logical clock, bumped by every mutation. */
  clock: number;
  nextEntryId: number;
  diagnostics: RunDiagnostic[];
  ledger: LedgerRow[];
  /** `updates` counters at stage entry, for `require_region_updated`. */
  updatesSnapshot: Record<string, number>;
  /** Window `used` at the latest maintenance point; the gap is measured against it. */
  usedAtLastMaintenance: number | null;
}

export { CONVERSATION, FINAL_OUTPUT, STAGE_INSTRUCTIONS } from '../shapes/frozen-blueprint.js';

export function newRegionState(def: RegionDef, window: number): RegionState {
  const region: RegionState = {
    name: def.name,
    kind: def.kind,
    def,
    budget: resolveBudget(def, window),
    entries: [],
    pending: [],
    nextItemId: 1,
    updates: 0,
    foldFailures: 0,
  };
  if (behaviourOf(def).folds(def) === 'threshold') region.threshold = resolveThreshold(def, region.budget);
  return region;
}

/**
 * A run before its first stage: the global layout, every region hidden until
 * `enterStage` builds the effective layout and resolves budgets.
 */
export function createRunState(bp: Blueprint, opts: { window?: number } = {}): RunState {
  const window = opts.window ?? 0;
  const state: RunState = {
    regions: bp.regions.map((def) => ({ ...newRegionState(def, window), hidden: true })),
    window: { max: window, gap: 0 },
    stage: '',
    visits: {},
    attempts: 0,
    turn: 0,
    gatesForced: [],
    requiredRegionsAbandoned: [],
    clock: 0,
    nextEntryId: 1,
    diagnostics: [],
    ledger: [],
    updatesSnapshot: {},
    usedAtLastMaintenance: null,
  };
  if (opts.window !== undefined) state.windowOverride = opts.window;
  return state;
}

export function findRegion(state: RunState, name: string): RegionState | undefined {
  return state.regions.find((r) => r.name === name);
}

export function visibleRegions(state: RunState): RegionState[] {
  return state.regions.filter((r) => !r.hidden);
}

/** Σ tokens over visible regions (docs/reference/regions.md#calibration-gap). */
export function windowUsed(state: RunState): number {
  let used = 0;
  for (const r of state.regions) if (!r.hidden) used += regionTokens(r);
  return used;
}

export function openItems(region: RegionState): Entry[] {
  return region.entries
    .filter((e) => e.checklist !== undefined && !e.checklist.done)
    .sort((a, b) => a.checklist!.id - b.checklist!.id);
}

/**
 * Diagnostics kept in the state. A long run under window pressure records
 * one per inference; the cap keeps the state that continue-as-new carries
 * small, and keeps the newest, which are the ones an operator acts on.
 */
export const DIAGNOSTICS_KEPT = 500;

export function addDiagnostic(state: RunState, code: string, severity: Severity, detail: string): void {
  state.diagnostics.push({ code, severity, detail });
  if (state.diagnostics.length > DIAGNOSTICS_KEPT)
    state.diagnostics.splice(0, state.diagnostics.length - DIAGNOSTICS_KEPT);
}

/** Deep copy of plain data; the state never holds anything else. */
export function cloneData<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

function assignInPlace<T extends object>(target: T, source: T): void {
  for (const key of Object.keys(target) as (keyof T)[]) {
    if (!(key in source)) delete target[key];
  }
  Object.assign(target, source);
}

/**
 * Replaces `target`'s contents with `source`'s (a changed copy of it). The
 * state object and every region object keep their identity, so references
 * callers hold stay valid.
 */
export function commitState(target: RunState, source: RunState): void {
  const byName = new Map(target.regions.map((r) => [r.name, r]));
  const regions = source.regions.map((r) => {
    const existing = byName.get(r.name);
    if (!existing) return r;
    assignInPlace(existing, r);
    return existing;
  });
  assignInPlace(target, { ...source, regions });
}
