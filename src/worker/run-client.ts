/**
 * Starting runs and following them from a client: `lev run` and the
 * integration tests. Progress comes from queries on the run and on the stage
 * visit running now, so following a run adds nothing to its history.
 */
import { randomUUID } from 'node:crypto';
import { type Client, WorkflowFailedError, type WorkflowHandle, WorkflowNotFoundError } from '@temporalio/client';
import {
  ApplicationFailure,
  CancelledFailure,
  TypedSearchAttributes,
  type WorkerDeploymentVersion,
} from '@temporalio/common';
import { DEFAULT_ASK_TIMEOUT_SECS } from '../blueprint/duration.js';
import { keyMissingError } from '../codec/key-missing.js';
import { staticDetails, staticSummary } from '../runtime/details.js';
import { checkWorkdir } from '../runtime/node/workdir.js';
import { asksAPerson, questionKey, questionOf } from '../runtime/notice.js';
import { BLUEPRINT_KEY, STATUS_KEY } from '../runtime/search-attributes.js';
import { WORKDIR_ACTIVITIES } from '../runtime/tool-queue.js';
import { fullResult, type Progress, type RunInput, type RunMemo, type RunResult } from '../runtime/types.js';
import type { Blueprint } from '../shapes/frozen-blueprint.js';
import { cutUnits } from '../truncate.js';
import { DEFAULT_TASK_QUEUE } from './create-worker.js';
import { runProgress } from './operators.js';

/**
 * A run started from a blueprint, as `lev run` and the tests start one (a sub-agent's run is started by its parent).
 * Its `title` goes to the memo and the Web UI's summary, not to the workflow (docs/reference/cli.md#run-titles).
 */
export type StartInput = RunInput & { blueprint: Blueprint; title?: string };

export function newRunId(agent: string): string {
  return `${agent}-${new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '')}-${randomUUID().slice(0, 8)}`;
}

export async function startRun(
  client: Client,
  input: StartInput,
  opts: {
    taskQueue?: string;
    workflowId?: string;
    /** Keeps the run on this Worker Deployment version for good (docs/reference/operating.md#safe-deploys). */
    pinnedTo?: WorkerDeploymentVersion;
  } = {},
): Promise<WorkflowHandle> {
  checkWorkdir(input.workdir);
  const { title, ...args } = input;
  return client.workflow.start('agentRunWorkflow', {
    taskQueue: opts.taskQueue ?? DEFAULT_TASK_QUEUE,
    workflowId: opts.workflowId ?? newRunId(input.blueprint.agent.name),
    args: [args],
    ...(opts.pinnedTo ? { versioningOverride: { pinnedTo: opts.pinnedTo } } : {}),
    typedSearchAttributes: new TypedSearchAttributes([
      { key: BLUEPRINT_KEY, value: input.blueprint.agent.name },
      { key: STATUS_KEY, value: 'running' },
    ]),
    memo: {
      blueprint: input.blueprint.agent.name,
      task: cutUnits(input.task ?? '', 200),
      attended: !input.options.unattended,
      ...(title !== undefined ? { title } : {}),
    },
    staticSummary: staticSummary(input.blueprint.agent.name, input.task, title),
    staticDetails: staticDetails({
      blueprint: input.blueprint,
      ...(input.task !== undefined ? { task: input.task } : {}),
      workdir: input.workdir,
      unattended: input.options.unattended,
      askTimeoutSecs: input.blueprint.run?.askTimeoutSecs ?? DEFAULT_ASK_TIMEOUT_SECS,
    }),
  });
}

/** A scheduled activity nobody picked up for this long is waiting for its worker, not just queued. */
const WAIT_NOTICE_MS = 3000;
/** `PENDING_ACTIVITY_STATE_SCHEDULED` in Temporal's API: scheduled, not started by any worker. */
const SCHEDULED = 1;

function timestampMs(ts: { seconds?: unknown; nanos?: number | null } | null | undefined): number | undefined {
  if (!ts?.seconds) return undefined;
  return Number(String(ts.seconds)) * 1000 + Math.floor((ts.nanos ?? 0) / 1e6);
}

/** A tool call or seed waiting on the run's tool queue since `sinceMs`. */
export interface ToolWait {
  taskQueue: string;
  activity: string;
  sinceMs: number;
}

/**
 * A tool call or seed of the run that no worker has started for a while:
 * the tool worker of its workdir is away. Read from the workflows'
 * descriptions, so waiting adds nothing to the run's history.
 */
export async function toolWorkerWait(
  client: Client,
  workflowIds: readonly string[],
  toolTaskQueue: string,
  now = Date.now(),
): Promise<ToolWait | undefined> {
  for (const id of workflowIds) {
    let pending: Awaited<ReturnType<WorkflowHandle['describe']>>['raw']['pendingActivities'];
    try {
      pending = (await client.workflow.getHandle(id).describe()).raw.pendingActivities;
    } catch {
      continue;
    }
    for (const a of pending ?? []) {
      const type = a.activityType?.name ?? '';
      const since = timestampMs(a.scheduledTime);
      if (
        a.state === SCHEDULED &&
        (WORKDIR_ACTIVITIES as readonly string[]).includes(type) &&
        since !== undefined &&
        now - since >= WAIT_NOTICE_MS
      )
        return { taskQueue: toolTaskQueue, activity: type, sinceMs: since };
    }
  }
  return undefined;
}

export interface FollowOptions {
  intervalMs?: number;
  /** The run's tool queue; with `onWait`, reports when its tool worker is away and when it is back. */
  toolTaskQueue?: string;
  onWait?: (waiting: ToolWait | undefined) => void;
  /**
   * The run waits for a person (an approval, an answer, an interactive
   * reply): called once for each new question, the first of `p.asks` or the
   * reply; `signal` aborts when it was answered elsewhere (the Web UI).
   */
  onWaiting?: (p: Progress, signal: AbortSignal) => Promise<void>;
  /** A fan-out's workers (or agents started without waiting) changed: called with the new counts. */
  onWorkers?: (workers: NonNullable<Progress['workers']>, p: Progress) => void;
  /** The run starts or stops waiting out a provider outage (docs/reference/long-runs.md#provider-outages). */
  onProvider?: (wait: Progress['provider']) => void;
  /** Stops following (the run goes on): the call then rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** What a person is asked now, under the key its notices are told by; empty when nothing is asked. */
function personQuestionKey(p: Progress): string {
  // A progress of a version before asks were reported has none.
  const q = questionOf({ ...p, asks: p.asks ?? [] });
  return q && asksAPerson(q) ? questionKey(q, p.stage, p.inferences) : '';
}

/** Calls `onTurn` once per new inference (and stage change) until the run ends; returns its result. */
export async function followRun(
  client: Client,
  handle: WorkflowHandle,
  onTurn: (p: Progress) => void,
  opts: number | FollowOptions = {},
): Promise<RunResult> {
  const {
    intervalMs = 200,
    toolTaskQueue,
    onWait,
    onWaiting,
    onWorkers,
    onProvider,
    signal,
  } = typeof opts === 'number' ? { intervalMs: opts } : opts;
  let settled: { ok: true; value: RunResult } | { ok: false; error: unknown } | undefined;
  const done = handle.result().then(
    (value) => {
      settled = { ok: true, value: fullResult(handle.workflowId, value as Partial<RunResult>) };
    },
    (error: unknown) => {
      settled = { ok: false, error };
    },
  );
  let seen = '';
  let waitKey = '';
  let polls = 0;
  let asked = '';
  let asking: AbortController | undefined;
  let workers = '';
  let outage = '';
  const stopped = new Promise<void>((r) => signal?.addEventListener('abort', () => r(), { once: true }));
  while (!settled) {
    if (signal?.aborted) {
      asking?.abort();
      throw signal.reason;
    }
    const p = await runProgress(client, handle);
    // Describing workflows costs more than a query: look for a waiting tool call about once a second.
    if (toolTaskQueue && onWait && polls++ % Math.max(1, Math.round(1000 / intervalMs)) === 0) {
      const ids = [handle.workflowId, ...(p?.stageWorkflowId ? [p.stageWorkflowId] : [])];
      const waiting = await toolWorkerWait(client, ids, toolTaskQueue);
      const key = waiting ? `${waiting.activity}:${waiting.sinceMs}` : '';
      if (key !== waitKey) {
        waitKey = key;
        if (!settled) onWait(waiting);
      }
    }
    if (p) {
      const key = `${p.stage}:${p.inferences}`;
      if (key !== seen && p.inferences > 0) {
        seen = key;
        onTurn(p);
      }
      const counts = p.workers ? JSON.stringify(p.workers) : '';
      if (onWorkers && p.workers && counts !== workers) onWorkers(p.workers, p);
      workers = counts;
      const down = p.provider ? `${p.provider.model}:${p.provider.since}` : '';
      if (onProvider && down !== outage) onProvider(p.provider);
      outage = down;
      // Ask once per question, while polling on: an answer from elsewhere closes the question here.
      const question = personQuestionKey(p);
      if (onWaiting && question !== asked) {
        asked = question;
        asking?.abort();
        asking = undefined;
        if (question) {
          asking = new AbortController();
          void onWaiting(p, asking.signal).catch(() => {});
        }
      }
    }
    await Promise.race([done, stopped, new Promise((r) => setTimeout(r, intervalMs))]);
  }
  asking?.abort();
  // A run can end between two polls of a resumed outage: its completion says the provider answered.
  if (onProvider && outage && settled.ok) onProvider(undefined);
  if (settled.ok) return settled.value;
  return failedResult(handle, settled.error);
}

/** A finished run's result; a failed one gives the partial result its failure carries. */
export async function runOutcome(handle: WorkflowHandle): Promise<RunResult> {
  try {
    return fullResult(handle.workflowId, (await handle.result()) as Partial<RunResult>);
  } catch (error) {
    return failedResult(handle, error);
  }
}

/**
 * A failed run still reports what it had: the workflow attaches a partial
 * result to its failure. A cancelled run has no result: what it had comes
 * from its memo (docs/reference/operators.md#memo).
 */
async function failedResult(handle: WorkflowHandle, error: unknown): Promise<RunResult> {
  const runId = handle.workflowId;
  // A result this client cannot read is no failure of the run, which goes on for the workers with the key.
  const missing = keyMissingError(error);
  if (missing) throw missing;
  if (error instanceof WorkflowFailedError && error.cause instanceof CancelledFailure)
    return { ...emptyFailure(runId, 'the run was cancelled'), ...(await memoResult(handle)), status: 'cancelled' };
  if (error instanceof WorkflowFailedError && error.cause instanceof ApplicationFailure) {
    const partial = error.cause.details?.[0] as Partial<RunResult> | undefined;
    if (partial && typeof partial === 'object')
      return fullResult(runId, { ...partial, status: 'failed', error: error.cause.message });
    return emptyFailure(runId, error.cause.message);
  }
  return emptyFailure(
    runId,
    error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error),
  );
}

/** What a cancelled run's memo says of it: its stages, usage, forced gates and the messages it held. */
async function memoResult(handle: WorkflowHandle): Promise<Partial<RunResult>> {
  let memo: RunMemo;
  try {
    memo = ((await handle.describe()).memo ?? {}) as RunMemo;
  } catch {
    // The server forgot the run or is gone: the cancellation is all there is to say.
    return {};
  }
  return {
    ...(Array.isArray(memo.stages) ? { stages: memo.stages } : {}),
    ...(memo.usage ? { usage: { ...memo.usage, perStage: memo.usage.perStage ?? {} } } : {}),
    ...(Array.isArray(memo.gatesForced) ? { gatesForced: memo.gatesForced } : {}),
    ...(memo.undeliveredMessages ? { undeliveredMessages: memo.undeliveredMessages } : {}),
  };
}

function emptyFailure(runId: string, message: string): RunResult {
  return fullResult(runId, { error: message });
}

/**
 * The run ids Temporal still knows: open, or closed and inside the
 * namespace's retention. Any answer other than "not found" (the server is
 * down, no permission) throws, so a blob collection never mistakes an
 * unreachable server for forgotten runs.
 */
export async function knownRuns(client: Client, runIds: readonly string[], concurrency = 8): Promise<Set<string>> {
  const known = new Set<string>();
  let next = 0;
  const lane = async () => {
    for (let id = runIds[next++]; id !== undefined; id = runIds[next++]) {
      try {
        await client.workflow.getHandle(id).describe();
        known.add(id);
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, runIds.length) }, lane));
  return known;
}
