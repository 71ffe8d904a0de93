/**
 * The tool calls of one reply (`StageVisit.answerCalls`): each call is
 * classified once (`classifyCall` in `src/runtime/calls.ts`), then the
 * visit asks people about the calls that need them, starts the built-ins,
 * and answers every call in call order. Workflow code: that order (asks
 * first, then the built-ins started together, then the answers in order) is
 * what recorded histories replay. The same steps without promises, for visits that record
 * `VISIT_SYNC_STEPS`, are in `call-steps.ts`.
 */
import { ActivityFailure, isCancellation } from '@temporalio/workflow';
import { contentText, type ToolCall } from '../../src/context/index.js';
import { pathToolHint } from '../../src/context/routing.js';
import type { DiscoveredTools } from '../../src/mcp/tool-names.js';
import type { FoundTools } from '../../src/runtime/activity-types.js';
import type { EventLog } from '../../src/runtime/event-log.js';
import type {
  AskDecision,
  CallClass,
  CallEffect,
  InferOutput,
  PendingAsk,
  RepetitionWatch,
  RuntimeNote,
  StageInput,
  SubmittedOutput,
  ToolResultOut,
} from '../../src/runtime/index.js';
import {
  ASK_USER,
  agentCallRefusal,
  askTimedOutText,
  callSubject,
  canonicalTool,
  classifyCall,
  DEFAULT_ASK_TIMEOUT_SECS,
  deniedText,
  FAN_OUT,
  invalidArgumentsText,
  isPersonTool,
  notGrantedText,
  questionResult,
  questionWaits,
  routedCall,
  toolAsk,
  toolCallSummary,
  toolFailedText,
  trackedPointer,
  workflowToolCall,
} from '../../src/runtime/index.js';
import { grantRule, needsDiscovery } from '../../src/runtime/mcp-grants.js';
import type { VisitPatches } from '../../src/runtime/patches.js';
import { repetitionConfig, watchCalls } from '../../src/runtime/repetition.js';
import type { Steps } from '../../src/runtime/steps.js';
import { toolAnswered, toolCalled } from '../../src/runtime/stream-events.js';
import type { StageDef } from '../../src/shapes/frozen-blueprint.js';
import { activities, toolOptions } from '../activities.js';
import type { SubAgents } from '../agents/sub-agents.js';
import type { EngineDriver } from '../engine-driver.js';
import { emit } from '../meter.js';
import { onToolWorker, type ToolWorkerWatch, toolWorkerGone } from '../tool-worker-watch.js';
import type { StageOperators } from './stage-operators.js';

/** What of the visit its tool calls read and change (`StageVisit` is one). */
export interface CallingVisit {
  readonly input: StageInput;
  /** The visit's event stream (docs/reference/events.md); `inferences` is one past the turn whose calls it answers. */
  readonly events: EventLog;
  readonly inferences: number;
  readonly def: StageDef;
  readonly stage: string;
  readonly driver: EngineDriver;
  readonly patches: VisitPatches;
  readonly modifying: Set<string>;
  readonly operators: Pick<StageOperators, 'decide'>;
  readonly agents: Pick<SubAgents, 'answer'>;
  readonly facts: StageInput['facts'];
  /** What the MCP servers offered the visit (docs/reference/mcp.md#discovery); unset when it asked none. */
  readonly reach?: DiscoveredTools;
  /** What the workdir's `tools/` offered the turn whose calls it answers (docs/reference/script-tools.md#tools-a-run-writes). */
  readonly written?: FoundTools;
  /** Its patience with the workdir's tool worker; unset in a visit recorded before it. */
  readonly toolWatch: ToolWorkerWatch | undefined;
  userTurn(text: string): Promise<void>;
  /** `userTurn` as steps (`VISIT_SYNC_STEPS`). */
  userTurnSteps(text: string): Steps<void>;
  note(note: RuntimeNote): Promise<void>;
  fanOutEmpty(detail: string): Promise<void>;
  // The transitions of the visit's state its calls make (`StageVisit`).
  countCall(effect: CallEffect): boolean;
  closeInference(progressed: boolean): void;
  rememberCall(call: Pick<ToolCall, 'name' | 'arguments'>, ok: boolean): void;
  keepOutput(output: Omit<SubmittedOutput, 'stage'>): void;
  fanOutRan(failed: string | undefined): void;
  missFanOut(): { gaveUp?: string };
  keepRepetition(watch: RepetitionWatch): void;
  discovered(reach: DiscoveredTools): void;
  scanned(found: FoundTools): void;
}

/** One call of the reply with what it is. */
export interface Classified {
  call: ToolCall;
  argTokens: InferOutput['toolCalls'][number]['argTokens'];
  is: CallClass;
}

/** What people decided about the asks of one reply, and the questions that could not be put. */
export interface Asked {
  asks: Map<string, PendingAsk>;
  decisions: Map<string, AskDecision>;
  refused: Map<string, string>;
}

/**
 * Answers every call of the reply, in call order, and closes the inference's progress facts;
 * the steps of a visit recorded before `VISIT_SYNC_STEPS`, which awaits each of them.
 */
export async function answerCalls(v: CallingVisit, reply: InferOutput): Promise<void> {
  for (const bad of reply.invalidToolCalls) {
    await routeError(v, { id: bad.id, name: bad.name, arguments: {} }, invalidArgumentsText(bad.name, bad.error));
    rememberInvalid(v, bad.name);
  }
  const calls = classifyCalls(v, reply);
  const asked = await askPeople(v, calls);
  const running = startBuiltins(v, calls, asked);
  const alone = reply.toolCalls.length + reply.invalidToolCalls.length === 1;
  let progressed = false;
  const turn = v.inferences - 1;
  for (const classified of calls) {
    callStarted(v, turn, classified);
    const effect = await answerCall(v, classified, running, asked, alone);
    progressed = callAnswered(v, turn, classified, effect, running) || progressed;
  }
  v.closeInference(progressed);
}

export function rememberInvalid(v: CallingVisit, name: string): void {
  v.rememberCall({ name, arguments: {} }, false);
  emit([workflowToolCall(name, 'invalid', false)]);
}

/** Each call of the reply with what it is. */
export function classifyCalls(v: CallingVisit, reply: InferOutput): Classified[] {
  const { blueprint, options } = v.input;
  return reply.toolCalls.map(({ argTokens, ...call }) => ({
    call,
    argTokens,
    // A visit recorded before the other forms of question refused them, as the stage was not given them.
    is:
      isPersonTool(call.name) && canonicalTool(call.name) !== ASK_USER && !v.patches.points
        ? { kind: 'refused' }
        : classifyCall(
            blueprint,
            v.stage,
            call,
            options.unattended,
            v.reach?.granted,
            v.patches.safeArguments ? 'arguments' : 'keys',
          ),
  }));
}

export function callStarted(v: CallingVisit, turn: number, classified: Classified): void {
  v.events.append(toolCalled({ stage: v.stage, turn, time: Date.now() }, classified.call));
}

/** A call answered: told to the stream, counted, remembered and metered; true when it made progress. */
export function callAnswered(
  v: CallingVisit,
  turn: number,
  classified: Classified,
  effect: CallEffect,
  running: Map<string, Promise<ToolResultOut>>,
): boolean {
  v.events.append(toolAnswered({ stage: v.stage, turn, time: Date.now() }, classified.call, effect));
  const progressed = v.countCall(effect);
  v.rememberCall(classified.call, effect.kind !== 'refused' && !effect.isError);
  // The tool activity counts the calls it runs; the workflow counts those it answers itself.
  emit([workflowToolCall(classified.call.name, effect, running.has(classified.call.id))]);
  return progressed;
}

/**
 * The calls of the reply that need a person (an `ask` permission in an
 * attended run, a question of a tool that waits for a person) wait for
 * their decisions together, up to `[run] ask_timeout`
 * (docs/reference/operators.md#approve-and-deny, docs/reference/interaction.md#the-asking-tools).
 */
async function askPeople(v: CallingVisit, calls: readonly Classified[]): Promise<Asked> {
  const { asks, refused, timeoutMs } = asksOf(v, calls);
  if (asks.size === 0) return { asks, decisions: new Map(), refused };
  return { asks, decisions: await v.operators.decide([...asks.values()], timeoutMs), refused };
}

/** The asks of the reply's calls, and the questions that could not be put. */
export function asksOf(
  v: CallingVisit,
  calls: readonly Classified[],
): Omit<Asked, 'decisions'> & { timeoutMs: number } {
  const bp = v.input.blueprint;
  const asks = new Map<string, PendingAsk>();
  const refused = new Map<string, string>();
  const timeoutSecs = bp.run?.askTimeoutSecs ?? DEFAULT_ASK_TIMEOUT_SECS;
  const since = Date.now();
  const at = { since, deadline: since + timeoutSecs * 1000 };
  for (const { call, is } of calls) {
    if (is.kind === 'question') {
      if (!questionWaits(bp, v.stage, call.name, v.input.options.unattended)) continue;
      const question = toolAsk(call, at);
      if ('refused' in question) refused.set(call.id, question.refused);
      else asks.set(call.id, question);
    } else if ((is.kind === 'agent' || is.kind === 'builtin') && is.approval)
      asks.set(call.id, {
        kind: 'approval',
        tool: canonicalTool(call.name),
        subject: callSubject(call),
        call: call.id,
        ...at,
      });
  }
  return { asks, refused, timeoutMs: timeoutSecs * 1000 };
}

/** Built-in tools are independent of each other: start them all now, store their results in call order. */
export function startBuiltins(
  v: CallingVisit,
  calls: readonly Classified[],
  asked: Asked,
): Map<string, Promise<ToolResultOut>> {
  const { input, stage } = v;
  const running = new Map<string, Promise<ToolResultOut>>();
  for (const { call, is } of calls) {
    if (is.kind !== 'builtin') continue;
    const approved = asked.decisions.get(call.id)?.kind === 'approved';
    // A call that waited and was not approved does not run.
    if (asked.asks.has(call.id) && !approved) continue;
    const tool = {
      runId: input.runId,
      blueprintHash: input.blueprintHash,
      stage,
      call,
      workdir: input.workdir,
      unattended: input.options.unattended,
      ...(approved ? { approved: true } : {}),
      ...(input.lineage?.ceiling.length ? { ceiling: input.lineage.ceiling } : {}),
      ...(v.reach ? { catalog: v.reach.catalog } : {}),
      ...(v.written?.offered ? { written: v.written.offered } : {}),
    };
    const result = onToolWorker(v.toolWatch, toolOptions(input.options, toolCallSummary(call)), (options, before) =>
      activities.runTool.executeWithOptions(options, [before > 0 ? { ...tool, attemptsBefore: before } : tool]),
    );
    // Each result is awaited in call order; one that fails before its turn must not count as unhandled.
    result.catch(() => {});
    running.set(call.id, result);
  }
  return running;
}

async function routeError(v: CallingVisit, call: ToolCall, text: string): Promise<void> {
  await v.driver.apply({
    kind: 'route',
    call,
    result: { content: text, tokens: await v.driver.count(text), isError: true },
  });
}

async function answerCall(
  v: CallingVisit,
  { call, argTokens, is }: Classified,
  running: Map<string, Promise<ToolResultOut>>,
  asked: Asked,
  alone: boolean,
): Promise<CallEffect> {
  const { driver, input, stage } = v;
  if (is.kind === 'refused') {
    await routeError(v, call, notGrantedText(input.blueprint, stage, call.name, v.reach?.granted));
    return { kind: 'refused' };
  }
  const ask = asked.asks.get(call.id);
  const decision = asked.decisions.get(call.id);
  if (is.kind === 'question') return answerQuestion(v, call, asked);
  if (ask && decision?.kind !== 'approved') {
    const text =
      decision?.kind === 'denied'
        ? deniedText(ask.subject, decision.note)
        : askTimedOutText(ask, (ask.deadline - ask.since) / 1000);
    await routeError(v, call, text);
    return { kind: 'builtin', tool: call.name, isError: true, denied: true, modifiedPaths: [] };
  }
  if (is.kind === 'agent') return answerAgent(v, call, alone, decision?.kind === 'approved');
  if (is.kind === 'context') {
    const readsStored = v.patches.storedArguments;
    const result = await driver.apply({
      kind: 'contextTool',
      tool: call.name,
      args: call.arguments,
      counts: argTokens,
      ...(call.blobArgs ? { blobArgs: call.blobArgs } : {}),
      ...(readsStored ? { readsStored } : {}),
    });
    const tokens =
      readsStored && result.tokens !== undefined ? result.tokens : await driver.count(contentText(result.content));
    await driver.apply({
      kind: 'route',
      call: routedCall(call),
      result: { content: result.content, tokens, isError: result.isError },
    });
    return { kind: 'context', tool: call.name, isError: result.isError };
  }
  let result: ToolResultOut;
  try {
    result = await running.get(call.id)!;
  } catch (err) {
    // A call given up on for want of a tool worker is answered too; the visit then ends in error.
    const gone = toolWorkerGone(err);
    if (gone === undefined && (!(err instanceof ActivityFailure) || isCancellation(err))) throw err;
    const text = toolFailedText(call.name, gone ?? (err as ActivityFailure).cause?.message ?? (err as Error).message);
    result = { content: text, tokens: await driver.count(text), isError: true, modifiedPaths: [], denied: false };
  }
  let { content, tokens } = await keepTrackedFile(v, call, result);
  const hint =
    result.isError && typeof content === 'string'
      ? pathToolHint(driver.state, call.name, call.arguments, content)
      : undefined;
  if (hint) {
    content = `${content}\n${hint}`;
    tokens += await driver.count(`\n${hint}`);
  }
  await driver.apply({ kind: 'route', call: routedCall(call), result: { content, tokens, isError: result.isError } });
  if (result.output) v.keepOutput(result.output);
  return { kind: 'builtin', tool: call.name, ...result };
}

export async function answerAgent(
  v: CallingVisit,
  call: ToolCall,
  alone: boolean,
  approved: boolean,
): Promise<CallEffect> {
  const { input, stage, driver } = v;
  const refusal = agentCallRefusal(input.blueprint, stage, call, input.ceilings, approved, input.options.unattended);
  if (refusal !== undefined) {
    await routeError(v, call, refusal);
    return { kind: 'agent', tool: call.name, isError: true };
  }
  const answer = await v.agents.answer(call, alone);
  const { content } = answer;
  const tokens = answer.tokens ?? (await driver.count(typeof content === 'string' ? content : content.preview));
  await driver.apply({ kind: 'route', call, result: { content, tokens, isError: answer.isError } });
  if (v.def.fanOut && call.name === FAN_OUT && !v.facts.fanOutDone) {
    if (answer.fannedOut) {
      const failed = answer.isError ? `a worker of stage "${stage}" failed, so its fan-out failed` : undefined;
      v.fanOutRan(failed);
      if (failed) {
        await driver.apply({ kind: 'diagnostic', code: 'fan-out-failed', severity: 'warning', detail: failed });
        await v.note({ region: 'error_report', text: `[fan-out-failed] ${failed}; the report names the worker.` });
      }
    } else {
      const missed = v.missFanOut();
      if (missed.gaveUp) await v.fanOutEmpty(missed.gaveUp);
    }
  }
  return { kind: 'agent', tool: call.name, isError: answer.isError };
}

/** The result of a question: the person's answer in its tool's words, or why there is none. */
export async function answerQuestion(v: CallingVisit, call: ToolCall, asked: Asked): Promise<CallEffect> {
  const ask = asked.asks.get(call.id);
  const decision = asked.decisions.get(call.id);
  const refused = asked.refused.get(call.id);
  const { text, isError } = questionResult({
    ...(ask ? { ask } : {}),
    ...(decision?.kind === 'answered' ? { answered: decision.text } : {}),
    ...(refused !== undefined ? { refused } : {}),
    waited: questionWaits(v.input.blueprint, v.stage, call.name, v.input.options.unattended),
  });
  await v.driver.apply({ kind: 'route', call, result: { content: text, tokens: await v.driver.count(text), isError } });
  return { kind: 'builtin', tool: canonicalTool(call.name), isError, denied: false, modifiedPaths: [] };
}

/** Stores a tracked file's text in the file-tracking region; the model gets a pointer to it instead. */
export async function keepTrackedFile(
  v: CallingVisit,
  call: ToolCall,
  result: ToolResultOut,
): Promise<Pick<ToolResultOut, 'content' | 'tokens'>> {
  const tracking = v.input.blueprint.fileTracking;
  if (!result.tracked || !tracking) return result;
  const { key, content, tokens } = result.tracked;
  const stored = await v.driver.apply({ kind: 'write', region: tracking.region, entry: { content, tokens, key } });
  if (!stored.ok) return result;
  const pointer = trackedPointer(call.name, key, tokens, tracking.region);
  return { content: pointer, tokens: await v.driver.count(pointer) };
}

/** Once per visit of a stage that grants MCP tools: the servers' tools, recorded (`MCP_DISCOVERY`). */
export async function discoverTools(v: CallingVisit): Promise<void> {
  const { input, stage } = v;
  if (v.reach || !v.patches.reach || !needsDiscovery(input.blueprint, stage, grantRule(v.patches.askingToolsNotMcp)))
    return;
  const discover = { runId: input.runId, blueprintHash: input.blueprintHash, stage, workdir: input.workdir };
  // Given up on for want of a tool worker, the visit fails `tool-worker-missing`, and so does its run.
  v.discovered(
    await onToolWorker(v.toolWatch, toolOptions(input.options, `tool discovery: ${stage}`), (options) =>
      activities.discoverTools.executeWithOptions(options, [discover]),
    ),
  );
}

/**
 * Before each turn of a visit that asked `DYNAMIC_TOOLS`: what the workdir's
 * `tools/` offers it, read on the run's tool queue and recorded as one hash
 * (docs/reference/script-tools.md#tools-a-run-writes).
 */
export async function scanTools(v: CallingVisit): Promise<void> {
  const { input, stage } = v;
  if (!v.patches.written || !v.def.dynamicTools) return;
  const scan = { runId: input.runId, blueprintHash: input.blueprintHash, stage, workdir: input.workdir };
  v.scanned(
    await onToolWorker(v.toolWatch, toolOptions(input.options, `tool scan: ${stage}`), (options) =>
      activities.scanTools.executeWithOptions(options, [scan]),
    ),
  );
}

/**
 * `[repetition_detection]` after a turn's calls: a visit going in circles
 * gets a `[System]` note before its next inference (docs/reference/long-runs.md#repetition-detection).
 */
export async function watchRepetition(v: CallingVisit, reply: InferOutput): Promise<void> {
  const nudge = repetitionNudge(v, reply);
  if (nudge) await v.userTurn(nudge);
}

/** Where the watch stands after the reply's calls, kept; the nudge it gives, if any. */
export function repetitionNudge(v: CallingVisit, reply: InferOutput): string | undefined {
  if (!v.patches.repetition) return undefined;
  const calls = reply.toolCalls.map(({ name, arguments: args }) => ({ name, arguments: args }));
  const seen = watchCalls(v.facts.repetition, calls, v.modifying, repetitionConfig(v.input.blueprint));
  v.keepRepetition(seen.watch);
  return seen.nudge;
}
