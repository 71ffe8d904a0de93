/**
 * One visit of one stage: the inference loop. Render (inside the inference
 * activity), infer, store the assistant turn, run its tool calls, route the
 * results, keep the region set within budget, and repeat until the model
 * answers without tool calls, the iteration cap, an error, or `stuck`.
 * Continues as new when Temporal suggests it or after a turn cap, carrying
 * the region set. Before each inference it takes what people sent through
 * the run (messages, a pause). The steps live in `stage-visit.ts` and
 * `stage-operators.ts`, the decisions in `src/runtime/visit.ts` and
 * `src/runtime/people/`.
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
import type { HandedOver, StageInput, StageOutcome } from '../../src/runtime/index.js';
import {
  checkMessageText,
  handsOver,
  inferenceFailedNote,
  STAGE_KEY,
  stopReason,
  visitGoesOn,
  visitOverBudget,
} from '../../src/runtime/index.js';
import { discoveryRulesDiffer, grantRule, needsDiscovery } from '../../src/runtime/mcp-grants.js';
import { progressQuery, stageMessageSignal } from '../../src/runtime/messages.js';
import {
  ASKING_TOOLS_NO_MCP_DISCOVERY,
  HAND_OVER_READ_LAST,
  INFERENCE_BOOKKEEPING,
  INTERACTION_POINTS,
  MCP_DISCOVERY,
  PROVIDER_PATIENCE,
  REPETITION_DETECTION,
  SAFE_COMMAND_ARGUMENTS,
  STAGE_PATCH,
  STORED_ARGUMENTS,
  TOOL_WORKER_PATIENCE,
  type VisitPatches,
} from '../../src/runtime/patches.js';
import { asksInForms } from '../../src/runtime/people/interaction-points.js';
import { endsWithOutput, fanOutEnd } from '../../src/runtime/stage-modes.js';
import type { StageDef } from '../../src/shapes/frozen-blueprint.js';
import { StageVisit } from './stage-visit.js';
import { answerCalls, watchRepetition } from './tool-calls.js';

export async function stageWorkflow(input: StageInput): Promise<StageOutcome | HandedOver> {
  const def = input.blueprint.stages.find((s) => s.name === input.stage);
  // Every patch is asked here, before anything else runs (src/runtime/patches.ts), in the order histories record them.
  const always = {
    operators: patched(STAGE_PATCH),
    bookkeeping: patched(INFERENCE_BOOKKEEPING),
    storedArguments: patched(STORED_ARGUMENTS),
    repetition: patched(REPETITION_DETECTION),
    patience: patched(PROVIDER_PATIENCE),
    handOverReadLast: patched(HAND_OVER_READ_LAST),
  };
  const asking: Pick<VisitPatches, 'askingToolsNotMcp'> = discoveryRulesDiffer(input.blueprint, input.stage)
    ? { askingToolsNotMcp: patched(ASKING_TOOLS_NO_MCP_DISCOVERY) }
    : {};
  const rule = grantRule(asking.askingToolsNotMcp);
  const patches = {
    ...always,
    ...asking,
    ...(needsDiscovery(input.blueprint, input.stage, rule) ? { reach: patched(MCP_DISCOVERY) } : {}),
    ...(input.options.toolTaskQueue ? { toolPatience: patched(TOOL_WORKER_PATIENCE) } : {}),
    ...(def && asksInForms(def) ? { points: patched(INTERACTION_POINTS) } : {}),
    ...(input.options.unattended ? {} : { safeArguments: patched(SAFE_COMMAND_ARGUMENTS) }),
  };
  const bp = input.blueprint;
  if (!def)
    throw ApplicationFailure.nonRetryable(`no stage "${input.stage}" in blueprint ${bp.agent.name}`, 'unknown-stage');
  const visit = new StageVisit(input, def, patches);
  upsertSearchAttributes([{ key: STAGE_KEY, value: def.name }]);
  setHandler(progressQuery, () => visit.progress());
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
  for (;;) {
    visit.showDetails();
    // The run's own progress follows the visit, throttled (docs/reference/operators.md#the-progress-query).
    if (visit.steerable) visit.operators.reportProgressIfDue();
    const stop = stopReason(def, visit.limits, visit.facts, visit.visitTurns, Date.now());
    if (stop) {
      await visit.note(stop.note);
      return visit.finish(stop.end);
    }
    // A run with a spend cap stops before the inference that would go past it.
    const over = visitOverBudget(input, visit.spent());
    if (over) {
      await visit.note({ region: 'error_report', text: `[budget-exhausted] ${over}` });
      return visit.endInError({ failed: over, code: 'budget-exhausted' });
    }
    // Going on as new (src/runtime/continuation.ts): the run's request is read again once the
    // continuation is ready, since it may come while the log is compacted.
    const asked = visit.operators.handOverAsked;
    const clock = {
      handOverAsked: asked,
      runTurns: visit.runTurns,
      turnsPerRun: input.options.turnsPerRun,
      suggested: workflowInfo().continueAsNewSuggested,
      agentsOpen: visit.agents.open,
    };
    if (visitGoesOn(clock)) {
      await visit.driver.compactLog(true);
      const continueWith = await visit.continuation();
      const handOver = handsOver(asked, visit.operators.handOverAsked, visit.patches.handOverReadLast);
      return { continueWith, ...(handOver ? { handOver } : {}) };
    }
    await visit.beforeInference();
    await visit.maintain();
    const reply = await visit.infer();
    if ('again' in reply) continue;
    if ('failed' in reply) {
      await visit.note(inferenceFailedNote(def.name, reply.failed));
      return visit.endInError(reply);
    }
    // A reply without tool calls ends the stage, unless its mode asks for an answer, a person or a fan-out.
    if (!(await visit.storeReply(reply))) {
      const after = await visit.afterPlainReply();
      if (after === true) return visit.finish('completed');
      // A checkpoint's abort option ends the visit cancelled, and its run with it; an unanswered one, in error.
      if (after !== false)
        return after.kind === 'abort'
          ? visit.finish('cancelled', after.detail)
          : visit.endInError({ failed: after.detail, code: 'checkpoint-unanswered' });
      continue;
    }
    await answerCalls(visit, reply);
    // No tool worker took the calls for the run's patience: the visit ends in error, and so does its run.
    const gone = visit.toolWatch?.gone;
    if (gone !== undefined) {
      await visit.note({ region: 'error_report', text: `[tool-worker-missing] ${gone}` });
      return visit.endInError({ failed: gone, code: 'tool-worker-missing' });
    }
    await watchRepetition(visit, reply);
    if (endsWithOutput(def, visit.facts)) return visit.finish('completed');
    const fanned = fanOutEnd(def, visit.facts);
    if (fanned) return fanned.error ? visit.endInError({ failed: fanned.error }) : visit.finish('completed');
  }
}
