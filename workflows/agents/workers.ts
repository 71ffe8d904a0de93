/**
 * Starting sub-agents and running a fan-out's queue (the one loop, `drainQueue`),
 * shared by a stage visit (`sub-agents.ts`) and a shard of a large fan-out (`fan-out-shard.ts`):
 * each worker is a child `agentRunWorkflow` in a cancellation scope of its
 * own, and the queue starts them in item order, at most `limit` at once
 * (docs/reference/sub-agents.md#concurrency).
 */
import { CancellationScope, condition, isCancellation, ParentClosePolicy, startChild } from '@temporalio/workflow';
import {
  type ChildRun,
  type ChildRunResult,
  childRunId,
  type FanOutItem,
  FanOutQueue,
  failureCause,
  failureDetail,
  type ReportItem,
  type RunInput,
  type RunOptions,
  type RunResult,
  resultSpend,
  type Spend,
  sumSpend,
  type WorkerEnd,
  type WorkerInput,
} from '../../src/runtime/index.js';
import { startedId } from '../child-ids.js';

/** What every worker of one call shares: who starts it, what it runs, where. */
export interface WorkerSpec {
  parentRunId: string;
  /** The child's blueprint, start stage and lineage. */
  child: Omit<ChildRun, 'seedContext' | 'output'>;
  workdir: string;
  options: RunOptions;
  /** The name of what runs, for the Web UI's summary. */
  label: string;
  /** The fan-out stage requires an answer of every worker (`require_output`). */
  answerOwed: boolean;
  /** The hash of the stored `WorkerShare` of `child`, `workdir` and `options`: workers start with it. */
  shareHash?: string;
}

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

const MISSING_OUTPUT = 'the worker finished without the final output its stage requires (require_output)';

/** How a child's result reads: its answer, or why it has none, and what it spent. */
function endOf(result: ChildRunResult, answerOwed: boolean): WorkerEnd {
  const spent = spendOf(result);
  if (result.outputMissing || (answerOwed && result.outputFormat === undefined))
    return { status: 'failed', error: MISSING_OUTPUT, ...spent };
  return { status: 'completed', output: result.outputRef ?? result.output, ...spent };
}

function spendOf(result: unknown): { spend?: Spend } {
  const spend = resultSpend(result && typeof result === 'object' ? (result as Partial<RunResult>) : undefined);
  return spend ? { spend } : {};
}

/** Hears of a child's start (no argument) and of its end. */
export type Changed = (end?: WorkerEnd) => void;

/** Starts one child run with `task`; its `done` never rejects unless the caller itself is cancelled. */
export function startWorker(
  spec: WorkerSpec,
  id: string,
  task: string,
  extra: Pick<ChildRun, 'seedContext' | 'output'> = {},
  changed: Changed = () => {},
): Child {
  const own = extra.seedContext !== undefined || extra.output !== undefined;
  const args: RunInput | WorkerInput =
    spec.shareHash && !own
      ? { shared: spec.shareHash, task }
      : { child: { ...spec.child, ...extra }, task, caller: {}, workdir: spec.workdir, options: spec.options };
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
      (result) => endOf(result, spec.answerOwed),
      (err: unknown): WorkerEnd => {
        const message = failureCause(err, 'stage-failed').message;
        // A failed run carries its partial result, with what it spent before it failed.
        const spent = spendOf(failureDetail(err));
        if (record.stopped || isCancellation(err))
          return { status: 'cancelled', error: message || 'cancelled', ...spent };
        return { status: 'failed', error: message, ...spent };
      },
    )
    .then((end) => {
      record.end = end;
      changed(end);
      return end;
    });
  changed();
  return record;
}

/**
 * The one queue loop of a fan-out, for its workers (`runWorkers`) and for
 * the shards of a large one (`SubAgents.fanOutSharded`): starts every job
 * the queue lets start, in order, then waits until the queue settles or may
 * start more. `start(k)` begins job `k`; the job tells the queue its end
 * (`queue.finish`) itself.
 */
export async function drainQueue(queue: FanOutQueue, start: (k: number) => void): Promise<void> {
  while (!queue.settled) {
    for (const k of queue.startable()) start(k);
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
  await drainQueue(queue, (i) => {
    const item = items[i];
    if (!item) return;
    const child = startWorker(spec, startedId(childRunId(spec.parentRunId, item.id)), item.task, {}, changed);
    running.set(i, child);
    void child.done.then((end) => {
      ends[i] = end;
      running.delete(i);
      for (const j of queue.finish(i, end.status)) {
        const other = running.get(j);
        if (other) {
          other.stopped = true;
          other.scope.cancel();
        }
      }
      changed();
    });
  });
  const report = items.map((item, i): ReportItem => {
    const end = ends[i];
    if (!end) return { id: item.id, status: 'not-started', text: 'not started: an earlier worker failed' };
    return { id: item.id, status: end.status, text: end.status === 'completed' ? end.output : end.error };
  });
  return { items: report, spend: sumSpend(ends.map((e) => e?.spend)) };
}

/** A report item as the report activity takes it: a blob's preview is not needed there, so it does not go through history twice. */
export function withoutPreview(item: ReportItem): ReportItem {
  return typeof item.text === 'string' ? item : { ...item, text: { ...item.text, preview: '' } };
}
