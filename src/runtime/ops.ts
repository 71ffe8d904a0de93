/**
 * Event sourcing of the region set. The workflow applies engine operations
 * to its in-memory state and records each one together with the answers it
 * received (token counts, cuts, summaries). An activity rebuilds the same
 * state from a snapshot plus the recorded operations by running the very
 * same engine code with those answers replayed — so each inference call
 * carries only what changed, never the rendered prompt (docs/architecture.md#event-sourcing). Pure: imported by
 * workflow code.
 */

import type {
  Content,
  CustomRegionHooks,
  EngineEnv,
  EngineOp,
  GateFacts,
  GateOutcome,
  MaintenanceReport,
  NewEntry,
  RunState,
  SeedResult,
  StageEntryResult,
  ToolCall,
  WriteResult,
} from '../context/index.js';
import type { RouteResult, ToolOutput } from '../context/routing.js';
import { CONVERSATION } from '../context/state.js';
import type { ArgumentCounts, ContextToolOptions, ToolResult } from '../context/tools.js';
import type { RuntimeCode, Severity } from '../errors.js';
import type { EntryKind } from '../shapes/content.js';
import type { EngineRequest } from '../shapes/engine-requests.js';
import type { Blueprint, EdgeDef } from '../shapes/frozen-blueprint.js';

/** What the workflow did to the region set, replayable against a snapshot. */
export type OpCall =
  | { kind: 'enterStage'; stage: string }
  | { kind: 'write'; region: string; entry: NewEntry }
  | { kind: 'maintain' }
  | ({ kind: 'contextTool'; tool: string; args: unknown; counts: ArgumentCounts } & ContextToolOptions)
  | { kind: 'route'; call: ToolCall; result: ToolOutput }
  | { kind: 'seed'; region: string; texts: SeedEntryText[]; replaceSeeded: boolean }
  | { kind: 'gate'; fromStage: string; target: string | null; facts: GateFacts }
  | { kind: 'transform'; from: string; target: string }
  /** A `summarize` context transform: the region is folded whole at the next maintenance point. */
  | { kind: 'compact'; region: string }
  | { kind: 'usage'; promptTokens: number }
  | { kind: 'diagnostic'; code: RuntimeCode; severity: Severity; detail: string };

/** Where a text the workflow writes goes, and as what kind of entry. */
export interface TextTarget {
  region: string;
  kind: EntryKind;
}

/** A user turn of the conversation. */
export const USER_TURN: TextTarget = { region: CONVERSATION, kind: 'user' };

/**
 * The one write of a text the workflow itself puts into the region set: a
 * note, a reminder, seed context (`runtime`: the runtime's own words), a
 * person's message and a repetition nudge (a user turn as it came), or the
 * context a parent handed its child (stored text by reference). Built
 * here, so every such write records the same operation.
 */
export function textWrite(
  target: TextTarget,
  content: Content,
  tokens: number,
  runtime: boolean,
): Extract<OpCall, { kind: 'write' }> {
  return {
    kind: 'write',
    region: target.region,
    entry: { content, tokens, kind: target.kind, ...(runtime ? { runtime: true } : {}) },
  };
}

export interface SeedEntryText {
  content: Content;
  tokens: number;
  key?: string;
}

/** What each operation answers the workflow; operations that ask nothing answer `undefined`. */
export interface OpResults {
  enterStage: StageEntryResult;
  write: WriteResult;
  maintain: MaintenanceReport;
  contextTool: ToolResult;
  route: RouteResult;
  seed: SeedResult;
  gate: GateOutcome;
  transform: undefined;
  compact: undefined;
  usage: undefined;
  diagnostic: undefined;
}

export type OpKind = OpCall['kind'];
export interface RecordedOp {
  call: OpCall;
  /** Workflow time in seconds when the operation ran. */
  now: number;
  /** Answers to the operation's requests, in the order it asked. */
  answers: unknown[];
}

/** The engine entry points an `OpCall` maps to; injected so this module stays a thin switch. */
export interface EngineCalls {
  enterStage(state: RunState, bp: Blueprint, stage: string, env: EngineEnv): EngineOp<OpResults['enterStage']>;
  writeEntry(state: RunState, region: string, entry: NewEntry, env: EngineEnv): EngineOp<OpResults['write']>;
  maintain(state: RunState, bp: Blueprint, env: EngineEnv): EngineOp<OpResults['maintain']>;
  applyContextTool(
    state: RunState,
    bp: Blueprint,
    tool: string,
    args: unknown,
    env: EngineEnv,
    counts: ArgumentCounts,
    opts: ContextToolOptions,
  ): EngineOp<OpResults['contextTool']>;
  routeToolResult(
    state: RunState,
    bp: Blueprint,
    call: ToolCall,
    result: ToolOutput,
    env: EngineEnv,
  ): EngineOp<OpResults['route']>;
  seedRegion(
    state: RunState,
    region: string,
    texts: SeedEntryText[],
    env: EngineEnv,
    opts: { replaceSeeded: boolean },
  ): EngineOp<OpResults['seed']>;
  evaluateGate(
    state: RunState,
    bp: Blueprint,
    fromStage: string,
    edge: EdgeDef | null,
    facts: GateFacts,
    env: EngineEnv,
  ): EngineOp<OpResults['gate']>;
  applyTransform(state: RunState, bp: Blueprint, edge: EdgeDef): void;
  markForFold(state: RunState, region: string): void;
  recordUsage(state: RunState, promptTokens: number): void;
  addDiagnostic(state: RunState, code: RuntimeCode, severity: Severity, detail: string): void;
}

export function findEdge(bp: Blueprint, from: string, target: string): EdgeDef {
  const edge = bp.stages.find((s) => s.name === from)?.transitions.find((t) => t.target === target);
  if (!edge) throw new Error(`no edge ${from} -> ${target} in blueprint ${bp.agent.name}`);
  return edge;
}

/** The operation's generator, or its synchronous effect for the few calls that ask nothing. */
export function opGenerator<C extends OpCall>(
  engine: EngineCalls,
  state: RunState,
  bp: Blueprint,
  call: C,
  env: EngineEnv,
): EngineOp<OpResults[C['kind']]> | null {
  // TypeScript cannot narrow a generic through the switch below; each branch returns `OpResults[call.kind]`.
  return generatorOf(engine, state, bp, call, env) as EngineOp<OpResults[C['kind']]> | null;
}

/** The untyped switch behind `opGenerator`; each branch's result type is `OpResults[call.kind]`. */
function generatorOf(
  engine: EngineCalls,
  state: RunState,
  bp: Blueprint,
  call: OpCall,
  env: EngineEnv,
): EngineOp<OpResults[OpKind]> | null {
  switch (call.kind) {
    case 'enterStage':
      return engine.enterStage(state, bp, call.stage, env);
    case 'write':
      return engine.writeEntry(state, call.region, call.entry, env);
    case 'maintain':
      return engine.maintain(state, bp, env);
    case 'contextTool': {
      // Operations recorded before stored arguments carry neither option (docs/reference/regions.md#stored-arguments).
      const opts: ContextToolOptions = {};
      if (call.blobArgs) opts.blobArgs = call.blobArgs;
      if (call.readsStored) opts.readsStored = true;
      return engine.applyContextTool(state, bp, call.tool, call.args, env, call.counts, opts);
    }
    case 'route':
      return engine.routeToolResult(state, bp, call.call, call.result, env);
    case 'seed':
      return engine.seedRegion(state, call.region, call.texts, env, { replaceSeeded: call.replaceSeeded });
    case 'gate': {
      const edge = call.target === null ? null : findEdge(bp, call.fromStage, call.target);
      return engine.evaluateGate(state, bp, call.fromStage, edge, call.facts, env);
    }
    case 'transform':
      engine.applyTransform(state, bp, findEdge(bp, call.from, call.target));
      return null;
    case 'compact':
      engine.markForFold(state, call.region);
      return null;
    case 'usage':
      engine.recordUsage(state, call.promptTokens);
      return null;
    case 'diagnostic':
      engine.addDiagnostic(state, call.code, call.severity, call.detail);
      return null;
  }
}

/** Re-applies recorded operations with their recorded answers (activity side). */
export function replayOps(
  engine: EngineCalls,
  state: RunState,
  bp: Blueprint,
  ops: readonly RecordedOp[],
  hooks?: (region: string) => CustomRegionHooks | undefined,
): void {
  for (const op of ops) {
    const env: EngineEnv = { now: op.now, ...(hooks ? { hooks } : {}) };
    const gen = opGenerator(engine, state, bp, op.call, env);
    if (!gen) continue;
    let i = 0;
    let step = gen.next();
    while (!step.done) {
      if (i >= op.answers.length)
        throw new Error(`replay of ${op.call.kind} asked more than the ${op.answers.length} recorded answers`);
      step = gen.next(op.answers[i++]);
    }
  }
}

/**
 * Applies an operation live (workflow side), answering its requests through
 * `answer`, and returns the result plus the record to replay it later.
 */
export async function applyLive<C extends OpCall>(
  engine: EngineCalls,
  state: RunState,
  bp: Blueprint,
  call: C,
  env: EngineEnv,
  answer: (req: EngineRequest) => Promise<unknown>,
): Promise<{ result: OpResults[C['kind']]; record: RecordedOp }> {
  const answers: unknown[] = [];
  const gen = opGenerator(engine, state, bp, call, env);
  let result: OpResults[C['kind']] | undefined;
  if (gen) {
    let step = gen.next();
    while (!step.done) {
      const a = await answer(step.value);
      answers.push(a);
      step = gen.next(a);
    }
    result = step.value;
  }
  // Only the operations that ask nothing have no generator, and their result type is `undefined`.
  return { result: result as OpResults[C['kind']], record: { call, now: env.now, answers } };
}

/** A value at hand, or a promise of it when an activity must answer first. */
export type NowOrLater<T> = T | Promise<T>;

/** Whether `value` is still to come. */
export function isLater<T>(value: NowOrLater<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/**
 * `applyLive` that makes no promise while every request is answered at hand
 * (counts made ahead): in workflow code each promise costs the SDK's promise
 * hook a stack trace, and most operations of a turn ask nothing an activity
 * must answer (docs/architecture.md#event-sourcing). It goes on later only
 * from the first answer that is a promise; the result and the record are
 * the same as `applyLive`'s.
 */
export function applyNow<C extends OpCall>(
  engine: EngineCalls,
  state: RunState,
  bp: Blueprint,
  call: C,
  env: EngineEnv,
  answer: (req: EngineRequest) => NowOrLater<unknown>,
): NowOrLater<{ result: OpResults[C['kind']]; record: RecordedOp }> {
  const answers: unknown[] = [];
  const record: RecordedOp = { call, now: env.now, answers };
  const gen = opGenerator(engine, state, bp, call, env);
  // Only the operations that ask nothing have no generator, and their result type is `undefined`.
  if (!gen) return { result: undefined as OpResults[C['kind']], record };
  const drive = (
    step: IteratorResult<EngineRequest, OpResults[C['kind']]>,
  ): NowOrLater<{ result: OpResults[C['kind']]; record: RecordedOp }> => {
    while (!step.done) {
      const a = answer(step.value);
      if (isLater(a))
        return a.then((value) => {
          answers.push(value);
          return drive(gen.next(value));
        });
      answers.push(a);
      step = gen.next(a);
    }
    return { result: step.value, record };
  };
  return drive(gen.next());
}
