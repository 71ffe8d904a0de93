/**
 * Runs whose workflow task keeps failing (docs/reference/operators.md#a-wedged-run):
 * no turn runs, queries get no answer and a cancellation request is never
 * taken, because taking it needs a workflow task too. `lev show` says so
 * with the failure's message, and `lev cancel` terminates such a run once
 * its grace period has passed. The decisions and their wording are the
 * pure functions here; `readTaskFailure` reads what they decide on.
 */
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { cutBytes } from '../truncate.js';

/** How long `lev cancel` waits for a cancelled run to end before it terminates one whose workflow task fails. */
export const DEFAULT_CANCEL_GRACE_SECS = 10;

/** The longest failure message shown, in bytes. */
const MESSAGE_BYTES = 300;
/** How many of a history's last events are searched for the failure. */
const EVENTS_SEARCHED = 1000;

/** A workflow task that failed and is being tried again. */
export interface TaskFailure {
  workflowId: string;
  /** The attempt the server will make next; 2 or more. */
  attempt: number;
  /** The last failure's message, as history recorded it; empty when history has none. */
  message: string;
}

type Describe = Pick<temporal.api.workflowservice.v1.IDescribeWorkflowExecutionResponse, 'pendingWorkflowTask'>;
type Event = temporal.api.history.v1.IHistoryEvent;

/**
 * The failing task of a workflow, from its description and its last events (newest
 * first): a pending task past its first attempt, with the message of the newest
 * `WorkflowTaskFailed` event. Undefined for a workflow whose task is not failing.
 */
export function taskFailure(
  workflowId: string,
  describe: Describe,
  newestFirst: readonly Event[],
): TaskFailure | undefined {
  const attempt = describe.pendingWorkflowTask?.attempt ?? 0;
  if (attempt < 2) return undefined;
  const failed = newestFirst.find((e) => e.workflowTaskFailedEventAttributes)?.workflowTaskFailedEventAttributes;
  const message = failed?.failure?.message?.split('\n')[0]?.trim() ?? '';
  return { workflowId, attempt, message: cutBytes(message, MESSAGE_BYTES) };
}

/** The line `lev show` prints for it. */
export function taskFailingLine(f: TaskFailure, runId: string): string {
  const where = f.workflowId === runId ? '' : ` in ${f.workflowId}`;
  return `workflow task failing${where} (attempt ${f.attempt}): ${f.message || 'no message recorded'}`;
}

/** What `lev cancel` does next, after asking a run to cancel. */
export type CancelStep = 'ended' | 'wait' | 'terminate' | 'leave';

/**
 * A run whose workflow task keeps failing would never take the request: it gets the
 * grace period to recover, then is terminated. Any other run is left to end
 * cancelled once a worker takes the request, waited for only with `--wait`.
 */
export function cancelStep(s: {
  ended: boolean;
  failing: boolean;
  elapsedMs: number;
  graceMs: number;
  wait: boolean;
}): CancelStep {
  if (s.ended) return 'ended';
  if (s.failing) return s.elapsedMs < s.graceMs ? 'wait' : 'terminate';
  return s.wait ? 'wait' : 'leave';
}

/** Why a terminated run ended, as its history and `lev cancel` say it. */
export function terminatedReason(graceSecs: number, f: TaskFailure): string {
  return `cancelled with lev cancel; its workflow task kept failing for ${graceSecs} s (attempt ${f.attempt}: ${f.message || 'no message recorded'}), so it could not take the cancellation`;
}

/** The newest events of a workflow's history, at most `EVENTS_SEARCHED`, newest first. */
async function newestEvents(client: Client, workflowId: string): Promise<Event[]> {
  const events: Event[] = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await client.workflowService.getWorkflowExecutionHistoryReverse({
      namespace: client.options.namespace,
      execution: { workflowId },
      maximumPageSize: 100,
      ...(nextPageToken ? { nextPageToken } : {}),
    });
    const batch = page.history?.events ?? [];
    events.push(...batch);
    if (batch.some((e) => e.workflowTaskFailedEventAttributes)) break;
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken && events.length < EVENTS_SEARCHED);
  return events;
}

/** The failing workflow task of one workflow, when it has one; its history is read only then. */
export async function readTaskFailure(client: Client, workflowId: string): Promise<TaskFailure | undefined> {
  const { raw } = await client.workflow.getHandle(workflowId).describe();
  if ((raw.pendingWorkflowTask?.attempt ?? 0) < 2) return undefined;
  return taskFailure(workflowId, raw, await newestEvents(client, workflowId));
}
