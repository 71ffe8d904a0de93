/**
 * Every decision the two workflows make, as pure functions of plain data:
 * when a visit stops, what counts as progress, which edge a finished visit
 * leaves by, what the run's output is, and the text of the notes the
 * runtime writes into the region set. The workflows only sequence these with
 * activities and engine operations, and the simulator calls the same
 * functions, so a rule has one home and one unit test
 * (`test/runtime/visit.test.ts`). Pure: imported by workflow code.
 */

import { completionEdges, outcomeEdge } from '../context/gates.js';
import { contentText } from '../context/measure.js';
import { CONVERSATION, findRegion, type RunState } from '../context/state.js';
import type { RuntimeCode } from '../error-codes.js';
import type { Content, EntryKind, ToolCall } from '../shapes/content.js';
import type { Blueprint, EdgeDef, StageDef } from '../shapes/frozen-blueprint.js';
import { canonicalTool, MODIFYING_TOOLS } from '../tools/builtin-names.js';
import type { InferOutput } from './activity-types.js';
import type { OpCall } from './ops.js';
import type { StageEnd, VisitFacts } from './types.js';

/** The smallest positive threshold each `stuck` edge of a stage sets; undefined when none does. */
export interface StuckLimits {
  iterations?: number;
  minutes?: number;
  toolCalls?: number;
  sameFileEdits?: number;
}

export function stuckLimits(def: StageDef): StuckLimits {
  const edges = def.transitions.filter((t) => t.condition === 'stuck');
  const min = (pick: (e: EdgeDef) => number | undefined) => {
    const values = edges.map(pick).filter((v): v is number => typeof v === 'number' && v > 0);
    return values.length ? Math.min(...values) : undefined;
  };
  const limits: StuckLimits = {};
  const iterations = min((e) => e.stuckAfterIterations);
  const minutes = min((e) => e.stuckAfterMinutes);
  const toolCalls = min((e) => e.stuckAfterToolCalls);
  const sameFileEdits = min((e) => e.stuckAfterSameFileEdits);
  if (iterations !== undefined) limits.iterations = iterations;
  if (minutes !== undefined) limits.minutes = minutes;
  if (toolCalls !== undefined) limits.toolCalls = toolCalls;
  if (sameFileEdits !== undefined) limits.sameFileEdits = sameFileEdits;
  return limits;
}

/** A new visit's progress facts; `now` is workflow time in milliseconds. */
export function freshFacts(now: number): VisitFacts {
  return {
    modifyingCallSucceeded: false,
    modifyingCallDenied: false,
    idleInferences: 0,
    toolCallsWithoutProgress: 0,
    editsPerPath: {},
    lastProgressAt: now,
  };
}

/** A note the runtime writes before a visit ends: into `region` when the stage shows it, else the conversation. */
export interface RuntimeNote {
  region: 'error_report' | 'stuck_report';
  text: string;
}

export interface Stop {
  end: Extract<StageEnd, 'max_iterations' | 'stuck'>;
  note: RuntimeNote;
}

/**
 * Why the visit must stop before its next inference, or null to go on. The
 * iteration cap wins over the stuck thresholds; `now` is workflow time in
 * milliseconds.
 */
export function stopReason(
  def: StageDef,
  limits: StuckLimits,
  facts: VisitFacts,
  visitTurns: number,
  now: number,
): Stop | null {
  if (def.maxIterations !== undefined && visitTurns >= def.maxIterations)
    return {
      end: 'max_iterations',
      note: {
        region: 'error_report',
        text: `Stage "${def.name}" reached its limit of ${def.maxIterations} inferences.`,
      },
    };
  if (isStuck(limits, facts, now))
    return {
      end: 'stuck',
      note: {
        region: 'stuck_report',
        text: `Stage "${def.name}" made no progress (${facts.idleInferences} inferences, ${facts.toolCallsWithoutProgress} tool calls since the last change).`,
      },
    };
  return null;
}

function isStuck(limits: StuckLimits, facts: VisitFacts, now: number): boolean {
  const { iterations, toolCalls, minutes, sameFileEdits } = limits;
  return (
    (iterations !== undefined && facts.idleInferences >= iterations) ||
    (toolCalls !== undefined && facts.toolCallsWithoutProgress >= toolCalls) ||
    (minutes !== undefined && now - facts.lastProgressAt >= minutes * 60_000) ||
    (sameFileEdits !== undefined && Object.values(facts.editsPerPath).some((n) => n >= sameFileEdits))
  );
}

export function inferenceFailedNote(stage: string, message: string): RuntimeNote {
  return { region: 'error_report', text: `Inference failed in stage "${stage}": ${message}` };
}

/**
 * Where a runtime note goes and as what kind of entry: the preferred
 * region when the current stage shows it, else the conversation as a user
 * turn (so the model reads it in order).
 */
export function noteTarget(state: RunState, preferred: string): { region: string; kind: EntryKind } {
  const region = findRegion(state, preferred);
  return region && !region.hidden ? { region: preferred, kind: 'text' } : { region: CONVERSATION, kind: 'user' };
}

/** Tools whose success is progress in this stage: the built-in writers plus the tools its gates watch. */
export function modifyingTools(def: StageDef): Set<string> {
  return new Set([...MODIFYING_TOOLS, ...def.transitions.flatMap((t) => t.gate?.tools ?? []).map(canonicalTool)]);
}

/** Context tools that only look; every other successful context tool changes the region set. */
const READ_ONLY_CONTEXT_TOOLS: readonly string[] = ['context_read', 'context_list'];

/** What one tool call did, as far as progress is concerned. */
export type CallEffect =
  /** The stage was not given the tool. */
  | { kind: 'refused' }
  | { kind: 'context'; tool: string; isError: boolean }
  /** A sub-agent tool: it did work when it answered without an error. */
  | { kind: 'agent'; tool: string; isError: boolean }
  | {
      kind: 'builtin';
      tool: string;
      isError: boolean;
      denied: boolean;
      modifiedPaths: readonly string[];
      /** What it answered, routed as it came (a blob reference when large), for the run's event stream. */
      content?: Content;
      tokens?: number;
    };

/**
 * Counts one tool call into the visit's facts and says whether it was
 * progress: a context tool that changed the region set, a modifying tool
 * that succeeded, or a sub-agent tool that answered without an error. Every
 * call counts toward `stuck_after_tool_calls`.
 */
export function tallyCall(
  facts: VisitFacts,
  modifying: ReadonlySet<string>,
  effect: CallEffect,
): { facts: VisitFacts; progressed: boolean } {
  const next: VisitFacts = {
    ...facts,
    toolCallsWithoutProgress: facts.toolCallsWithoutProgress + 1,
    calledTools: true,
  };
  if (effect.kind === 'refused') return { facts: next, progressed: false };
  if (effect.kind === 'context')
    return { facts: next, progressed: !effect.isError && !READ_ONLY_CONTEXT_TOOLS.includes(effect.tool) };
  if (effect.kind === 'agent') return { facts: next, progressed: !effect.isError };
  let progressed = false;
  if (modifying.has(canonicalTool(effect.tool))) {
    if (effect.denied) next.modifyingCallDenied = true;
    else if (!effect.isError) {
      next.modifyingCallSucceeded = true;
      progressed = true;
    }
  }
  if (effect.modifiedPaths.length > 0) {
    next.editsPerPath = { ...facts.editsPerPath };
    for (const path of effect.modifiedPaths) next.editsPerPath[path] = (next.editsPerPath[path] ?? 0) + 1;
  }
  return { facts: next, progressed };
}

/**
 * Closes an inference that called tools: progress resets the idle counters
 * and the clock of `stuck_after_minutes`; no progress is one more idle
 * inference. `now` is workflow time in milliseconds.
 */
export function endInference(facts: VisitFacts, progressed: boolean, now: number): VisitFacts {
  return progressed
    ? { ...facts, idleInferences: 0, toolCallsWithoutProgress: 0, lastProgressAt: now }
    : { ...facts, idleInferences: facts.idleInferences + 1 };
}

/** The Web UI's one-line summary of a built-in tool call: the tool and its main argument. */
export function toolCallSummary(call: ToolCall): string {
  const subject = call.arguments.path ?? call.arguments.command ?? call.arguments.pattern ?? '';
  // A stored argument (docs/reference/regions.md#stored-arguments) shows its preview.
  const text = typeof subject === 'object' && subject !== null && 'preview' in subject ? subject.preview : subject;
  return `tool: ${call.name} ${String(text).slice(0, 80)}`.trim();
}

/**
 * How a visit that ended leaves its stage:
 * - `rerun`: run the stage again (a `stuck` visit with no `stuck` edge);
 * - `fail`: end the run with a coded failure;
 * - `leave`: follow `edge`, or end the run when it is null, after the
 *   completion checks when `checks` is set;
 * - `choose`: ask the stage's model `prompt`, answered with one of `options`,
 *   then `chosenEdge` decides.
 * Completion checks run only on a normal completion, never after an error,
 * stuck, the iteration cap or a dead-end route. A visit that ended in error
 * fails the run with the error's code when it has one
 * (docs/reference/operators.md#failure), else `stage-failed`; one whose tool
 * worker never came (`tool-worker-missing`) fails it whatever the edges say,
 * since the next stage would wait for the same workdir
 * (docs/reference/long-runs.md#tool_worker_patience). A checkpoint
 * ends the run whatever the stage's edges: `abort` when a person picked an
 * abort option (the visit ended `cancelled`), `fail` with
 * `checkpoint-unanswered` when nobody answered a point that asks even
 * unattended (docs/reference/interaction.md#what-each-answer-does).
 */
export type Departure =
  | { kind: 'rerun' }
  | { kind: 'abort'; message: string }
  | { kind: 'fail'; code: RuntimeCode; message: string }
  | { kind: 'leave'; edge: EdgeDef | null; checks: boolean }
  | { kind: 'choose'; prompt: string; options: string[]; checks: boolean };

export function departure(
  state: RunState,
  bp: Blueprint,
  end: StageEnd,
  error?: string,
  errorCode?: RuntimeCode,
): Departure {
  const stage = state.stage;
  if (end === 'cancelled') return { kind: 'abort', message: `stage "${stage}": ${error ?? 'the run was aborted'}` };
  if (errorCode === 'checkpoint-unanswered')
    return { kind: 'fail', code: errorCode, message: `stage "${stage}": ${error ?? 'a checkpoint went unanswered'}` };
  const checks = end === 'completed';
  if (end === 'error' && errorCode === 'tool-worker-missing')
    return { kind: 'fail', code: errorCode, message: `stage "${stage}" ended in error: ${error ?? errorCode}` };
  if (end !== 'completed') {
    const route = outcomeEdge(state, bp, end);
    if (route.kind === 'continue') return { kind: 'rerun' };
    if (route.kind === 'fail')
      return {
        kind: 'fail',
        code: errorCode ?? 'stage-failed',
        message: `stage "${stage}" ended with ${end}${error ? ` (${error})` : ''} and has no error or dead_end edge`,
      };
    if (route.kind === 'edge') return { kind: 'leave', edge: route.edge, checks: false };
  }
  const route = completionEdges(state, bp);
  switch (route.kind) {
    case 'end':
      return { kind: 'leave', edge: null, checks };
    case 'take':
      return { kind: 'leave', edge: route.edge, checks };
    case 'dead_end':
      return route.edge
        ? { kind: 'leave', edge: route.edge, checks: false }
        : {
            kind: 'fail',
            code: 'dead-end',
            message: `stage "${stage}" reached a dead end: every edge out of it has used up its revisits, and it has no dead_end or error edge`,
          };
    case 'choose':
      return {
        kind: 'choose',
        prompt: route.prompt,
        options: route.allowComplete ? [...route.edges.map((e) => e.target), 'DONE'] : route.edges.map((e) => e.target),
        checks,
      };
  }
}

/** The diagnostic detail recorded when the model's edge choice named no edge. */
export function unmatchedChoiceDetail(stage: string, target: string): string {
  return `stage "${stage}" answered without naming an edge; took "${target}"`;
}

/** The text of the model's edge-choice reply that `chooseEdge` matches (a blob's preview when large). */
export function choiceText(reply: Content): string {
  return contentText(reply);
}

/**
 * The run's output: the first non-empty entry of a `final_output` region
 * when the blueprint has one with entries, else the last visit's final text.
 */
export function finalOutput(state: RunState, lastVisitContent: Content): Content {
  const final = findRegion(state, 'final_output');
  if (!final || final.entries.length === 0) return lastVisitContent;
  return final.entries.map((e) => e.content).find((c) => c !== '') ?? lastVisitContent;
}

/** Regions the stage just entered shows whose seeds refresh on every stage entry. */
export function eachStageSeeds(state: RunState): string[] {
  return state.regions.filter((r) => !r.hidden && r.def.seed?.refresh === 'each_stage').map((r) => r.name);
}

/**
 * What a custom region's `render` sees as `stage.iteration`: the inferences
 * already made in the current visit, so the first prompt of a visit renders
 * with 0. The runtime passes its visit turn count; the simulator counts the
 * assistant turns since the last stage entry.
 */
export function renderIteration(visitTurns: number): number {
  return visitTurns;
}

/**
 * Operations of this many bytes (as JSON) make the next inference also write a snapshot, so its
 * input carries about one turn of operations (docs/architecture.md#event-sourcing).
 */
export const SNAPSHOT_AFTER_BYTES = 1024;

/** Whether the operation log since the last snapshot is due to be folded into a new one. */
export function snapshotDue(ops: number, opsBytes: number, opsPerSnapshot: number): boolean {
  return ops > 0 && (ops >= opsPerSnapshot || opsBytes >= SNAPSHOT_AFTER_BYTES);
}

/**
 * The call as a route operation records it: routing reads its id, name and `path`, so stored
 * arguments (docs/reference/regions.md#stored-arguments) are left out rather than repeated.
 */
export function routedCall(call: ToolCall): ToolCall {
  if (!call.blobArgs?.length) return call;
  const args = Object.fromEntries(Object.entries(call.arguments).filter(([name]) => !call.blobArgs!.includes(name)));
  return { id: call.id, name: call.name, arguments: args };
}

/**
 * The engine operations that store a reply, in the order the visit applies them: the prompt
 * tokens the provider reported, a diagnostic for each custom render that failed or was cut,
 * then the assistant turn with its calls (an invalid one with empty arguments).
 */
export function replyOps(
  reply: Pick<
    InferOutput,
    'reportedPromptTokens' | 'renderFailures' | 'renderCuts' | 'toolCalls' | 'invalidToolCalls' | 'content' | 'tokens'
  >,
): OpCall[] {
  const calls: ToolCall[] = reply.toolCalls.map(({ argTokens: _counted, ...call }) => call);
  const invalid = reply.invalidToolCalls.map((c) => ({ id: c.id, name: c.name, arguments: {} }));
  return [
    ...(reply.reportedPromptTokens !== undefined
      ? [{ kind: 'usage' as const, promptTokens: reply.reportedPromptTokens }]
      : []),
    ...reply.renderFailures.map((detail) => renderDiagnostic('custom-render-failed', detail)),
    ...(reply.renderCuts ?? []).map((detail) => renderDiagnostic('custom-render-over-budget', detail)),
    {
      kind: 'write',
      region: 'conversation',
      entry: { kind: 'assistant', content: reply.content, tokens: reply.tokens, toolCalls: [...calls, ...invalid] },
    },
  ];
}

function renderDiagnostic(code: 'custom-render-failed' | 'custom-render-over-budget', detail: string): OpCall {
  return { kind: 'diagnostic', code, severity: 'warning', detail };
}
