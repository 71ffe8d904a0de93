/**
 * The two ways a run visits a stage besides a plain child workflow
 * (`AgentRun.visit` picks one): inside the run itself (a fan-out worker's,
 * `inline-visit.ts`), or as a child stage workflow started outside the run's
 * cancellation scope, so that a cancellation reaches the visit's live run by
 * its workflow id. Workflow code: what these start and await is what
 * recorded histories replay.
 */
import {
  ApplicationFailure,
  CancellationScope,
  CancelledFailure,
  ChildWorkflowFailure,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  startChild,
} from '@temporalio/workflow';
import type { RuntimeCode } from '../../src/errors.js';
import type { EventLog } from '../../src/runtime/event-log.js';
import {
  failureCause,
  isHandedOver,
  type StageInput,
  type StageOutcome,
  stageCancelledAloneText,
  stageFailedText,
  visitFailure,
  visitSummary,
} from '../../src/runtime/index.js';
import { handOverSignal } from '../../src/runtime/messages.js';
import type { StageDef } from '../../src/shapes/frozen-blueprint.js';
import { stageWorkflow } from '../visit/stage.js';
import { type ContinuingRun, continueAsNew, continueDue } from './continue-as-new.js';
import { visitInline } from './inline-visit.js';
import type { RunOperators } from './run-operators.js';

/** What of the run its visits read and change (`AgentRun` is one). */
export interface VisitingRun extends ContinuingRun {
  readonly runId: string;
  readonly events: EventLog;
  readonly operators: RunOperators;
  readonly visits: number;
  /** Its visits inside it wait out provider outages (`PROVIDER_PATIENCE`). */
  readonly patient: boolean;
  /** Its visits inside it take the asking tools for the runtime's own (`ASKING_TOOLS_NO_MCP_DISCOVERY`). */
  readonly askingToolsNotMcp: boolean;
  /** Its visits inside it apply engine operations without promises when they can (`RUN_PATCHES_AT_ONCE`). */
  readonly syncOps: boolean;
  /** Its visits inside it of a stage that takes the local shape infer locally (`LOCAL_INFERENCE`). */
  readonly localInference: boolean;
  childId: string | undefined;
  lastFailure: unknown;
  /** Set when the run waits for its tool worker with patience; its visits inside it do too. */
  readonly toolWatch: unknown;
  def(): StageDef;
  showDetails(): void;
  take(stage: string, outcome: StageOutcome): void;
  fail(code: RuntimeCode, message: string, cause?: unknown): Promise<never>;
}

/**
 * A fan-out worker's visit inside the run (docs/reference/sub-agents.md#one-workflow-per-worker):
 * a cancellation of the run reaches it as it reaches the run, and the
 * region set it had then stays with the run. A visit that asks to go on
 * as new goes on as a child stage workflow under the same id.
 */
export async function visitHere(
  run: VisitingRun,
  stage: string,
  workflowId: string,
  input: StageInput,
): Promise<StageOutcome> {
  if (CancellationScope.current().consideredCancelled) throw new CancelledFailure('the run was cancelled');
  const here = await visitInline(workflowId, input, run.def(), run.operators, run.events, () => run.showDetails(), {
    toolPatience: run.toolWatch !== undefined,
    providerPatience: run.patient,
    askingToolsNotMcp: run.askingToolsNotMcp,
    syncOps: run.syncOps,
    localInference: run.localInference,
  });
  if ('thrown' in here) {
    const err = here.thrown;
    if (isCancellation(err)) {
      run.take(stage, here.left);
      throw err;
    }
    const cause = failureCause(err, 'stage-failed');
    return run.fail(cause.code, stageFailedText(stage, cause), err);
  }
  const { end } = here;
  if ('continueWith' in end) {
    run.childId = workflowId;
    return visitRouted(run, stage, workflowId, end.continueWith);
  }
  if (end.end === 'error')
    run.lastFailure = visitFailure(end.error ?? `stage "${stage}" ended in error`, end.errorCode);
  return end;
}

/**
 * A visit started outside the run's cancellation scope: a cancellation of
 * the run reaches it by workflow id, so the live run of the visit gets it
 * after any number of continue-as-new (docs/reference/operators.md#cancellation).
 * A visit that failed in error hands its outcome back as its failure's details.
 */
export async function visitRouted(
  run: VisitingRun,
  stage: string,
  workflowId: string,
  input: StageInput,
): Promise<StageOutcome> {
  // A run cancelled between visits starts none (the start itself is outside the cancellation).
  if (CancellationScope.current().consideredCancelled) throw new CancelledFailure('the run was cancelled');
  input.operators = run.operators.startVisit(workflowId);
  input.visit = run.visits;
  // The visit writes the run's stream from here on; one handed over carries its own tail.
  input.events ??= run.events.handTo(workflowId);
  const child = await CancellationScope.nonCancellable(() =>
    startChild(stageWorkflow, {
      workflowId,
      args: [input],
      staticSummary: visitSummary(stage, run.visits, run.runId),
    }),
  );
  run.showDetails();
  const ended = child.result().then(
    (outcome) => ({ outcome }),
    (error: unknown) => ({ error }),
  );
  let runCancelled = false;
  const cancelled = CancellationScope.current().cancelRequested.then(
    () => false,
    () => {
      runCancelled = true;
      return true;
    },
  );
  // A run whose history grew long asks its visit to hand over at its next turn (src/runtime/continuation.ts).
  let over = false;
  const handOver = run.continues
    ? condition(() => over || continueDue(run)).then(() => (over ? 'over' : 'hand-over'))
    : undefined;
  let first = await Promise.race(handOver ? [ended, cancelled, handOver] : [ended, cancelled]);
  if (first === 'hand-over') {
    await CancellationScope.nonCancellable(() => getExternalWorkflowHandle(workflowId).signal(handOverSignal)).catch(
      () => {},
    );
    first = await Promise.race([ended, cancelled]);
  }
  if (first === true)
    await CancellationScope.nonCancellable(() => getExternalWorkflowHandle(workflowId).cancel()).catch(() => {});
  const end = await ended;
  over = true;
  if ('outcome' in end) {
    const result = end.outcome;
    if (isHandedOver(result)) {
      const handed = result.handedOver;
      // What the visit did not read came back with it; the next run hands it to the visit again.
      run.operators.endVisit(handed.operators);
      if (!runCancelled) return continueAsNew(run, handed);
      // Cancelled as it handed over: the run keeps the region set the visit had and ends CANCELED.
      run.take(stage, { ...handed, end: 'cancelled', finalContent: '', events: handed.events?.next });
      throw new CancelledFailure('the run was cancelled');
    }
    run.operators.endVisit(result.operators);
    return result;
  }
  const err = end.error;
  const failed = err instanceof ChildWorkflowFailure && err.cause instanceof ApplicationFailure ? err.cause : undefined;
  const outcome = failed?.details?.[0] as StageOutcome | undefined;
  if (outcome && typeof outcome === 'object' && outcome.end === 'error') {
    run.operators.endVisit(outcome.operators);
    run.lastFailure = err;
    return outcome;
  }
  const left = run.operators.cancelledOutcome;
  run.operators.endVisit(left?.operators);
  if (isCancellation(err)) {
    if (left) run.take(stage, left);
    // The run was cancelled: its own handler ends it. A visit cancelled alone cannot cancel its run.
    if (runCancelled) throw err;
    return run.fail('stage-cancelled', stageCancelledAloneText(stage, workflowId, run.runId), err);
  }
  const cause = failureCause(err, 'stage-failed');
  return run.fail(cause.code, stageFailedText(stage, cause), err);
}
