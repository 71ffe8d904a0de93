/**
 * Warnings and notes of docs/reference/validation.md#warnings: things that validate but probably do not
 * do what the author meant. They never block a blueprint (warnings do with
 * `--deny-warnings`).
 */

import { encodingFor, lookupModel } from '../providers/builtin-models.js';
import { type Blueprint, type RegionDef, STAGE_INSTRUCTIONS, type StageDef } from '../shapes/frozen-blueprint.js';
import { isProtected, kindFacts } from '../shapes/region-kinds.js';
import { DEFAULT_GRANT } from '../shapes/tool-catalogue.js';
import { isPreApproved } from '../tools/safe-commands.js';
import { systemSortKey } from './block-order.js';
import { resolveBudget } from './budget.js';
import type { Findings } from './findings.js';
import { dropsTurnPerWrite, promptPlace } from './placement.js';
import { tokensAbove } from './prompt-tokens.js';
import { isCallerSeed } from './seeds.js';
import { appendedRuntimeRegions, stageLayout, stageWindow } from './stage-layouts.js';

function grants(stage: StageDef, tool: string): boolean {
  return ((stage.availableTools ?? DEFAULT_GRANT) as readonly string[]).includes(tool);
}

function regionPath(name: string, stage?: StageDef): string[] {
  return stage?.regions?.some((r) => r.name === name)
    ? ['stages', stage.name, 'context', 'regions', name]
    : ['context', 'regions', name];
}

function lintModels(bp: Blueprint, findings: Findings, windowOverride?: number): void {
  if (windowOverride !== undefined) return;
  const unknown = new Map<string, StageDef[]>();
  for (const stage of bp.stages) {
    // Every entry of a fallback chain may end up running the stage, so each needs a known window.
    for (const model of stage.models ?? [stage.model]) {
      if (lookupModel(bp.models, model)) continue;
      unknown.set(model, [...(unknown.get(model) ?? []), stage]);
    }
  }
  for (const [model, stages] of unknown) {
    const who =
      stages.length === 1
        ? `Stage "${stages[0]?.name}" uses`
        : `Stages ${stages.map((s) => `"${s.name}"`).join(', ')} use`;
    const path = model === bp.agent.model ? ['agent', 'model'] : ['stages', stages[0]?.name ?? '', 'model'];
    findings.add(
      'unknown-model-window',
      `${who} model "${model}", which is not in the model table, so a window of 8192 is assumed; add [models."${model}"] context_window = <tokens>.`,
      path,
    );
  }
}

function lintBudgets(bp: Blueprint, findings: Findings, windowOverride?: number): void {
  const widest = new Map<string, { def: RegionDef; window: number; stage: StageDef }>();
  const zero = new Set<string>();
  for (const stage of bp.stages) {
    const { window, known } = stageWindow(bp, stage, windowOverride);
    if (!known) continue;
    const layout = stageLayout(bp, stage);
    for (const def of layout) {
      // A warning, not an error: the same percentage may hold tokens at a larger window (another model, --window).
      if (def.budgetPercent !== undefined && !zero.has(def.name) && resolveBudget(def, window) === 0) {
        zero.add(def.name);
        findings.add(
          'budget-zero',
          `Region "${def.name}" has budget = "${def.budgetText ?? `${def.budgetPercent}%`}", which is 0 tokens of stage "${stage.name}"'s ${window}-token window, so it can hold nothing; raise the percentage or set min_tokens.`,
          [...regionPath(def.name, stage), 'budget'],
        );
      }
      if (def.budgetPercent === undefined || def.maxTokens !== undefined || !kindFacts(def.kind).rolling) continue;
      const seen = widest.get(def.name);
      if (!seen || window > seen.window) widest.set(def.name, { def, window, stage });
    }
    const total = layout.reduce((sum, def) => sum + resolveBudget(def, window), 0);
    if (total > window) {
      findings.add(
        'budgets-exceed-window',
        `The regions stage "${stage.name}" sees add up to ${total} tokens, more than its ${window}-token window; shrink some budgets so they fit.`,
        ['stages', stage.name],
      );
    }
    lintStagePrompt(bp, stage, layout, window, findings);
  }
  for (const { def, window, stage } of widest.values()) {
    const size = resolveBudget(def, window);
    findings.add(
      'unbounded-percentage-budget',
      `Region "${def.name}" (${def.kind}) has budget = "${def.budgetText ?? `${def.budgetPercent}%`}" and no max_tokens, so it grows to ${size} tokens at a ${window}-token window; add max_tokens to cap it.`,
      [...regionPath(def.name, stage), 'budget'],
    );
  }
}

function lintStagePrompt(
  bp: Blueprint,
  stage: StageDef,
  layout: RegionDef[],
  window: number,
  findings: Findings,
): void {
  if (stage.systemPrompt === undefined) return;
  const home =
    layout.find((r) => r.name === STAGE_INSTRUCTIONS) ??
    layout.find((r) => r.kind === 'pinned' && r.name !== 'final_output');
  if (!home) return;
  const budget = resolveBudget(home, window);
  const tokens = tokensAbove(stage.systemPrompt, budget, encodingFor(stage.model, lookupModel(bp.models, stage.model)));
  if (tokens === undefined) return;
  findings.add(
    'stage-prompt-too-large',
    `Stage "${stage.name}"'s prompt is ${tokens} tokens but lands in "${home.name}", whose budget is ${budget} at a ${window}-token window, so entering the stage would fail; raise that budget or shorten the prompt.`,
    ['stages', stage.name, 'system_prompt'],
  );
}

function lintRouting(bp: Blueprint, findings: Findings): void {
  for (const stage of bp.stages) {
    const routing = stage.toolRouting;
    if (!routing || !stage.availableTools) continue;
    const elsewhere =
      routing.defaultRegion !== 'conversation' ||
      Object.values(routing.overrides).some((o) => o.region !== undefined && o.region !== 'conversation');
    const reads = grants(stage, 'read_file');
    if (elsewhere && reads && !grants(stage, 'context_read')) {
      findings.add(
        'routing-without-region-read',
        `Stage "${stage.name}" routes tool output into regions and grants read_file but not context_read, so the agent may re-read files it already has; add "context_read" to available_tools.`,
        ['stages', stage.name, 'available_tools'],
      );
    }
  }
}

function allRegionDefs(bp: Blueprint): { def: RegionDef; stage?: StageDef }[] {
  const out: { def: RegionDef; stage?: StageDef }[] = bp.regions.map((def) => ({ def }));
  const seen = new Set(bp.regions.map((r) => r.name));
  for (const stage of bp.stages) {
    for (const def of stage.regions ?? []) {
      if (seen.has(def.name)) continue;
      seen.add(def.name);
      out.push({ def, stage });
    }
  }
  return out;
}

function lintRequired(bp: Blueprint, findings: Findings): void {
  const reported = new Set<string>();
  for (const stage of bp.stages) {
    const compacts = stage.transitions.some((e) => e.transform === 'compact');
    const compactList = new Set(
      stage.transitions.flatMap((e) => (e.transform === 'custom' ? (e.transformConfig?.compact ?? []) : [])),
    );
    for (const { def } of allRegionDefs(bp)) {
      if (!def.required || !def.summarizable || isProtected(def) || def.kind === 'hashmap' || reported.has(def.name))
        continue;
      if (!compacts && !compactList.has(def.name)) continue;
      reported.add(def.name);
      findings.add(
        'compact-summarizes-deliverable',
        `Region "${def.name}" is required, but the compact edge out of stage "${stage.name}" would summarise what the agent built there; set summarizable = false on it or use another transform.`,
        regionPath(def.name),
      );
    }
  }
  for (const { def, stage: owner } of allRegionDefs(bp)) {
    if (!def.required || isCallerSeed(def.seed)) continue;
    const writable = bp.stages.some(
      (stage) =>
        stageLayout(bp, stage).some((r) => r.name === def.name) &&
        (grants(stage, 'context_write') || grants(stage, 'context_append')),
    );
    if (writable) continue;
    findings.add(
      'required-region-unenforceable',
      `Region "${def.name}" is required, but no stage that carries it grants context_write or context_append, so the agent cannot fill it; grant one of them in a stage that shows the region.`,
      [...regionPath(def.name, owner), 'required'],
    );
  }
}

function lintSeeds(bp: Blueprint, findings: Findings): void {
  for (const def of bp.regions) {
    const seed = def.seed;
    if (seed?.form === 'command') {
      const check = isPreApproved(seed.command, bp.safeCommands.shell);
      const verdict = check.ok
        ? 'pre-approved by the safe list'
        : `not pre-approved (uncovered: ${check.uncovered.join(', ')}); add them to [safe_commands] shell or it will be refused`;
      findings.add('command-seed', `Region "${def.name}" runs \`${seed.command}\` at spawn: ${verdict}.`, [
        'context',
        'regions',
        def.name,
        'seed',
      ]);
    } else if (seed?.form === 'tools') {
      const names = seed.calls.map((c) => c.name).join(', ');
      const refresh = seed.refresh === 'each_stage' ? ' again at every stage entry (each_stage)' : ' once at spawn';
      findings.add(
        'tool-seed',
        `Region "${def.name}" is seeded by calling ${names}${refresh}; the calls obey the run's tool permissions.`,
        ['context', 'regions', def.name, 'seed'],
      );
    }
  }
}

/** Tarjan's strongly connected components over the stage graph. */
function components(bp: Blueprint): string[][] {
  const edges = new Map(
    bp.stages.map((s) => [
      s.name,
      s.transitions.map((e) => e.target).filter((t) => bp.stages.some((x) => x.name === t)),
    ]),
  );
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let counter = 0;
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      for (;;) {
        const w = stack.pop();
        if (w === undefined) break;
        onStack.delete(w);
        component.push(w);
        if (w === v) break;
      }
      out.push(component.reverse());
    }
  };
  for (const s of bp.stages) if (!index.has(s.name)) visit(s.name);
  return out;
}

function lintGraph(bp: Blueprint, findings: Findings): void {
  const byName = new Map(bp.stages.map((s) => [s.name, s]));
  // A stage that allows itself as a worker is where a worker's run starts.
  const starts = [bp.agent.entryStage, ...bp.stages.filter((s) => s.allowAsWorker).map((s) => s.name)];
  const reached = new Set<string>(starts);
  const queue = [...starts];
  while (queue.length > 0) {
    const stage = byName.get(queue.shift() ?? '');
    for (const edge of stage?.transitions ?? []) {
      if (!reached.has(edge.target)) {
        reached.add(edge.target);
        queue.push(edge.target);
      }
    }
  }
  if (byName.has(bp.agent.entryStage)) {
    for (const stage of bp.stages) {
      if (reached.has(stage.name)) continue;
      findings.add(
        'unreachable-stage',
        `Stage "${stage.name}" cannot be reached from the entry stage "${bp.agent.entryStage}"; add a transition to it or remove it.`,
        ['stages', stage.name],
      );
    }
  }
  for (const component of components(bp)) {
    const first = component[0] ?? '';
    const cyclic = component.length > 1 || byName.get(first)?.transitions.some((e) => e.target === first);
    if (!cyclic || component.some((name) => byName.get(name)?.maxRevisits !== undefined)) continue;
    findings.add(
      'cycle-without-max-revisits',
      `Stages ${component.join(' -> ')} form a cycle and none sets max_revisits, so a run can loop until it is cancelled; set max_revisits on one of them.`,
      ['stages', first],
    );
  }
  for (const stage of bp.stages) {
    const normal = stage.transitions.filter((e) => e.condition === 'always' || e.condition === 'llm_choice');
    if (normal.length === 0) continue;
    const canExhaust = normal.every((e) => byName.get(e.target)?.maxRevisits !== undefined);
    const fallback = stage.transitions.some((e) => e.condition === 'dead_end' || e.condition === 'error');
    if (canExhaust && !fallback) {
      findings.add(
        'dead-end-possible',
        `Every normal transition out of "${stage.name}" leads to a stage with max_revisits, so all can run out and the run would fail; add a condition = "dead_end" or "error" transition.`,
        ['stages', stage.name, 'transitions'],
      );
    }
  }
}

/** A region whose block is re-rendered on every change, yet whose volatility sorts it ahead of others. */
function rewritesEarly(def: RegionDef): boolean {
  if (def.kind === 'checklist') return def.volatility !== 'rewritten';
  return (def.kind === 'temporary' || def.kind === 'clearable') && def.volatility === 'stable';
}

function after(a: number[], b: number[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! > b[i]!;
  return false;
}

/**
 * Prompt-cache lints: a region rewritten on every change that sorts before
 * steadier ones in the system section re-sends them uncached each time; a
 * steady region in the tail is re-sent uncached every turn; a per-item
 * conversation changes its first message on every write once it is full.
 */
function lintCacheOrder(bp: Blueprint, findings: Findings): void {
  const reported = new Set<string>();
  const tailReported = new Set<string>();
  for (const stage of bp.stages) {
    const layout = stageLayout(bp, stage);
    const keyed = layout
      .map((def, order) => ({ def, key: systemSortKey(def, order) }))
      .filter(({ def }) => promptPlace(def) === 'system');
    for (const { def, key } of keyed) {
      if (reported.has(def.name) || !rewritesEarly(def)) continue;
      const behind = keyed
        .filter((o) => o.def !== def && o.key[0] < 2 && after(o.key, key) && o.def.name !== STAGE_INSTRUCTIONS)
        .map((o) => `"${o.def.name}"`);
      if (behind.length === 0) continue;
      reported.add(def.name);
      findings.add(
        'rewritten-region-early',
        `Region "${def.name}" (${def.kind}) is re-rendered whenever it changes, but volatility = "${def.volatility}" places it in the system section before ${behind.join(', ')}, so every change re-sends them outside the prompt cache; remove volatility or set it to "rewritten", which renders it in the tail after the conversation.`,
        [...regionPath(def.name, stage), 'volatility'],
      );
    }
    for (const def of layout) {
      if (def.placement !== 'tail' || def.volatility === 'rewritten' || tailReported.has(def.name)) continue;
      tailReported.add(def.name);
      findings.add(
        'steady-region-in-tail',
        `Region "${def.name}" is ${def.volatility === 'stable' ? 'stable' : 'growing'} but placement = "tail" renders it after the conversation, where it is re-sent outside the prompt cache on every turn; remove placement to keep it in the system section.`,
        [...regionPath(def.name, stage), 'placement'],
      );
    }
  }
  const runtimeDefault = JSON.stringify(appendedRuntimeRegions().find((r) => r.name === 'conversation'));
  for (const { def, stage } of allRegionDefs(bp)) {
    if (def.name !== 'conversation' || !dropsTurnPerWrite(def) || JSON.stringify(def) === runtimeDefault) continue;
    findings.add(
      'per-item-conversation',
      `Region "conversation" drops its oldest turn on every write once full, so the prompt's messages change from the start each turn and miss the provider's cache, and no region writes in place (on the cache bench's coding session: 1.22× the modelled Anthropic input cost, 1.12× OpenAI's); set strategy = "bulk" (with overflow) to shed turns in chunks.`,
      regionPath(def.name, stage),
    );
  }
}

export function runLints(bp: Blueprint, findings: Findings, windowOverride?: number): void {
  lintModels(bp, findings, windowOverride);
  lintBudgets(bp, findings, windowOverride);
  lintRouting(bp, findings);
  lintRequired(bp, findings);
  lintSeeds(bp, findings);
  lintGraph(bp, findings);
  lintCacheOrder(bp, findings);
}
