/**
 * The order in which a fan-out starts its jobs and what it counts of them
 * (docs/reference/sub-agents.md#fan_out): a job is one worker, or one shard
 * of a large fan-out, which stands for the items of its slice. Pure state
 * over plain data: the workflow loop (`drainQueue` in
 * `workflows/agents/workers.ts`) only starts and awaits children.
 */
import type { Content } from '../../shapes/content.js';
import { resultSpend } from '../spend.js';
import type { ChildRunResult, RunResult, Spend, WorkerCounts } from '../types.js';

/** How a worker ended, as the parent keeps it: its answer (a blob reference when large) or why it has none. */
export type WorkerEnd = (
  | { status: 'completed'; output: Content }
  | { status: 'failed'; error: string }
  | { status: 'cancelled'; error: string }
) & {
  /** What the worker's tree spent, from its result (or its failure's partial result). */
  spend?: Spend;
};

export type WorkerStatus = 'queued' | 'running' | WorkerEnd['status'];

/** How many items of a report succeeded, failed, and were cancelled or never started. */
export interface ReportCounts {
  succeeded: number;
  failed: number;
  cancelled: number;
}

/** How a queue's job ended, as the queue counts it: a shard adds how its items ended. */
export interface JobEnd {
  status: WorkerEnd['status'];
  tally?: ReportCounts;
}

const MISSING_OUTPUT = 'the worker finished without the final output its stage requires (require_output)';

/** How a child's result reads: its answer, or why it has none when its stage owes one, and what it spent. */
export function childEnd(result: ChildRunResult, answerOwed: boolean): WorkerEnd {
  const spent = spendOf(result);
  if (result.outputMissing || (answerOwed && result.outputFormat === undefined))
    return { status: 'failed', error: MISSING_OUTPUT, ...spent };
  return { status: 'completed', output: result.outputRef ?? result.output, ...spent };
}

/**
 * How a child that threw reads: cancelled when it was stopped or cancelled,
 * else failed, with what it spent before (a failed run carries its partial
 * result as the failure's details).
 */
export function failedEnd(message: string, cancelled: boolean, details: unknown): WorkerEnd {
  const spent = spendOf(details);
  if (cancelled) return { status: 'cancelled', error: message || 'cancelled', ...spent };
  return { status: 'failed', error: message, ...spent };
}

function spendOf(result: unknown): { spend?: Spend } {
  const spend = resultSpend(result && typeof result === 'object' ? (result as Partial<RunResult>) : undefined);
  return spend ? { spend } : {};
}

/**
 * The order a fan-out runs its jobs in: item order, at most `limit` at
 * once (0: all at once). With `failFast`, the first failure stops the rest:
 * the queued ones never start, the running ones are to be cancelled.
 * `items[k]` is how many items job `k` stands for (1 each when absent).
 */
export class FanOutQueue {
  private readonly statuses: WorkerStatus[];
  /** How a finished shard's items ended, as its result counted them. */
  private readonly tallies: (ReportCounts | undefined)[] = [];
  private next = 0;
  private running = 0;
  private stopped = false;

  constructor(
    readonly size: number,
    readonly limit: number,
    readonly failFast = false,
    private readonly items?: readonly number[],
  ) {
    this.statuses = new Array<WorkerStatus>(size).fill('queued');
  }

  /** The items to start now, in order; they count as running from here on. */
  startable(): number[] {
    const out: number[] = [];
    while (this.wantsStart) {
      out.push(this.next);
      this.statuses[this.next++] = 'running';
      this.running++;
    }
    return out;
  }

  /**
   * Records how job `i` ended, with how its items ended when it stands for
   * several (a shard's counts). Returns the running jobs to cancel: all of
   * them after the first failure of a fail-fast fan-out, else none.
   */
  finish(i: number, status: JobEnd['status'], tally?: ReportCounts): number[] {
    if (this.statuses[i] !== 'running') return [];
    this.statuses[i] = status;
    this.tallies[i] = tally;
    this.running--;
    if (!this.failFast || status !== 'failed' || this.stopped) return [];
    this.stopped = true;
    for (let j = this.next; j < this.size; j++) this.statuses[j] = 'cancelled';
    this.next = this.size;
    return this.statuses.flatMap((s, j) => (s === 'running' ? [j] : []));
  }

  status(i: number): WorkerStatus {
    return this.statuses[i] ?? 'queued';
  }

  /** True while an item waits and a slot is free. */
  get wantsStart(): boolean {
    return !this.stopped && this.next < this.size && (this.limit <= 0 || this.running < this.limit);
  }

  /** True once no item is queued or running. */
  get settled(): boolean {
    return this.running === 0 && (this.stopped || this.next >= this.size);
  }

  get inFlight(): number {
    return this.running;
  }

  /**
   * The progress of the fan-out in items (docs/reference/sub-agents.md#watching-sub-agents):
   * a job's items count as its status says, a finished shard's as its tally says.
   */
  counts(): WorkerCounts {
    const c: WorkerCounts = { queued: 0, running: 0, done: 0, failed: 0 };
    this.statuses.forEach((s, k) => {
      const tally = this.tallies[k];
      const n = this.items?.[k] ?? 1;
      if (tally) {
        c.done += tally.succeeded;
        c.failed += tally.failed + tally.cancelled;
      } else if (s === 'queued') c.queued += n;
      else if (s === 'running') c.running += n;
      else if (s === 'completed') c.done += n;
      else c.failed += n;
    });
    return c;
  }
}
