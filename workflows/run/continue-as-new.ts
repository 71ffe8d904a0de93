/**
 * A run whose history grew long goes on as a fresh run of the same workflow
 * id (docs/reference/long-runs.md#the-run-continues-as-new): between visits,
 * or when its live visit hands over. The decisions are
 * `src/runtime/continuation.ts`'s; this file sequences them. A run started by a person or a
 * schedule goes on on its Worker Deployment's current version (docs/reference/operating.md#safe-deploys).
 * Workflow code.
 */
import {
  allHandlersFinished,
  CancellationScope,
  CancelledFailure,
  condition,
  makeContinueAsNewFunc,
  workflowInfo,
} from '@temporalio/workflow';
import type { RuntimeCode } from '../../src/errors.js';
import {
  budgetExhausted,
  type ChildRunResult,
  type Continuing,
  continueAsNewVersioning,
  type RunCarry,
  type RunInput,
  type RunResult,
  runBudget,
  runContinueDue,
  type Spend,
  type StageInput,
} from '../../src/runtime/index.js';
import type { Blueprint } from '../../src/shapes/frozen-blueprint.js';

/** What of the run continuing as new reads (`AgentRun` is one). */
export interface ContinuingRun {
  readonly input: RunInput;
  readonly bp: Blueprint;
  /** The run started with `RUN_CONTINUES_AS_NEW`, and moves to a newer version as it does (`upgrade`). */
  readonly continues: Continuing;
  carry(visit?: StageInput): RunCarry;
  spent(): Spend;
  fail(code: RuntimeCode, message: string, cause?: unknown): Promise<never>;
}

/** Whether the run's history is long enough that it should continue as new. */
export function continueDue(run: ContinuingRun): boolean {
  const info = workflowInfo();
  return runContinueDue({ length: info.historyLength, suggested: info.continueAsNewSuggested }, run.input.options);
}

/** Between visits: continues as new when the run's history is long (`RUN_CONTINUES_AS_NEW`). */
export async function continueIfDue(run: ContinuingRun): Promise<void> {
  if (run.continues && continueDue(run)) await continueAsNew(run);
}

/** Before a visit: a run that spent what its `[run]` caps allow fails `budget-exhausted` (docs/reference/long-runs.md#spend-caps). */
export async function stopIfOverBudget(run: ContinuingRun): Promise<void> {
  const why = budgetExhausted(runBudget(run.bp), run.spent());
  if (why) await run.fail('budget-exhausted', `Run stopped: ${why}`);
}

/**
 * Goes on as a fresh run of the same workflow id, carrying the walk, the
 * region set, what waits for the next visit and the visit that handed over.
 * Updates still running finish first; a signal that arrives meanwhile is
 * delivered to this run before it goes on, so its carry includes it.
 */
export async function continueAsNew(run: ContinuingRun, visit?: StageInput): Promise<never> {
  await condition(allHandlersFinished);
  // A cancellation does not pass to the next run: a cancelled run ends here.
  if (CancellationScope.current().consideredCancelled) throw new CancelledFailure('the run was cancelled');
  const { blueprint: _inInput, ...input } = run.input;
  const resume = run.carry(visit);
  const info = workflowInfo();
  const next = makeContinueAsNewFunc<(start: RunInput) => Promise<RunResult | ChildRunResult>>({
    memo: info.memo ?? {},
    searchAttributes: info.searchAttributes,
    ...continueAsNewVersioning(run.continues),
  });
  return next({ ...input, resume });
}
