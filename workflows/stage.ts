/**
 * One visit of one stage: the inference loop. Render (inside the inference
 * activity), infer, store the assistant turn, run its tool calls, route the
 * results, keep the region set within budget, and repeat until the model
 * answers without tool calls, the iteration cap, an error, or `stuck`.
 * Continues as new when Temporal suggests it or after a turn cap, carrying
 * the region set. The steps live in `stage-visit.ts`, the decisions in
 * `src/runtime/visit.ts`.
 */
import {
  ApplicationFailure,
  continueAsNew,
  defineQuery,
  defineSignal,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Progress, StageInput, StageOutcome } from '../src/runtime/index.js';
import { inferenceFailedNote, STAGE_KEY, stopReason } from '../src/runtime/index.js';
import { endsWithOutput, fanOutEnd } from '../src/runtime/stage-modes.js';
import { StageVisit } from './stage-visit.js';

export const stageProgressQuery = defineQuery<Progress>('progress');
/** A person's reply to an interactive stage; `lev run` sends it from its terminal. */
export const messageSignal = defineSignal<[string]>('message');

export async function stageWorkflow(input: StageInput): Promise<StageOutcome> {
  const bp = input.blueprint;
  const def = bp.stages.find((s) => s.name === input.stage);
  if (!def)
    throw ApplicationFailure.nonRetryable(`no stage "${input.stage}" in blueprint ${bp.agent.name}`, 'unknown-stage');
  const visit = new StageVisit(input, def);
  upsertSearchAttributes([{ key: STAGE_KEY, value: def.name }]);
  setHandler(stageProgressQuery, () => visit.progress());
  setHandler(messageSignal, (text) => void visit.inbox.push(text));

  for (;;) {
    const stop = stopReason(def, visit.limits, visit.facts, visit.visitTurns, Date.now());
    if (stop) {
      await visit.note(stop.note);
      return visit.finish(stop.end);
    }
    // A run holding agents it started cannot continue as new: they are its children.
    if (!visit.agents.open && (visit.runTurns >= input.options.turnsPerRun || workflowInfo().continueAsNewSuggested)) {
      await visit.driver.compactLog(true);
      return continueAsNew<typeof stageWorkflow>(visit.continuation());
    }
    await visit.maintain();
    const reply = await visit.infer();
    if ('fallback' in reply) continue;
    if ('failed' in reply) {
      await visit.note(inferenceFailedNote(def.name, reply.failed));
      return visit.finish('error', reply.failed);
    }
    // A reply without tool calls ends the stage, unless its mode asks for an answer, a person or a fan-out.
    if (!(await visit.storeReply(reply))) {
      if (await visit.afterPlainReply()) return visit.finish('completed');
      continue;
    }
    await visit.answerCalls(reply);
    if (endsWithOutput(def, visit.facts)) return visit.finish('completed');
    const fanned = fanOutEnd(def, visit.facts);
    if (fanned) return visit.finish(fanned.end, fanned.error);
  }
}
