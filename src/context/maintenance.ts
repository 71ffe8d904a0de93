/**
 * The maintenance point before every inference (docs/reference/regions.md#maintenance): the compaction
 * pass, then the window cascade that frees reply headroom when the window
 * passes 90%. Also the calibration gap (3.3) and the reply limit.
 */

import type { Entry, RegionState } from '../shapes/content.js';
import type { Blueprint } from '../shapes/frozen-blueprint.js';
import { type FoldReport, fold } from './fold.js';
import { groupAt, groupCount, shiftGroup } from './groups.js';
import { callOnOverflow, type EngineEnv, hooksFor } from './kinds/custom.js';
import { behaviourOf, type CascadePhase, kindBehaviour } from './kinds/index.js';
import { settleLayouts } from './layout.js';
import { regionTokens } from './measure.js';
import type { EngineOp } from './requests.js';
import { addDiagnostic, type RunState, visibleRegions, windowUsed } from './state.js';

export interface Removal {
  region: string;
  entries: Entry[];
}

export interface MaintenanceReport {
  folds: FoldReport[];
  /** Entries the cascade dropped, per region, in the order they went. */
  removed: Removal[];
  /** Set when the cascade could not reach its target (`window-pressure`). */
  windowPressure?: { used: number; gap: number; W: number; shortfall: number };
  used: number;
  gap: number;
}

/** Keeps the ledger bounded so a long run's state stays small; older rows are in workflow history. */
const LEDGER_ROWS = 200;

function* compactionPass(state: RunState, bp: Blueprint, env: EngineEnv): EngineOp<FoldReport[]> {
  const reports: FoldReport[] = [];
  for (const region of state.regions) {
    let report: FoldReport | null = null;
    if (region.markedForFold) {
      const prompt = region.markedCompactPrompt;
      delete region.markedForFold;
      delete region.markedCompactPrompt;
      report = yield* fold(state, bp, region, 0, prompt === undefined ? { all: true } : { all: true, prompt }, env);
    } else if (region.hidden) {
      // A hidden region keeps its content untouched until a stage shows it again (docs/reference/stages.md#visibility).
      continue;
    } else if (behaviourOf(region).folds(region.def) === 'threshold') {
      const theta = region.threshold ?? region.budget;
      if (region.def.admission === 'evict' && regionTokens(region) > theta) {
        report = yield* fold(state, bp, region, Math.floor(theta / 2), {}, env);
      } else if (region.pending.length > 0) {
        report = yield* fold(state, bp, region, Number.POSITIVE_INFINITY, {}, env);
      }
    } else if (behaviourOf(region).folds(region.def) === 'pending' && region.pending.length > 0) {
      report = yield* fold(state, bp, region, Number.POSITIVE_INFINITY, {}, env);
    }
    if (report) reports.push(report);
  }
  return reports;
}

function* cascade(state: RunState, bp: Blueprint, env: EngineEnv, report: MaintenanceReport): EngineOp<void> {
  const W = state.window.max;
  const headroom = Math.floor(W / 10);
  const need = () => headroom - (W - (windowUsed(state) + state.window.gap));
  if (need() <= 0) return;
  const removed = (region: RegionState, entries: Entry[]) => {
    if (entries.length > 0) report.removed.push({ region: region.name, entries });
  };
  const takesPart = visibleRegions(state).filter((r) => r.def.admission === 'evict');
  // Each kind says which phases it takes part in: clearables empty first, then custom
  // on_overflow hooks, then a round robin over temporaries and non-persistent customs,
  // then compacting regions fold.
  const inPhase = (phase: CascadePhase) =>
    takesPart.filter((r) => kindBehaviour(r.kind).cascadePhases(r.def).includes(phase));

  for (const region of inPhase(1)) {
    if (need() <= 0) return;
    removed(region, region.entries.splice(0));
  }

  for (const region of inPhase(2)) {
    if (need() <= 0) return;
    const hooks = hooksFor(env, region);
    if (!hooks?.onOverflow || region.entries.length === 0) continue;
    const answer = callOnOverflow(hooks, region, need());
    if (!answer.ok) {
      addDiagnostic(state, 'custom-script-failed', 'warning', `region "${region.name}" on_overflow: ${answer.error}`);
      continue;
    }
    const drop = new Set<number>();
    for (const index of answer.indices) {
      const [start, end] = groupAt(region.entries, index);
      for (let i = start; i < end; i++) drop.add(i);
    }
    removed(
      region,
      region.entries.filter((_, i) => drop.has(i)),
    );
    region.entries = region.entries.filter((_, i) => !drop.has(i));
  }

  const roundRobin = inPhase(3);
  let progressed = true;
  while (progressed && need() > 0) {
    progressed = false;
    for (const region of roundRobin) {
      if (need() <= 0) return;
      const group = shiftGroup(region.entries);
      if (group.length > 0) {
        progressed = true;
        removed(region, group);
      }
    }
  }

  for (const region of inPhase(4)) {
    if (need() <= 0) return;
    if (groupCount(region.entries) < 2) continue;
    const folded = yield* fold(state, bp, region, 0, {}, env);
    if (folded) report.folds.push(folded);
  }

  const shortfall = need();
  if (shortfall > 0) {
    const used = windowUsed(state);
    report.windowPressure = { used, gap: state.window.gap, W, shortfall };
    addDiagnostic(
      state,
      'window-pressure',
      'warning',
      `window at ${used} + gap ${state.window.gap} of ${W} tokens; ${shortfall} tokens short of the reply headroom after every region that may shrink did`,
    );
  }
}

/** Runs a maintenance point and records it in the ledger. */
export function* maintain(state: RunState, bp: Blueprint, env: EngineEnv): EngineOp<MaintenanceReport> {
  const report: MaintenanceReport = { folds: [], removed: [], used: 0, gap: 0 };
  report.folds = yield* compactionPass(state, bp, env);
  yield* cascade(state, bp, env, report);
  settleLayouts(state);
  const used = windowUsed(state);
  report.used = used;
  report.gap = state.window.gap;
  state.turn += 1;
  state.usedAtLastMaintenance = used;
  state.ledger.push({
    stage: state.stage,
    turn: state.turn,
    tokens: Object.fromEntries(visibleRegions(state).map((r) => [r.name, regionTokens(r)])),
    used,
    gap: state.window.gap,
  });
  if (state.ledger.length > LEDGER_ROWS) state.ledger.splice(0, state.ledger.length - LEDGER_ROWS);
  return report;
}

/**
 * The provider reported `promptTokens` for the request built at the latest maintenance point
 * (docs/reference/regions.md#calibration-gap).
 */
export function recordUsage(state: RunState, promptTokens: number): void {
  const measured = state.usedAtLastMaintenance ?? windowUsed(state);
  state.window.gap = Math.max(state.window.gap, promptTokens - measured, 0);
  const last = state.ledger.at(-1);
  if (last) last.reportedPromptTokens = promptTokens;
}

/** `max(1, min(cap, W − (used + gap)))` (docs/reference/regions.md#calibration-gap). */
export function replyLimit(state: RunState, modelOutputCap: number): number {
  return Math.max(1, Math.min(modelOutputCap, state.window.max - (windowUsed(state) + state.window.gap)));
}
