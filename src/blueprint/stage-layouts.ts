/**
 * Runtime regions (docs/reference/regions.md#runtime-regions), effective stage layouts
 * (docs/reference/stages.md#layout) and the
 * budgets each stage resolves to (docs/reference/regions.md#resolving-budgets). Pure: workflow code may import it.
 */

import { lookupModel, UNKNOWN_MODEL_WINDOW } from '../providers/builtin-models.js';
import type { Blueprint, Placement, RegionDef, RegionKind, StageDef } from '../shapes/frozen-blueprint.js';
import { resolveBudget, resolveThreshold } from './budget.js';
import { promptPlace } from './placement.js';
import { defaultVolatility, lowWaterFor } from './volatility.js';

function baseRegion(name: string, kind: RegionKind, maxTokens: number): RegionDef {
  const shedTo = lowWaterFor({ kind, admission: 'evict' });
  return {
    ...(shedTo !== undefined ? { shedTo } : {}),
    name,
    kind,
    maxTokens,
    admission: 'evict',
    volatility: defaultVolatility(kind),
    volatilityDeclared: false,
    summarizable: true,
    required: false,
    describeInPrompt: false,
  };
}

/** The layout's pinned home for the task when a blueprint declares no regions. */
export function systemRegion(): RegionDef {
  return { ...baseRegion('system', 'pinned', 8000), seed: { form: 'task_input', refresh: 'once' } };
}

/** Appended after the declared regions, in this order, unless declared. */
export function appendedRuntimeRegions(): RegionDef[] {
  return [
    baseRegion('tool_results', 'temporary', 5000),
    { ...baseRegion('conversation', 'sliding_window', 10000), maxItems: 50, strategy: 'per_item' },
    baseRegion('final_output', 'pinned', 2000),
  ];
}

/** Regions every stage sees whatever its own layout says. */
export const ALWAYS_VISIBLE = ['conversation', 'tool_results', 'final_output', 'stage_instructions'] as const;

/** The regions stage `stage` carries, in effective order (docs/reference/stages.md#layout). */
export function stageLayout(bp: Blueprint, stage: StageDef): RegionDef[] {
  if (!stage.regions) return [...bp.regions];
  const layout = [...stage.regions];
  for (const name of ALWAYS_VISIBLE) {
    if (layout.some((d) => d.name === name)) continue;
    const global = bp.regions.find((d) => d.name === name);
    if (global) layout.push(global);
  }
  return layout;
}

/** The model a stage runs on: its own, else the agent's, else the offline scripted model. */
export function stageModel(bp: Blueprint, stage: string): string {
  return bp.stages.find((s) => s.name === stage)?.model ?? bp.agent.model ?? 'scripted:default';
}

/** The context window a stage runs with, and whether the model table knows it. */
export function stageWindow(
  bp: Blueprint,
  stage: StageDef,
  windowOverride?: number,
): { window: number; known: boolean } {
  if (windowOverride !== undefined) return { window: windowOverride, known: true };
  const info = lookupModel(bp.models, stage.model);
  return info ? { window: info.contextWindow, known: true } : { window: UNKNOWN_MODEL_WINDOW, known: false };
}

export interface ResolvedStageBudgets {
  name: string;
  window: number;
  model: string;
  regions: {
    name: string;
    kind: RegionKind;
    /** Where its content goes in the prompt (docs/reference/rendering.md#placement). */
    placement: Placement | 'messages';
    budgetText?: string;
    budget: number;
    threshold?: number;
  }[];
}

export function resolveStageBudgets(bp: Blueprint, windowOverride?: number): ResolvedStageBudgets[] {
  return bp.stages.map((stage) => {
    const { window } = stageWindow(bp, stage, windowOverride);
    const regions = stageLayout(bp, stage).map((def) => {
      const budget = resolveBudget(def, window);
      const row: ResolvedStageBudgets['regions'][number] = {
        name: def.name,
        kind: def.kind,
        placement: promptPlace(def),
        budget,
      };
      if (def.budgetText !== undefined) row.budgetText = def.budgetText;
      if (def.kind === 'compacting') row.threshold = resolveThreshold(def, budget);
      return row;
    });
    return { name: stage.name, window, model: stage.model, regions };
  });
}
