/**
 * A fan-out worker's stage visit inside the worker's own run, instead of a
 * child stage workflow (docs/reference/sub-agents.md#one-workflow-per-worker):
 * the same turns, with the run's operators taking the visit's reports as
 * calls rather than signals. Workflow code: the visit's activities and
 * operations join the run's history in the order `turns` issues them.
 */

import type { EventLog } from '../../src/runtime/event-log.js';
import type { StageInput, StageOutcome } from '../../src/runtime/index.js';
import { inferenceShape } from '../../src/runtime/inference-shape.js';
import { stageChain } from '../../src/runtime/model-fallback.js';
import { CURRENT_VISIT } from '../../src/runtime/patches.js';
import type { StageDef } from '../../src/shapes/frozen-blueprint.js';
import { type TurnsEnd, turns } from '../visit/stage.js';
import { StageVisit } from '../visit/stage-visit.js';
import type { RunOperators } from './run-operators.js';

/** How a visit inside its run ended: its turns' end, or what it threw with the region set it had then. */
export type InlineEnd = { end: TurnsEnd } | { thrown: unknown; left: StageOutcome };

/**
 * Runs the visit `id` of `def` inside the calling run. Between its start and
 * its end the run's operators forward updates to it directly; what it did
 * not write of the messages goes back to them when it ends, however it ends.
 */
export async function visitInline(
  id: string,
  input: StageInput,
  def: StageDef,
  operators: RunOperators,
  /** The run's event stream, which the visit writes (docs/reference/events.md). */
  events: EventLog,
  changed: () => void,
  /**
   * The patches its run asked for it: what it waits out with patience, its tool worker (`TOOL_WORKER_PATIENCE`)
   * and a provider outage (`PROVIDER_PATIENCE`), how it reads MCP grants (`ASKING_TOOLS_NO_MCP_DISCOVERY`),
   * whether its engine operations make promises only for what an activity answers (`RUN_PATCHES_AT_ONCE`),
   * and whether its inferences may be local (`LOCAL_INFERENCE`).
   */
  patience: {
    toolPatience: boolean;
    providerPatience: boolean;
    askingToolsNotMcp: boolean;
    syncOps: boolean;
    localInference: boolean;
  },
): Promise<InlineEnd> {
  const carry = operators.startVisit(id);
  const patches = {
    ...CURRENT_VISIT,
    ...(patience.toolPatience ? { toolPatience: true } : {}),
    ...(patience.providerPatience ? { patience: true } : {}),
    ...(patience.askingToolsNotMcp ? { askingToolsNotMcp: true } : {}),
    ...(patience.syncOps ? { syncOps: true } : {}),
    ...(patience.localInference && inferenceShape(input.blueprint, stageChain(def)) === 'local'
      ? { localInference: true }
      : {}),
  };
  const visit = new StageVisit({ ...input, operators: carry }, def, patches, {
    events,
    report: (report) => operators.report(report),
    changed,
  });
  operators.hostVisit({ deliver: (forwarded) => visit.operators.receive(forwarded), progress: () => visit.progress() });
  visit.showDetails();
  try {
    const end = await turns(visit, def, visit.input);
    operators.endVisit('continueWith' in end ? end.continueWith.operators : end.operators);
    return { end };
  } catch (thrown) {
    const left = visit.outcome('cancelled');
    operators.endVisit(left.operators);
    return { thrown, left };
  }
}
