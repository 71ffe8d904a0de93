/**
 * A run read back from its histories (docs/reference/cluster-runs.md#fork):
 * every run of its workflow id after continue-as-new, the stage visits it
 * started (each with its own runs after continue-as-new) and every
 * inference they made, with the snapshot and operations the inference
 * rebuilt its region set from. Reading adds nothing to any history.
 */
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import type { InferInput } from '../runtime/activity-types.js';
import { isWorkerStart, type WorkerInput, workerRunInput } from '../runtime/agents/worker-spec.js';
import type { WorkerStart } from '../runtime/node/child-runs.js';
import type { RefRunInput } from '../runtime/ref-input.js';
import type { RunInput, StageOutcome, SubmittedOutput } from '../runtime/types.js';
import type { Blueprint } from '../shapes/frozen-blueprint.js';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
type Payload = temporal.api.common.v1.IPayload;

/** A payload of a raw history as the run wrote it, through the client's codecs (an encrypted deployment's are sealed). */
export async function decoded<T>(client: Client, raw: Payload): Promise<T> {
  const converter = client.options.loadedDataConverter;
  let payload = raw;
  for (const codec of [...converter.payloadCodecs].reverse())
    [payload] = (await codec.decode([payload as never])) as [Payload];
  return converter.payloadConverter.fromPayload<T>(payload as never);
}

/** The events of each run of a workflow id, first run first, following continue-as-new from `firstRunId`. */
export async function executions(client: Client, workflowId: string, firstRunId?: string): Promise<HistoryEvent[][]> {
  let runId = firstRunId;
  if (!runId) {
    const latest = await client.workflow.getHandle(workflowId).fetchHistory();
    runId = latest.events?.[0]?.workflowExecutionStartedEventAttributes?.firstExecutionRunId ?? undefined;
    if (!runId) return [latest.events ?? []];
  }
  const runs: HistoryEvent[][] = [];
  while (runId) {
    const events: HistoryEvent[] = (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
    runs.push(events);
    runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return runs;
}

/** One inference of a run, as its `infer` activity was scheduled. */
export interface RunInference {
  input: InferInput;
  /** The stage visits the run had started before it; a visit's own inferences count that visit. */
  visit: number;
}

/** A stage visit of a run, in the order the run started them. */
export interface RunVisit {
  workflowId: string;
  /** A `submit_output` answer the visit ended with. */
  answer?: SubmittedOutput;
}

/** What a run's histories say of it: how it started, its visits and its inferences in the order they were scheduled. */
export interface RunRecord {
  /** The first run's input. */
  start: RunInput | WorkerInput | RefRunInput;
  /** The whole input and blueprint a start by reference or a fan-out worker's start resolved to. */
  resolved?: { input: RunInput; blueprint: Blueprint };
  visits: RunVisit[];
  inferences: RunInference[];
}

/** `core_local_activity` marker data: which local activity the marker records. */
interface MarkerData {
  activity_type?: string;
  activityType?: string;
}

/** The run's record, from the histories of every run of `workflowId` and of every stage visit they started. */
export async function readRun(client: Client, workflowId: string): Promise<RunRecord> {
  const runs = await executions(client, workflowId);
  const first = runs[0]?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  if (!first) throw new Error(`run ${workflowId} has no start input in its history`);
  const record: RunRecord = { start: await decoded(client, first), visits: [], inferences: [] };
  const children: { visit: number; workflowId: string; runId: string }[] = [];
  for (const events of runs) {
    const scheduled = new Map<string, string>();
    const initiated = new Map<string, number>();
    for (const e of events) {
      const id = String(e.eventId ?? '');
      const activity = e.activityTaskScheduledEventAttributes;
      if (activity) {
        const type = activity.activityType?.name ?? '';
        scheduled.set(id, type);
        const payload = activity.input?.payloads?.[0];
        if (type === 'infer' && payload)
          record.inferences.push({ input: await decoded(client, payload), visit: record.visits.length });
      }
      const done = e.activityTaskCompletedEventAttributes;
      const doneType = done ? scheduled.get(String(done.scheduledEventId ?? '')) : undefined;
      const result = done?.result?.payloads?.[0];
      if (result && (doneType === 'resolveRunInput' || doneType === 'workerStart'))
        record.resolved ??= await resolvedStart(client, record.start, doneType, result);
      const marker = e.markerRecordedEventAttributes?.details;
      const data = marker?.data?.payloads?.[0];
      const markerResult = marker?.result?.payloads?.[0];
      if (data && markerResult) {
        const about = await decoded<MarkerData>(client, data);
        if ((about.activity_type ?? about.activityType) === 'workerStart')
          record.resolved ??= await resolvedStart(client, record.start, 'workerStart', markerResult);
      }
      const child = e.startChildWorkflowExecutionInitiatedEventAttributes;
      if (child?.workflowType?.name === 'stageWorkflow' && child.workflowId) {
        initiated.set(id, record.visits.length);
        record.visits.push({ workflowId: child.workflowId });
      }
      const started = e.childWorkflowExecutionStartedEventAttributes;
      const visit = started ? initiated.get(String(started.initiatedEventId ?? '')) : undefined;
      if (visit !== undefined && started?.workflowExecution?.runId)
        children.push({
          visit,
          workflowId: started.workflowExecution.workflowId ?? '',
          runId: started.workflowExecution.runId,
        });
      const completed = e.childWorkflowExecutionCompletedEventAttributes;
      const ended = completed ? initiated.get(String(completed.initiatedEventId ?? '')) : undefined;
      const outcome = completed?.result?.payloads?.[0];
      if (ended !== undefined && outcome) {
        const answer = (await decoded<Partial<StageOutcome>>(client, outcome)).facts?.output;
        const into = record.visits[ended];
        if (answer && into) into.answer = answer;
      }
    }
  }
  for (const child of children)
    for (const events of await executions(client, child.workflowId, child.runId))
      for (const e of events) {
        const activity = e.activityTaskScheduledEventAttributes;
        const payload = activity?.input?.payloads?.[0];
        if (activity?.activityType?.name === 'infer' && payload)
          record.inferences.push({ input: await decoded(client, payload), visit: child.visit });
      }
  return record;
}

/** The whole input behind a start by reference (`resolveRunInput`'s result) or a fan-out worker's (`workerStart`'s). */
async function resolvedStart(
  client: Client,
  start: RunRecord['start'],
  type: 'resolveRunInput' | 'workerStart',
  result: Payload,
): Promise<RunRecord['resolved']> {
  if (type === 'resolveRunInput') {
    const input = await decoded<RunInput & { blueprint: Blueprint }>(client, result);
    const { blueprint, ...rest } = input;
    return { input: rest, blueprint };
  }
  const worker = await decoded<Pick<WorkerStart, 'blueprint' | 'share'>>(client, result);
  return { input: workerRunInput(worker.share, isWorkerStart(start) ? start.task : ''), blueprint: worker.blueprint };
}
