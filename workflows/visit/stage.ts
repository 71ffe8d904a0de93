/**
 * One visit of one stage: the inference loop. Render (inside the inference
 * activity), infer, store the assistant turn, run its tool calls, route the
 * results, keep the region set within budget, and repeat until the model
 * answers without tool calls, the iteration cap, an error, or `stuck`.
 * Continues as new when Temporal suggests it or after a turn cap, carrying
 * the region set. Before each inference it takes what people sent through
 * the run (messages, a pause). The steps live in `stage-visit.ts` and
 * `stage-operators.ts`, what comes after each point of a turn in
 * `src/runtime/after-turn.ts`, the other decisions in `src/runtime/visit.ts`
 * and `src/runtime/people/`.
 */
import {
  ApplicationFailure,
  continueAsNew,
  isCancellation,
  patched,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { HandedOver, StageInput, StageOutcome, TurnEnd } from '../../src/runtime/index.js';
import {
  afterTurn,
  checkMessageText,
  estimateCost,
  handsOver,
  STAGE_KEY,
  stopReason,
  visitGoesOn,
  visitOverBudget,
} from '../../src/runtime/index.js';
import { inferenceShape } from '../../src/runtime/inference-shape.js';
import { discoveryRulesDiffer, grantRule, needsDiscovery } from '../../src/runtime/mcp-grants.js';
import { eventsQuery, progressQuery, stageMessageSignal } from '../../src/runtime/messages.js';
import { stageChain } from '../../src/runtime/model-fallback.js';
import {
  ASKING_TOOLS_NO_MCP_DISCOVERY,
  CONTEXT_HANDOFFS,
  DYNAMIC_TOOLS,
  EMPTY_RESPONSE_NUDGE,
  HAND_OVER_READ_LAST,
  INFERENCE_BOOKKEEPING,
  INTERACTION_POINTS,
  LOCAL_INFERENCE,
  MCP_DISCOVERY,
  PROVIDER_PATIENCE,
  REPETITION_DETECTION,
  SAFE_COMMAND_ARGUMENTS,
  STABLE_TOOL_LIST,
  STAGE_HOOKS,
  STAGE_PATCH,
  STORED_ARGUMENTS,
  TOOL_WORKER_PATIENCE,
  VISIT_PATCHES_AT_ONCE,
  VISIT_SYNC_STEPS,
  type VisitPatches,
} from '../../src/runtime/patches.js';
import { asksInForms } from '../../src/runtime/people/interaction-points.js';
import { offersRunTools } from '../../src/runtime/run-tools.js';
import { entersStage, hasVisitHooks } from '../../src/runtime/stage-hooks.js';
import { endsWithOutput, fanOutEnd } from '../../src/runtime/stage-modes.js';
import { runSteps, type Steps, wait } from '../../src/runtime/steps.js';
import { turnEnded } from '../../src/runtime/stream-events.js';
import type { StageDef } from '../../src/shapes/frozen-blueprint.js';
import { patchesAtOnce } from '../patch-asker.js';
import { answerCallsSteps, watchRepetitionSteps } from './call-steps.js';
import { runRegionHook } from './point-hooks.js';
import { replyHooks } from './reply-hooks.js';
import { StageVisit } from './stage-visit.js';
import { answerCalls, watchRepetition } from './tool-calls.js';

export async function stageWorkflow(input: StageInput): Promise<StageOutcome | HandedOver> {
  const def = input.blueprint.stages.find((s) => s.name === input.stage);
  // Every patch is asked here, before anything else runs (src/runtime/patches.ts), in the order histories record them;
  // a visit that records VISIT_SYNC_STEPS, or before it VISIT_PATCHES_AT_ONCE, records none of the others.
  const syncSteps = patched(VISIT_SYNC_STEPS);
  const { atOnce, ask } = patchesAtOnce(VISIT_PATCHES_AT_ONCE, syncSteps);
  const always = {
    operators: ask(STAGE_PATCH),
    bookkeeping: ask(INFERENCE_BOOKKEEPING),
    storedArguments: ask(STORED_ARGUMENTS),
    repetition: ask(REPETITION_DETECTION),
    patience: ask(PROVIDER_PATIENCE),
    handOverReadLast: ask(HAND_OVER_READ_LAST),
    syncOps: atOnce,
    ...(syncSteps ? { syncSteps } : {}),
  };
  const asking: Pick<VisitPatches, 'askingToolsNotMcp'> = discoveryRulesDiffer(input.blueprint, input.stage)
    ? { askingToolsNotMcp: ask(ASKING_TOOLS_NO_MCP_DISCOVERY) }
    : {};
  const rule = grantRule(asking.askingToolsNotMcp);
  const patches = {
    ...always,
    ...asking,
    ...(needsDiscovery(input.blueprint, input.stage, rule) ? { reach: ask(MCP_DISCOVERY) } : {}),
    ...(input.options.toolTaskQueue ? { toolPatience: ask(TOOL_WORKER_PATIENCE) } : {}),
    ...(def && asksInForms(def) ? { points: ask(INTERACTION_POINTS) } : {}),
    ...(input.options.unattended ? {} : { safeArguments: ask(SAFE_COMMAND_ARGUMENTS) }),
    ...(def && inferenceShape(input.blueprint, stageChain(def)) === 'local'
      ? { localInference: patched(LOCAL_INFERENCE) }
      : {}),
    ...(def?.nudge ? { nudge: patched(EMPTY_RESPONSE_NUDGE) } : {}),
    ...(hasVisitHooks(def) ? { hooks: patched(STAGE_HOOKS) } : {}),
    ...(input.blueprint.handoffs ? { handoffs: patched(CONTEXT_HANDOFFS) } : {}),
    ...(def?.dynamicTools ? { written: patched(DYNAMIC_TOOLS) } : {}),
    ...(offersRunTools(input.blueprint, input.stage) ? { stableTools: patched(STABLE_TOOL_LIST) } : {}),
  };
  const bp = input.blueprint;
  if (!def)
    throw ApplicationFailure.nonRetryable(`no stage "${input.stage}" in blueprint ${bp.agent.name}`, 'unknown-stage');
  const visit = new StageVisit(input, def, patches);
  upsertSearchAttributes([{ key: STAGE_KEY, value: def.name }]);
  setHandler(progressQuery, () => visit.progress());
  setHandler(eventsQuery, (ask) => visit.events.page(ask));
  setHandler(stageMessageSignal, (arg: unknown) => {
    const text = checkMessageText(arg);
    if (text.ok) visit.inbox.push(text.value);
    else visit.operators.reject(stageMessageSignal.name, text.problem);
  });
  visit.operators.install();
  visit.showDetails();
  try {
    const end = await turns(visit, def, input);
    if ('continueWith' in end)
      // A visit its run asked to hand over ends with its continuation; the run's next run starts it again.
      return end.handOver ? { handedOver: end.continueWith } : continueAsNew<typeof stageWorkflow>(end.continueWith);
    return end;
  } catch (err) {
    if (isCancellation(err)) await visit.reportCancelled();
    throw err;
  }
}

/** How the turns of a visit end: its outcome, or the input its next run goes on from. */
export type TurnsEnd = StageOutcome | { continueWith: StageInput; handOver?: boolean };

/**
 * The visit's turns, in a stage workflow or inside a fan-out worker's run
 * (`inline-visit.ts`); the caller continues the visit where it asks to go on.
 */
export async function turns(visit: StageVisit, def: StageDef, input: StageInput): Promise<TurnsEnd> {
  const stageIndex = input.blueprint.stages.findIndex((s) => s.name === def.name);
  const hook = (event: Parameters<typeof runRegionHook>[3]) =>
    visit.patches.hooks ? runRegionHook(visit, def, stageIndex, event) : Promise.resolve(undefined);
  // Entering the stage: a visit that has made no inference yet and has not entered before it went on as new.
  const entering =
    visit.patches.hooks && def.hooks?.on_stage_enter !== undefined && entersStage(input.visitTurns, visit.facts);
  const refused = entering ? await hook('on_stage_enter') : undefined;
  if (entering) visit.enteredStage();
  for (;;) {
    const step = refused
      ? hookFailed(refused)
      : visit.patches.syncSteps
        ? await runSteps(turnSteps(visit, def, input, stageIndex))
        : await turn(visit, def, input, stageIndex);
    if (step.kind === 'continue') continue;
    if (step.kind === 'go-on-as-new') {
      // The run's request is read again once the continuation is ready, since it may come while the log is compacted.
      await visit.driver.compactLog(true);
      const continueWith = await visit.continuation();
      const handOver = handsOver(step.handOverAsked, visit.operators.handOverAsked, visit.patches.handOverReadLast);
      // A visit that hands over goes on as new with its run; one inside its run (no stream of its own) carries none.
      visit.events.append({ kind: 'continued', workflow: handOver ? 'run' : 'visit', time: Date.now() });
      continueWith.events = input.events ? visit.events.carry() : undefined;
      return { continueWith, ...(handOver ? { handOver } : {}) };
    }
    if (step.note) await visit.note(step.note);
    const exitRefused = step.kind === 'finish' && step.end !== 'cancelled' ? await hook('on_stage_exit') : undefined;
    if (exitRefused) {
      await visit.note({ region: 'error_report', text: `[stage-hook-failed] ${exitRefused}` });
      return visit.endInError({ failed: exitRefused, code: 'stage-hook-failed' });
    }
    if (step.kind === 'finish') return visit.finish(step.end, step.detail);
    return visit.endInError({ failed: step.failed, ...(step.code !== undefined ? { code: step.code } : {}) });
  }
}

/**
 * One turn: at each of its points the facts go to `afterTurn` (`src/runtime/after-turn.ts`),
 * which says whether the turn goes on to its next step or how it ends. A visit recorded before
 * `VISIT_SYNC_STEPS` awaits each step; later ones take `turnSteps`, the same turn without them.
 */
async function turn(visit: StageVisit, def: StageDef, input: StageInput, stageIndex: number): Promise<TurnEnd> {
  visit.showDetails();
  // The run's own progress follows the visit, throttled (docs/reference/operators.md#the-progress-query).
  if (visit.steerable) visit.operators.reportProgressIfDue();
  const handOverAsked = visit.operators.handOverAsked;
  const start = afterTurn({
    at: 'start',
    stop: stopReason(def, visit.limits, visit.facts, visit.visitTurns, Date.now()),
    overBudget: visitOverBudget(input, visit.spent()),
    goesOn: visitGoesOn({
      handOverAsked,
      runTurns: visit.runTurns,
      turnsPerRun: input.options.turnsPerRun,
      suggested: workflowInfo().continueAsNewSuggested,
      agentsOpen: visit.agents.open,
    }),
    handOverAsked,
  });
  if (start.kind !== 'next') return start;
  await visit.beforeInference();
  await visit.maintain();
  const refused = visit.patches.hooks ? await runRegionHook(visit, def, stageIndex, 'before_inference') : undefined;
  if (refused) return hookFailed(refused);
  const at = { stage: def.name, turn: visit.inferences, time: Date.now() };
  visit.events.append({ kind: 'turn-started', ...at });
  const inferred = await visit.infer();
  if ('again' in inferred || 'failed' in inferred)
    return afterTurn({ at: 'no-reply', stage: def.name, reply: inferred });
  const reply = visit.patches.hooks ? await replyHooks(visit, def, stageIndex, inferred) : inferred;
  if ('hookFailed' in reply) return hookFailed(reply.hookFailed);
  const called = await visit.storeReply(reply);
  const usage = { calls: 1, ...reply.usage };
  const cost = estimateCost([{ model: reply.model ?? def.model, usage }], input.blueprint.models).usd;
  visit.events.append(turnEnded({ ...at, time: Date.now() }, reply, visit.progress(), cost));
  if (!called) return afterTurn({ at: 'plain-reply', after: await visit.afterPlainReply() });
  await answerCalls(visit, reply);
  const answered = afterTurn({ at: 'calls-answered', toolWorkerGone: visit.toolWatch?.gone });
  if (answered.kind !== 'next') return answered;
  await watchRepetition(visit, reply);
  return afterTurn({
    at: 'turn-done',
    endsWithOutput: endsWithOutput(def, visit.facts),
    fanOut: fanOutEnd(def, visit.facts),
  });
}

/**
 * `turn` as steps (`VISIT_SYNC_STEPS`, `src/runtime/steps.ts`): the same points in the same order, where a
 * step with nothing to wait for (no person, no paused visit, no fold, no tool, only counts made ahead) makes
 * no promise; the inference and the tools' activities are waited for.
 */
function* turnSteps(visit: StageVisit, def: StageDef, input: StageInput, stageIndex: number): Steps<TurnEnd> {
  visit.showDetails();
  if (visit.steerable) visit.operators.reportProgressIfDue();
  const handOverAsked = visit.operators.handOverAsked;
  const start = afterTurn({
    at: 'start',
    stop: stopReason(def, visit.limits, visit.facts, visit.visitTurns, Date.now()),
    overBudget: visitOverBudget(input, visit.spent()),
    goesOn: visitGoesOn({
      handOverAsked,
      runTurns: visit.runTurns,
      turnsPerRun: input.options.turnsPerRun,
      suggested: workflowInfo().continueAsNewSuggested,
      agentsOpen: visit.agents.open,
    }),
    handOverAsked,
  });
  if (start.kind !== 'next') return start;
  yield* visit.beforeInferenceSteps();
  yield* visit.maintainSteps();
  const refused = visit.patches.hooks
    ? yield* wait(runRegionHook(visit, def, stageIndex, 'before_inference'))
    : undefined;
  if (refused) return hookFailed(refused);
  const at = { stage: def.name, turn: visit.inferences, time: Date.now() };
  visit.events.append({ kind: 'turn-started', ...at });
  const inferred = yield* wait(visit.infer());
  if ('again' in inferred || 'failed' in inferred)
    return afterTurn({ at: 'no-reply', stage: def.name, reply: inferred });
  const reply = visit.patches.hooks ? yield* wait(replyHooks(visit, def, stageIndex, inferred)) : inferred;
  if ('hookFailed' in reply) return hookFailed(reply.hookFailed);
  const called = yield* visit.storeReplySteps(reply);
  const usage = { calls: 1, ...reply.usage };
  const cost = estimateCost([{ model: reply.model ?? def.model, usage }], input.blueprint.models).usd;
  visit.events.append(turnEnded({ ...at, time: Date.now() }, reply, visit.progress(), cost));
  if (!called) return afterTurn({ at: 'plain-reply', after: yield* wait(visit.afterPlainReply()) });
  yield* answerCallsSteps(visit, reply);
  const answered = afterTurn({ at: 'calls-answered', toolWorkerGone: visit.toolWatch?.gone });
  if (answered.kind !== 'next') return answered;
  yield* watchRepetitionSteps(visit, reply);
  return afterTurn({
    at: 'turn-done',
    endsWithOutput: endsWithOutput(def, visit.facts),
    fanOut: fanOutEnd(def, visit.facts),
  });
}

/** A stage hook refused or failed: the visit ends in error, and its run with it. */
function hookFailed(failed: string): TurnEnd {
  return {
    kind: 'fail',
    failed,
    code: 'stage-hook-failed',
    note: { region: 'error_report', text: `[stage-hook-failed] ${failed}` },
  };
}
