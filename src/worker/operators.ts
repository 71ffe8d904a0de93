/**
 * The client side of people in the loop (docs/reference/operators.md): send
 * an update to a run and turn every refusal into a coded error, cancel a
 * run, and read a run's progress with its live visit's counters merged in.
 * `lev msg`, `lev approve`, ..., `lev run --attended` and the tests use these.
 */
import { type Client, type WorkflowHandle, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure, type UpdateDefinition } from '@temporalio/common';
import { keyMissingError } from '../codec/key-missing.js';
import { LevError } from '../errors.js';
import { withVisitProgress } from '../runtime/live-progress.js';
import { operatorUpdates, progressQuery } from '../runtime/messages.js';
import type { OperatorReturn, OperatorUpdate } from '../runtime/people/updates.js';
import type { Progress } from '../runtime/types.js';
import {
  cancelStep,
  DEFAULT_CANCEL_GRACE_SECS,
  readTaskFailure,
  type TaskFailure,
  terminatedReason,
} from './task-failures.js';

/** The run, refused with `run-not-found` when Temporal does not know it and `run-finished` when it has ended. */
async function openRun(client: Client, runId: string): Promise<WorkflowHandle> {
  const handle = client.workflow.getHandle(runId);
  let status: string;
  try {
    status = (await handle.describe()).status.name;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError)
      throw new LevError('run-not-found', `No run "${runId}" is known to the Temporal server; check the run id.`);
    throw err;
  }
  if (status !== 'RUNNING')
    throw new LevError(
      'run-finished',
      `Run "${runId}" has ended (${status.toLowerCase()}); updates go only to running runs.`,
    );
  return handle;
}

/** `[code] sentence` as the workflow writes a refusal, back into a coded error. */
function refusal(err: unknown): LevError | undefined {
  const cause = err instanceof WorkflowUpdateFailedError ? err.cause : undefined;
  if (!(cause instanceof ApplicationFailure) || !cause.type) return undefined;
  const prefix = `[${cause.type}] `;
  return new LevError(
    cause.type,
    cause.message.startsWith(prefix) ? cause.message.slice(prefix.length) : cause.message,
  );
}

/** Sends one of the run's updates; resolves with its answer or throws the refusal as a `LevError`. */
export async function sendUpdate<T extends OperatorReturn>(
  client: Client,
  runId: string,
  update: OperatorUpdate,
  arg?: unknown,
): Promise<T> {
  const handle = await openRun(client, runId);
  // The definitions' argument types are what a person may send; `arg` is checked by the run's validator.
  const def: UpdateDefinition<OperatorReturn, unknown[]> = operatorUpdates[update];
  try {
    const answer =
      arg === undefined
        ? await handle.executeUpdate(def as UpdateDefinition<OperatorReturn, []>)
        : await handle.executeUpdate(def as UpdateDefinition<OperatorReturn, [unknown]>, { args: [arg] });
    return answer as T;
  } catch (err) {
    const coded = refusal(err);
    if (coded) throw coded;
    // The run ended between the check and the update.
    if (err instanceof WorkflowNotFoundError)
      throw new LevError('run-finished', `Run "${runId}" ended before the update reached it.`);
    throw err;
  }
}

/** How a cancellation went: the run's Temporal status once it ended, and the reason when it had to be terminated. */
export interface CancelEnd {
  status?: string;
  terminated?: string;
}

/**
 * Requests the run's cancellation (docs/reference/operators.md#cancellation);
 * with `wait`, resolves once the run has ended, with its Temporal status. A run
 * whose workflow task keeps failing cannot take the request: it is terminated
 * once `graceMs` has passed (docs/reference/operators.md#a-wedged-run).
 */
export async function cancelRun(
  client: Client,
  runId: string,
  opts: { wait?: boolean; graceMs?: number; pollMs?: number } = {},
): Promise<CancelEnd> {
  const { wait = false, graceMs = DEFAULT_CANCEL_GRACE_SECS * 1000, pollMs = 250 } = opts;
  const handle = await openRun(client, runId);
  await handle.cancel();
  const started = Date.now();
  for (;;) {
    const status = (await handle.describe()).status.name;
    const failure = status === 'RUNNING' ? await readTaskFailure(client, runId) : undefined;
    const elapsedMs = Date.now() - started;
    switch (cancelStep({ ended: status !== 'RUNNING', failing: failure !== undefined, elapsedMs, graceMs, wait })) {
      case 'ended':
        return wait || failure ? { status } : {};
      case 'leave':
        return {};
      case 'terminate': {
        const reason = terminatedReason(graceMs / 1000, failure as TaskFailure);
        await handle.terminate(reason);
        return { status: 'TERMINATED', terminated: reason };
      }
      case 'wait':
        await new Promise((r) => setTimeout(r, pollMs));
    }
  }
}

/** A query, given up after `deadlineMs` when set: a run nobody serves never answers. */
function queryProgress(client: Client, workflowId: string, deadlineMs: number | undefined): Promise<Progress> {
  const ask = () => client.workflow.getHandle(workflowId).query(progressQuery);
  return deadlineMs === undefined ? ask() : client.connection.withDeadline(Date.now() + deadlineMs, ask);
}

/**
 * The run's progress with the live visit's counters merged in: the run
 * answers for itself and names its live visit, which answers for the turn
 * (docs/reference/operators.md#the-progress-query). Usage and cost are the
 * whole run's: what the run counted for its finished visits plus the live
 * visit's own. Undefined when no worker answers (within `deadlineMs`, when set).
 */
export async function runProgress(
  client: Client,
  handle: WorkflowHandle,
  deadlineMs?: number,
): Promise<Progress | undefined> {
  let run: Progress;
  try {
    run = await queryProgress(client, handle.workflowId, deadlineMs);
  } catch (err) {
    // An answer this client cannot read is not a run nobody serves.
    const missing = keyMissingError(err);
    if (missing) throw missing;
    return undefined;
  }
  if (!run.stageWorkflowId) return run;
  try {
    return withVisitProgress(run, await queryProgress(client, run.stageWorkflowId, deadlineMs));
  } catch (err) {
    const missing = keyMissingError(err);
    if (missing) throw missing;
    return run;
  }
}
