/**
 * Entering a stage (docs/reference/stages.md#transition-order step 4): visits and attempts, the effective
 * layout and visibility (9.1), budget re-resolution with reduction of
 * regions left over budget (2.2), the stage instructions (9.2) and the
 * snapshot of `updates` counters. Seeds and maintenance are separate calls.
 */

import { resolveBudget, resolveThreshold, workingSpaceShortfall } from '../blueprint/budget.js';
import { stageLayout, stageWindow } from '../blueprint/stage-layouts.js';
import type { Entry, RegionState } from '../shapes/content.js';
import type { Blueprint, StageDef } from '../shapes/frozen-blueprint.js';
import { isFixedRegion } from '../shapes/region-kinds.js';
import { shiftGroup } from './groups.js';
import type { EngineEnv } from './kinds/custom.js';
import { behaviourOf, kindBehaviour } from './kinds/index.js';
import { applyStrategy } from './kinds/sliding-window.js';
import { regionTokens } from './measure.js';
import { count, type EngineOp } from './requests.js';
import {
  addDiagnostic,
  cloneData,
  commitState,
  FINAL_OUTPUT,
  newRegionState,
  type RunState,
  STAGE_INSTRUCTIONS,
} from './state.js';
import { stampEntry } from './write.js';
import { type Failure, failure } from './write-failures.js';

export interface RegionReduction {
  region: string;
  removed: Entry[];
  pending: Entry[];
}

export interface StageEntrySuccess {
  ok: true;
  stage: string;
  /** The window W the budgets were resolved against. */
  window: number;
  /** Regions cut back after re-resolution left them over budget. */
  reduced: RegionReduction[];
  /** Regions left over budget because their kind never drops entries (`region-over-budget`). */
  overBudget: string[];
  /** Where the stage prompt landed, if anywhere. */
  promptRegion?: string;
}

export type StageEntryResult = StageEntrySuccess | Failure;

function findStage(bp: Blueprint, name: string): StageDef | undefined {
  return bp.stages.find((s) => s.name === name);
}

function reduce(state: RunState, region: RegionState): RegionReduction | 'over' | null {
  if (regionTokens(region) <= region.budget) return null;
  const rule = kindBehaviour(region.kind).reduce(region.def);
  if (rule === 'keep') {
    addDiagnostic(
      state,
      'region-over-budget',
      'warning',
      `region "${region.name}" holds ${regionTokens(region)} tokens but its budget is now ${region.budget}; writes to it are refused until entries are released`,
    );
    return 'over';
  }
  const taken: Entry[] = [];
  while (regionTokens(region) > region.budget && region.entries.length > 0) taken.push(...shiftGroup(region.entries));
  if (rule === 'pending') region.pending.push(...taken);
  return { region: region.name, removed: rule === 'discard' ? taken : [], pending: rule === 'pending' ? taken : [] };
}

/**
 * A stage may declare a smaller `max_items` for a window it carries over: the
 * window's strategy applies on entry, as it would after the next write, so
 * the first prompt of the stage already holds at most that many items.
 */
function trimItems(region: RegionState): RegionReduction | null {
  if (region.kind !== 'sliding_window' || region.def.admission === 'reject') return null;
  const { removed, pending } = applyStrategy(region.def, region.entries, region.entries.length);
  if (removed.length === 0 && pending.length === 0) return null;
  region.pending.push(...pending);
  return { region: region.name, removed, pending };
}

function promptTooLarge(stage: string, promptTokens: number, tokens: number, region: RegionState): Failure {
  const size = tokens === promptTokens ? `${tokens} tokens` : `${promptTokens} tokens (${tokens} with its heading)`;
  return failure(
    'stage-prompt-too-large',
    `the prompt of stage "${stage}" has ${size} but region "${region.name}" has ${region.budget - regionTokens(region)} of its ${region.budget} tokens free; raise the region's budget or shorten the prompt.`,
  );
}

function* placeStagePrompt(draft: RunState, stage: StageDef, env: EngineEnv): EngineOp<Failure | { region?: string }> {
  const prompt = stage.systemPrompt;
  const hasPrompt = prompt !== undefined && prompt.trim() !== '';
  const promptTokens = hasPrompt ? (stage.systemPromptTokens ?? (yield* count(prompt))) : 0;
  const instructions = draft.regions.find((r) => r.name === STAGE_INSTRUCTIONS && !r.hidden);
  if (instructions) {
    instructions.entries = [];
    instructions.pending = [];
    if (!hasPrompt) return {};
    if (promptTokens > instructions.budget) return promptTooLarge(stage.name, promptTokens, promptTokens, instructions);
    const entry = stampEntry(draft, { content: prompt, tokens: promptTokens }, env);
    entry.stagePrompt = stage.name;
    instructions.entries.push(entry);
    return { region: instructions.name };
  }
  for (const r of draft.regions) r.entries = r.entries.filter((e) => e.stagePrompt === undefined);
  if (!hasPrompt) return {};
  const target = draft.regions.find((r) => !r.hidden && r.kind === 'pinned' && r.name !== FINAL_OUTPUT);
  if (!target) {
    return failure(
      'stage-prompt-no-region',
      `stage "${stage.name}" has a prompt but no visible pinned region to hold it; declare \`stage_instructions\` or a pinned region.`,
    );
  }
  const header = `Instructions for stage "${stage.name}":`;
  const tokens = (yield* count(header)) + 1 + promptTokens;
  if (regionTokens(target) + tokens > target.budget) return promptTooLarge(stage.name, promptTokens, tokens, target);
  const entry = stampEntry(draft, { content: `${header}\n${prompt}`, tokens }, env);
  entry.stagePrompt = stage.name;
  target.entries.push(entry);
  return { region: target.name };
}

/** Enters `stageName`. On failure the state is left exactly as it was. */
export function* enterStage(
  state: RunState,
  bp: Blueprint,
  stageName: string,
  env: EngineEnv,
): EngineOp<StageEntryResult> {
  const stage = findStage(bp, stageName);
  if (!stage) {
    return failure(
      'unknown-stage',
      `there is no stage "${stageName}"; stages are ${bp.stages.map((s) => s.name).join(', ')}.`,
    );
  }
  const draft = cloneData(state);
  const { window, known } = stageWindow(bp, stage, draft.windowOverride);
  if (!known)
    addDiagnostic(
      draft,
      'unknown-model-window',
      'warning',
      `model "${stage.model}" of stage "${stage.name}" is not in the model table; assuming a window of ${window} tokens`,
    );

  const layout = stageLayout(bp, stage);
  const visible: RegionState[] = [];
  for (const def of layout) {
    const existing = draft.regions.find((r) => r.name === def.name);
    if (existing && existing.kind !== def.kind) {
      return failure(
        'region-kind-changed',
        `stage "${stage.name}" declares region "${def.name}" as ${def.kind}, but it is a ${existing.kind}; a stage may not change a region's kind.`,
      );
    }
    const region = existing ?? newRegionState(def, window);
    region.def = def;
    region.hidden = false;
    visible.push(region);
  }
  const hidden = draft.regions.filter((r) => !visible.includes(r));
  for (const r of hidden) r.hidden = true;
  draft.regions = [...visible, ...hidden];

  const shortfall = workingSpaceShortfall(
    visible.filter((r) => isFixedRegion(r.def)).map((r) => resolveBudget(r.def, window)),
    window,
  );
  if (shortfall) {
    return failure(
      'working-space',
      `stage "${stage.name}" leaves ${shortfall.free} tokens of its ${window}-token window free after ${shortfall.fixed} tokens of fixed regions; at least 8000 are needed, so shrink the pinned, history, hashmap or checklist budgets.`,
    );
  }

  draft.window.max = window;
  const reduced: RegionReduction[] = [];
  const overBudget: string[] = [];
  for (const region of visible) {
    region.budget = resolveBudget(region.def, window);
    if (behaviourOf(region).folds(region.def) === 'threshold')
      region.threshold = resolveThreshold(region.def, region.budget);
    const outcome = reduce(draft, region);
    if (outcome === 'over') overBudget.push(region.name);
    else if (outcome) reduced.push(outcome);
    const trimmed = trimItems(region);
    if (trimmed) reduced.push(trimmed);
  }

  draft.stage = stage.name;
  draft.visits[stage.name] = (draft.visits[stage.name] ?? 0) + 1;
  draft.attempts = 0;
  draft.turn = 0;

  const placed = yield* placeStagePrompt(draft, stage, env);
  if ('ok' in placed) return placed;

  draft.requiredRegionsAbandoned = draft.requiredRegionsAbandoned.filter((name) => {
    const r = draft.regions.find((x) => x.name === name);
    return !r || r.entries.length === 0;
  });
  draft.updatesSnapshot = Object.fromEntries(draft.regions.map((r) => [r.name, r.updates]));
  commitState(state, draft);
  const result: StageEntrySuccess = { ok: true, stage: stage.name, window, reduced, overBudget };
  if (placed.region !== undefined) result.promptRegion = placed.region;
  return result;
}
