/**
 * A run waiting for a worker with the codec key
 * (docs/reference/operating.md#without-the-key): the last try of its
 * workflow task, or of a call nobody has taken again, failed with
 * `codec-key-missing`, so a worker without the key had it and stepped aside.
 * The run cannot say so itself (a failed workflow task never reaches its
 * code), so `lev ps` and `lev show` read it from Temporal's description of
 * the run and its live visits, and the last events of their histories.
 */
import type { Client } from '@temporalio/client';

/** `PENDING_ACTIVITY_STATE_SCHEDULED` in Temporal's API: not taken by any worker. */
const SCHEDULED = 1;
const KEY_MISSING = 'codec-key-missing';
/** Enough of the newest events to hold the last workflow task's failure: scheduled, started, failed and a few signals. */
const RECENT_EVENTS = 20;

/** What Temporal says of one workflow, as far as the codec key goes. */
export interface CodecFacts {
  workflowId: string;
  /** The attempt of the workflow task not yet completed, if any. */
  workflowTaskAttempt?: number;
  /** The failure type of the newest failed workflow task in history, if any. */
  lastTaskFailure?: string;
  activities: readonly { type: string; state: number; failureType?: string }[];
}

/**
 * What waits for the key, as `lev show` names it; undefined when nothing
 * does. Asked only of a run no worker answers for, whose workflow tasks are
 * not being worked on: a keyless worker that stops has often taken the
 * task's next try already, which then stays started until the workflow task
 * timeout (10 s) hands it on, so a started try counts too.
 */
export function codecKeyWaitOf(facts: readonly CodecFacts[]): string | undefined {
  for (const f of facts) {
    // A workflow task on its second try or later failed before; the newest failure says why.
    if ((f.workflowTaskAttempt ?? 0) > 1 && f.lastTaskFailure === KEY_MISSING)
      return `the workflow task of ${f.workflowId}`;
    const call = f.activities.find((a) => a.state === SCHEDULED && a.failureType === KEY_MISSING);
    if (call) return `${call.type} of ${f.workflowId}`;
  }
  return undefined;
}

async function factsOf(client: Client, workflowId: string): Promise<CodecFacts> {
  const { raw } = await client.workflow.getHandle(workflowId).describe();
  const task = raw.pendingWorkflowTask;
  const facts: CodecFacts = {
    workflowId,
    ...(task ? { workflowTaskAttempt: task.attempt ?? 0 } : {}),
    activities: (raw.pendingActivities ?? []).map((a) => ({
      type: a.activityType?.name ?? '',
      state: a.state ?? 0,
      ...(a.lastFailure?.applicationFailureInfo?.type
        ? { failureType: a.lastFailure.applicationFailureInfo.type }
        : {}),
    })),
  };
  if (!task || (task.attempt ?? 0) <= 1) return facts;
  const { history } = await client.workflowService.getWorkflowExecutionHistoryReverse({
    namespace: client.options.namespace,
    execution: { workflowId },
    maximumPageSize: RECENT_EVENTS,
  });
  const failed = history?.events?.find((e) => e.workflowTaskFailedEventAttributes);
  const type = failed?.workflowTaskFailedEventAttributes?.failure?.applicationFailureInfo?.type;
  return { ...facts, ...(type ? { lastTaskFailure: type } : {}) };
}

/** What of an open run waits for a worker with the codec key: the run's workflow or one of its live visits. */
export async function codecKeyWait(client: Client, runId: string): Promise<string | undefined> {
  const ids = [runId];
  const visits = `WorkflowId STARTS_WITH '${runId.replace(/'/g, "\\'")}.' AND ExecutionStatus = 'Running'`;
  for await (const wf of client.workflow.list({ query: visits })) ids.push(wf.workflowId);
  const facts: CodecFacts[] = [];
  for (const id of ids) facts.push(await factsOf(client, id).catch(() => ({ workflowId: id, activities: [] })));
  return codecKeyWaitOf(facts);
}
