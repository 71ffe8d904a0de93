/**
 * Starting sub-agents and running a fan-out's queue (the one loop, `drainQueue`),
 * shared by a stage visit (`sub-agents.ts`) and a shard of a large fan-out (`fan-out-shard.ts`):
 * each worker is a child `agentRunWorkflow` in a cancellation scope of its
 * own, started from a `WorkerSpec` (`src/runtime/agents/worker-spec.ts`), and
 * the queue starts them in item order, at most `limit` at once
 * (docs/reference/sub-agents.md#concurrency).
 */
import { CancellationScope, condition, isCancellation, ParentClosePolicy, startChild } from '@temporalio/workflow';
import {
  type ChildRun,
  type ChildRunResult,
  childEnd,
  childRunId,
  type FanOutItem,
  FanOutQueue,
  failedEnd,
  failureCause,
  failureDetail,
  type JobEnd,
  type ReportItem,
  reportItem,
  type Spend,
  sumSpend,
  type WorkerEnd,
  type WorkerSpec,
  workerStartInput,
} from '../../src/runtime/index.js';
import { startedId } from '../child-ids.js';

/** One child run a visit or a shard started. */
export interface Child {
  id: string;
  label: string;
  scope: CancellationScope;
  /** Resolves once the child has ended, however it ended; `end` holds the same. */
  done: Promise<WorkerEnd>;
  end?: WorkerEnd;
  /** Its parent asked it to stop (kill_agent, or a failed fail-fast fan-out). */
  stopped?: boolean;
}

/** Hears of a child's start (no argument) and of its end. */
export type Changed = (end?: WorkerEnd) => void;

/** Starts one child run with `task`; its `done` never rejects unless the caller itself is cancelled. */
export function startWorker(
  spec: WorkerSpec,
  id: string,
  task: string,
  own: Pick<ChildRun, 'seedContext' | 'output'> = {},
  changed: Changed = () => {},
): Child {
  const args = workerStartInput(spec, task, own);
  const scope = new CancellationScope();
  const record: Child = { id, label: spec.label, scope, done: Promise.resolve({ status: 'failed', error: '' }) };
  record.done = scope
    .run(async () => {
      const handle = await startChild('agentRunWorkflow', {
        workflowId: id,
        args: [args],
        // Cancelling or ending the parent asks its workers to stop, and lets them stop cleanly.
        parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
        staticSummary: `${spec.label}: ${task.slice(0, 80)}`,
      });
      return (await handle.result()) as ChildRunResult;
    })
    .then(
      (result) => childEnd(result, spec.answerOwed),
      (err: unknown) =>
        failedEnd(
          failureCause(err, 'stage-failed').message,
          record.stopped === true || isCancellation(err),
          failureDetail(err),
        ),
    )
    .then((end) => {
      record.end = end;
      changed(end);
      return end;
    });
  changed();
  return record;
}

/** The jobs a queue runs: a fan-out's workers (`runWorkers`), or the shards of a large one (`SubAgents`). */
export interface QueueJobs<E> {
  /** Begins job `k`; resolves however it ends, and never rejects unless the caller itself is cancelled. */
  start(k: number): Promise<E>;
  /** Keeps how job `k` ended (before the queue counts it) and says how the queue counts it. */
  ended(k: number, end: E): JobEnd;
  /** Stops running job `k`: a fail-fast queue gave up after a failure. */
  stop(k: number): void;
}

/**
 * The one queue loop of a fan-out, for its workers and for the shards of a
 * large one: starts every job the queue lets start, in order, then waits
 * until the queue settles or may start more. Each job's end goes to the
 * queue, which says which running jobs to stop; `changed` hears of it after.
 */
export async function drainQueue<E>(queue: FanOutQueue, jobs: QueueJobs<E>, changed: () => void): Promise<void> {
  while (!queue.settled) {
    for (const k of queue.startable()) {
      void jobs.start(k).then((end) => {
        const { status, tally } = jobs.ended(k, end);
        for (const j of queue.finish(k, status, tally)) jobs.stop(j);
        changed();
      });
    }
    await condition(() => queue.settled || queue.wantsStart);
  }
}

/**
 * Runs one worker per item through a `FanOutQueue` and answers each item's
 * line of the report, in item order, with what the workers spent. `watch`
 * sees the queue while it runs; `changed` hears of every start and end.
 */
export async function runWorkers(
  spec: WorkerSpec,
  items: readonly FanOutItem[],
  limit: number,
  failFast: boolean,
  watch: (queue: FanOutQueue) => void = () => {},
  changed: Changed = () => {},
): Promise<{ items: ReportItem[]; spend: Spend }> {
  const queue = new FanOutQueue(items.length, limit, failFast);
  watch(queue);
  const running = new Map<number, Child>();
  const ends: (WorkerEnd | undefined)[] = [];
  await drainQueue(
    queue,
    {
      start: (i) => {
        // The queue starts only jobs below its size, one per item.
        const item = items[i]!;
        const child = startWorker(spec, startedId(childRunId(spec.runId, item.id)), item.task, {}, changed);
        running.set(i, child);
        return child.done;
      },
      ended: (i, end) => {
        ends[i] = end;
        running.delete(i);
        return end;
      },
      stop: (j) => {
        const other = running.get(j);
        if (other) {
          other.stopped = true;
          other.scope.cancel();
        }
      },
    },
    () => changed(),
  );
  const report = items.map((item, i) => reportItem(item.id, ends[i]));
  return { items: report, spend: sumSpend(ends.map((e) => e?.spend)) };
}

/** A report item as the report activity takes it: a blob's preview is not needed there, so it does not go through history twice. */
export function withoutPreview(item: ReportItem): ReportItem {
  return typeof item.text === 'string' ? item : { ...item, text: { ...item.text, preview: '' } };
}
