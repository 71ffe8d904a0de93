/**
 * Leaving a stage (docs/reference/stages.md#normal-completion and docs/reference/stages.md#gates): which edges are
 * available, how a model's choice is matched, and the completion checks that may block a normal completion, bounded by
 * the visit's shared attempt counter.
 */

import type { RegionState } from '../shapes/content.js';
import type { Blueprint, EdgeDef, GateDef, RegionDef, StageDef } from '../shapes/frozen-blueprint.js';
import { DEFAULT_GRANT } from '../shapes/tool-catalogue.js';
import { canonicalTool, MODIFYING_TOOLS } from '../tools/builtin-names.js';
import type { EngineEnv } from './kinds/custom.js';
import { contentText } from './measure.js';
import { count, type EngineOp } from './requests.js';
import { addDiagnostic, CONVERSATION, findRegion, openItems, type RunState } from './state.js';
import { writeEntry } from './write.js';

/** Attempt cap when the edge has no gate, and when the run is ending. */
export const DEFAULT_MAX_ATTEMPTS = 3;

const NORMAL: readonly string[] = ['always', 'llm_choice'];

function stageDef(bp: Blueprint, name: string): StageDef {
  const stage = bp.stages.find((s) => s.name === name);
  if (!stage) throw new RangeError(`unknown stage "${name}"`);
  return stage;
}

/** An edge is available while its target's revisits (entries − 1) are below its `max_revisits`. */
export function edgeAvailable(state: RunState, bp: Blueprint, edge: EdgeDef): boolean {
  const max = bp.stages.find((s) => s.name === edge.target)?.maxRevisits;
  if (max === undefined) return true;
  return (state.visits[edge.target] ?? 0) - 1 < max;
}

export type CompletionRoute =
  /** The stage declares no normal edge: the run ends. */
  | { kind: 'end' }
  /** Exactly one choosable edge and `allow_complete` is false. */
  | { kind: 'take'; edge: EdgeDef }
  /** The stage's model chooses; show it `prompt`. */
  | { kind: 'choose'; edges: EdgeDef[]; allowComplete: boolean; prompt: string }
  /** Normal edges exist but none is available: follow `edge`, or fail the run when null. */
  | { kind: 'dead_end'; edge: EdgeDef | null };

function firstWithCondition(stage: StageDef, ...conditions: string[]): EdgeDef | null {
  for (const c of conditions) {
    const edge = stage.transitions.find((e) => e.condition === c);
    if (edge) return edge;
  }
  return null;
}

/**
 * The choice shown to the model: one line per edge, plus DONE when the stage
 * may complete. A stage's `transition_prompt` replaces the opening question,
 * as in the original Leviath: the edges and the reply rule still follow it, so
 * the answer is matched the same way (docs/reference/stages.md#normal-completion).
 */
export function edgeChoicePrompt(edges: EdgeDef[], allowComplete: boolean, transitionPrompt?: string): string {
  const lines = edges.map((e) => (e.hint ? `${e.target}: ${e.hint}` : e.target));
  if (allowComplete) lines.push('DONE: finish the run here');
  const custom = transitionPrompt?.trim();
  if (!custom) return `Choose where to go next. Reply with one of these names on the first line:\n${lines.join('\n')}`;
  return `${custom}\n\nAvailable transitions:\n${lines.join('\n')}\n\nReply with one of these names on the first line.`;
}

/** Normal completion of the current stage (docs/reference/stages.md#normal-completion). */
export function completionEdges(state: RunState, bp: Blueprint): CompletionRoute {
  const stage = stageDef(bp, state.stage);
  const normal = stage.transitions.filter((e) => NORMAL.includes(e.condition));
  if (normal.length === 0) return { kind: 'end' };
  const available = normal.filter((e) => edgeAvailable(state, bp, e));
  if (available.length === 0) return { kind: 'dead_end', edge: firstWithCondition(stage, 'dead_end', 'error') };
  if (available.length === 1 && !stage.allowComplete) return { kind: 'take', edge: available[0]! };
  return {
    kind: 'choose',
    edges: available,
    allowComplete: stage.allowComplete,
    prompt: edgeChoicePrompt(available, stage.allowComplete, stage.transitionPrompt),
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The candidate named earliest on `line` as a whole word, case-insensitively. */
function matchLine(line: string, candidates: string[]): string | null {
  let best: { name: string; at: number } | null = null;
  for (const name of candidates) {
    const m = new RegExp(`(^|[^\\w-])${escapeRegExp(name)}(?=$|[^\\w-])`, 'i').exec(line);
    if (m && (best === null || m.index < best.at)) best = { name, at: m.index };
  }
  return best?.name ?? null;
}

export type EdgeChoice = { kind: 'edge'; edge: EdgeDef; unmatched: boolean } | { kind: 'end' };

/**
 * Matches the model's reply to a `choose` route (docs/reference/stages.md#normal-completion step 4). Pure: on
 * `unmatched` the caller records `edge-choice-unmatched`.
 */
export function chooseEdge(state: RunState, bp: Blueprint, reply: string): EdgeChoice {
  const route = completionEdges(state, bp);
  if (route.kind === 'take') return { kind: 'edge', edge: route.edge, unmatched: false };
  if (route.kind !== 'choose') return { kind: 'end' };
  const candidates = route.edges.map((e) => e.target);
  if (route.allowComplete) candidates.push('DONE');
  const lines = reply.trim().split(/\r?\n/);
  const first = lines[0] ?? '';
  const last = lines.at(-1) ?? '';
  let picked = matchLine(first, candidates);
  if (picked === null && last.trim().split(/\s+/).length <= 3) picked = matchLine(last, candidates);
  if (
    picked !== null &&
    picked.toLowerCase() === 'done' &&
    route.allowComplete &&
    !route.edges.some((e) => e.target === picked)
  ) {
    return { kind: 'end' };
  }
  const edge = route.edges.find((e) => e.target === picked);
  if (edge) return { kind: 'edge', edge, unmatched: false };
  if (route.allowComplete) return { kind: 'end' };
  const fallback = stageDef(bp, state.stage).transitions.find((e) => route.edges.includes(e))!;
  return { kind: 'edge', edge: fallback, unmatched: true };
}

export type OutcomeRoute =
  | { kind: 'edge'; edge: EdgeDef }
  | { kind: 'complete' }
  | { kind: 'continue' }
  | { kind: 'fail' };

/** Edges for the other outcomes (docs/reference/stages.md#other-outcomes). */
export function outcomeEdge(
  state: RunState,
  bp: Blueprint,
  outcome: 'error' | 'max_iterations' | 'stuck',
): OutcomeRoute {
  const stage = stageDef(bp, state.stage);
  if (outcome === 'error') {
    const edge = firstWithCondition(stage, 'error', 'dead_end');
    return edge ? { kind: 'edge', edge } : { kind: 'fail' };
  }
  const edge = firstWithCondition(stage, outcome);
  if (edge) return { kind: 'edge', edge };
  return outcome === 'max_iterations' ? { kind: 'complete' } : { kind: 'continue' };
}

export interface GateFacts {
  modifyingCallSucceeded: boolean;
  modifyingCallDenied: boolean;
}

export interface GateOutcome {
  outcome: 'pass' | 'block' | 'forced';
  nudge?: string;
  /** The check that failed: `required_regions`, `require_region_updated`, ... */
  check?: string;
}

interface FailedCheck {
  check: string;
  nudge: string;
  /** Required regions left empty, for `required_regions_abandoned`. */
  regions?: string[];
}

function isEmpty(region: RegionState | undefined): boolean {
  return !region || region.entries.every((e) => e.stagePrompt !== undefined);
}

function callerSeeded(def: RegionDef): boolean {
  const form = def.seed?.form;
  return (
    form === 'caller' || form === 'task_input' || form === 'input' || (def.name === 'task' && def.seed === undefined)
  );
}

function offers(stage: StageDef, tool: string): boolean {
  const wanted = canonicalTool(tool);
  if (stage.availableTools === undefined) return (DEFAULT_GRANT as readonly string[]).includes(wanted);
  return stage.availableTools.some((t) => canonicalTool(t) === wanted);
}

function requiredRegionsCheck(state: RunState, stage: StageDef): FailedCheck | null {
  if (!offers(stage, 'context_write') && !offers(stage, 'context_append')) return null;
  const empty = state.regions.filter((r) => !r.hidden && r.def.required && !callerSeeded(r.def) && isEmpty(r));
  if (empty.length === 0) return null;
  const lines = empty.map((r) =>
    r.def.requiredMessage
      ? r.def.requiredMessage.replaceAll('{region}', r.name)
      : `Region "${r.name}" is required but still empty; fill it with context_write before finishing.`,
  );
  return { check: 'required_regions', nudge: lines.join('\n'), regions: empty.map((r) => r.name) };
}

function gateChecks(state: RunState, stage: StageDef, gate: GateDef, facts: GateFacts): FailedCheck | null {
  const own = (check: string, nudge: string): FailedCheck => ({ check, nudge: gate.message ?? nudge });
  if (gate.requireRegionUpdated !== undefined) {
    const name = gate.requireRegionUpdated;
    const region = findRegion(state, name);
    if ((region?.updates ?? 0) === (state.updatesSnapshot[name] ?? 0)) {
      return own(
        'require_region_updated',
        `Region "${name}" has not been updated in this stage; record your work in it with context_write or context_append before moving on.`,
      );
    }
  }
  if (gate.requireNoOpenItems !== undefined) {
    const region = findRegion(state, gate.requireNoOpenItems);
    const open = region ? openItems(region) : [];
    if (open.length > 0) {
      const list = open.map((e) => `#${e.checklist!.id} ${contentText(e.content)}`).join('\n');
      return own(
        'require_no_open_items',
        `Region "${gate.requireNoOpenItems}" still has open items:\n${list}\nClose each with todo_done, or drop it with context_delete, before moving on.`,
      );
    }
  }
  if (gate.requireRegions !== undefined) {
    const empty = gate.requireRegions.filter((name) => isEmpty(findRegion(state, name)));
    if (empty.length > 0) {
      return own(
        'require_regions',
        `These regions are still empty: ${empty.join(', ')}. Fill them with context_write before moving on.`,
      );
    }
  }
  if (gate.requireModifications) {
    const modifying = [...MODIFYING_TOOLS, ...(gate.tools ?? [])].map(canonicalTool);
    const offered = modifying.some((t) => offers(stage, t));
    const regionFilled = gate.region !== undefined && !isEmpty(findRegion(state, gate.region));
    if (offered && !facts.modifyingCallSucceeded && !facts.modifyingCallDenied && !regionFilled) {
      return own(
        'require_modifications',
        `No file has been changed in this stage yet; make the change with ${modifying.join(' or ')} before moving on (edits made through the shell are not tracked).`,
      );
    }
  }
  return null;
}

/**
 * Runs the completion checks for leaving `fromStage` by `edge` (null: the
 * run is ending). A block appends the nudge to `conversation` and counts an
 * attempt; at the cap the failure is forced through and recorded.
 */
export function* evaluateGate(
  state: RunState,
  bp: Blueprint,
  fromStage: string,
  edge: EdgeDef | null,
  facts: GateFacts,
  env: EngineEnv,
): EngineOp<GateOutcome> {
  const stage = stageDef(bp, fromStage);
  const cap = edge === null ? DEFAULT_MAX_ATTEMPTS : (edge.gate?.maxAttempts ?? DEFAULT_MAX_ATTEMPTS);
  let failed = requiredRegionsCheck(state, stage);
  if (!failed && edge?.gate) failed = gateChecks(state, stage, edge.gate, facts);
  if (!failed) return { outcome: 'pass' };

  if (state.attempts < cap) {
    const tokens = yield* count(failed.nudge);
    yield* writeEntry(state, CONVERSATION, { content: failed.nudge, tokens, kind: 'user', runtime: true }, env);
    state.attempts += 1;
    return { outcome: 'block', nudge: failed.nudge, check: failed.check };
  }

  state.gatesForced.push({ stage: fromStage, target: edge?.target ?? null, check: failed.check, detail: failed.nudge });
  addDiagnostic(
    state,
    'gate-forced',
    'warning',
    `stage "${fromStage}" ${edge ? `moved on to "${edge.target}"` : 'ended the run'} after ${state.attempts} blocked attempts although ${failed.check} still failed`,
  );
  for (const name of failed.regions ?? []) {
    if (!state.requiredRegionsAbandoned.includes(name)) state.requiredRegionsAbandoned.push(name);
  }
  return { outcome: 'forced', nudge: failed.nudge, check: failed.check };
}
