/**
 * The edge choice between visits (docs/reference/stages.md): the stage's
 * model is asked which edge to take, and its answer is matched. Workflow
 * code: the `infer` activity it starts is what recorded histories replay.
 */
import { chooseEdge } from '../../src/context/index.js';
import { choiceText, type Departure, unmatchedChoiceDetail } from '../../src/runtime/index.js';
import type { EdgeDef } from '../../src/shapes/frozen-blueprint.js';
import { activities, callOptions } from '../activities.js';
import type { AgentRun } from './run-steps.js';

/** Asks the stage's model which edge to take; an answer naming none takes the first and is recorded. */
export async function askEdge(run: AgentRun, route: Extract<Departure, { kind: 'choose' }>): Promise<EdgeDef | null> {
  const stage = run.driver.stage;
  // A pause holds this inference too (docs/reference/operators.md#pause-and-resume).
  if (run.steerable) await run.operators.holdWhilePaused();
  const reply = await activities.infer.executeWithOptions(callOptions(run.input.options, `edge choice: ${stage}`), [
    {
      runId: run.runId,
      blueprintHash: run.blueprintHash,
      ...run.driver.replayInput(),
      stage,
      turn: run.book.inferences,
      stageTurn: run.book.visitTurns,
      purpose: 'edge-choice',
      question: route.prompt,
      options: route.options,
    },
  ]);
  run.book.inferences++;
  run.book.addUsage(stage, { calls: 1, ...reply.usage });
  const choice = chooseEdge(run.driver.state, run.bp, choiceText(reply.content));
  if (choice.kind === 'end') return null;
  if (choice.unmatched)
    await run.driver.apply({
      kind: 'diagnostic',
      code: 'edge-choice-unmatched',
      severity: 'warning',
      detail: unmatchedChoiceDetail(stage, choice.edge.target),
    });
  return choice.edge;
}
