/**
 * The tool calls of one reply as steps (`VISIT_SYNC_STEPS`, `src/runtime/steps.ts`): what
 * `tool-calls.ts` does with async functions, in the same order and through the same helpers,
 * waiting only for a person, a tool or an activity an operation needs. Visits recorded before the
 * patch take `tool-calls.ts`'s own, whose microtasks their histories were recorded with.
 */
import { ActivityFailure, isCancellation } from '@temporalio/workflow';
import { contentText, type ToolCall } from '../../src/context/index.js';
import { pathToolHint } from '../../src/context/routing.js';
import type { CallEffect, InferOutput, ToolResultOut } from '../../src/runtime/index.js';
import {
  askTimedOutText,
  deniedText,
  invalidArgumentsText,
  notGrantedText,
  routedCall,
  toolFailedText,
} from '../../src/runtime/index.js';
import { type Steps, wait } from '../../src/runtime/steps.js';
import { toolWorkerGone } from '../tool-worker-watch.js';
import {
  type Asked,
  answerAgent,
  answerQuestion,
  asksOf,
  type CallingVisit,
  type Classified,
  callAnswered,
  callStarted,
  classifyCalls,
  keepTrackedFile,
  rememberInvalid,
  repetitionNudge,
  startBuiltins,
} from './tool-calls.js';

/**
 * `answerCalls` as steps (`VISIT_SYNC_STEPS`, `src/runtime/steps.ts`): the same calls answered in the
 * same order, waiting only for a person, a tool or an activity an operation needs.
 */
export function* answerCallsSteps(v: CallingVisit, reply: InferOutput): Steps<void> {
  for (const bad of reply.invalidToolCalls) {
    yield* routeErrorSteps(v, { id: bad.id, name: bad.name, arguments: {} }, invalidArgumentsText(bad.name, bad.error));
    rememberInvalid(v, bad.name);
  }
  const calls = classifyCalls(v, reply);
  const found = asksOf(v, calls);
  const asked: Asked = {
    ...found,
    decisions:
      found.asks.size === 0 ? new Map() : yield* wait(v.operators.decide([...found.asks.values()], found.timeoutMs)),
  };
  const running = startBuiltins(v, calls, asked);
  const alone = reply.toolCalls.length + reply.invalidToolCalls.length === 1;
  let progressed = false;
  const turn = v.inferences - 1;
  for (const classified of calls) {
    callStarted(v, turn, classified);
    const effect = yield* answerCallSteps(v, classified, running, asked, alone);
    progressed = callAnswered(v, turn, classified, effect, running) || progressed;
  }
  v.closeInference(progressed);
}

function* routeErrorSteps(v: CallingVisit, call: ToolCall, text: string): Steps<void> {
  const tokens = yield* wait(v.driver.count(text));
  yield* wait(v.driver.apply({ kind: 'route', call, result: { content: text, tokens, isError: true } }));
}

/** `answerCall` as steps: a context tool's call, the common one, makes no promise while its counts are at hand. */
function* answerCallSteps(
  v: CallingVisit,
  { call, argTokens, is }: Classified,
  running: Map<string, Promise<ToolResultOut>>,
  asked: Asked,
  alone: boolean,
): Steps<CallEffect> {
  const { driver, input, stage } = v;
  if (is.kind === 'refused') {
    yield* routeErrorSteps(v, call, notGrantedText(input.blueprint, stage, call.name, v.reach?.granted));
    return { kind: 'refused' };
  }
  const ask = asked.asks.get(call.id);
  const decision = asked.decisions.get(call.id);
  if (is.kind === 'question') return yield* wait(answerQuestion(v, call, asked));
  if (ask && decision?.kind !== 'approved') {
    const text =
      decision?.kind === 'denied'
        ? deniedText(ask.subject, decision.note)
        : askTimedOutText(ask, (ask.deadline - ask.since) / 1000);
    yield* routeErrorSteps(v, call, text);
    return { kind: 'builtin', tool: call.name, isError: true, denied: true, modifiedPaths: [] };
  }
  if (is.kind === 'agent') return yield* wait(answerAgent(v, call, alone, decision?.kind === 'approved'));
  if (is.kind === 'context') {
    const readsStored = v.patches.storedArguments;
    const result = yield* wait(
      driver.apply({
        kind: 'contextTool',
        tool: call.name,
        args: call.arguments,
        counts: argTokens,
        ...(call.blobArgs ? { blobArgs: call.blobArgs } : {}),
        ...(readsStored ? { readsStored } : {}),
      }),
    );
    const tokens =
      readsStored && result.tokens !== undefined
        ? result.tokens
        : yield* wait(driver.count(contentText(result.content)));
    yield* wait(
      driver.apply({
        kind: 'route',
        call: routedCall(call),
        result: { content: result.content, tokens, isError: result.isError },
      }),
    );
    return { kind: 'context', tool: call.name, isError: result.isError };
  }
  let result: ToolResultOut;
  try {
    result = yield* wait(running.get(call.id)!);
  } catch (err) {
    // A call given up on for want of a tool worker is answered too; the visit then ends in error.
    const gone = toolWorkerGone(err);
    if (gone === undefined && (!(err instanceof ActivityFailure) || isCancellation(err))) throw err;
    const text = toolFailedText(call.name, gone ?? (err as ActivityFailure).cause?.message ?? (err as Error).message);
    result = {
      content: text,
      tokens: yield* wait(driver.count(text)),
      isError: true,
      modifiedPaths: [],
      denied: false,
    };
  }
  let { content, tokens } = result.tracked ? yield* wait(keepTrackedFile(v, call, result)) : result;
  const hint =
    result.isError && typeof content === 'string'
      ? pathToolHint(driver.state, call.name, call.arguments, content)
      : undefined;
  if (hint) {
    content = `${content}\n${hint}`;
    tokens += yield* wait(driver.count(`\n${hint}`));
  }
  yield* wait(
    driver.apply({ kind: 'route', call: routedCall(call), result: { content, tokens, isError: result.isError } }),
  );
  if (result.output) v.keepOutput(result.output);
  return { kind: 'builtin', tool: call.name, ...result };
}

/**
 * An agent tool: its answer is routed like any tool result. A fan-out
 * stage's `fan_out` call decides the visit: done when its workers ran, one
 * more miss when it was refused.
 */
/** `watchRepetition` as steps: no promise unless it nudges. */
export function* watchRepetitionSteps(v: CallingVisit, reply: InferOutput): Steps<void> {
  const nudge = repetitionNudge(v, reply);
  if (nudge) yield* v.userTurnSteps(nudge);
}
