/**
 * The order in which a fan-out starts its workers and what it counts of them
 * (docs/reference/sub-agents.md#fan_out). Pure state over plain data: the workflow
 * loop (`workflows/agents/workers.ts`) only starts and awaits children.
 */
import type { Content } from '../../shapes/content.js';
import type { Spend, WorkerCounts } from '../types.js';

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

/**
 * The order a fan-out runs its workers in: item order, at most `limit` at
 * once (0: all at once). With `failFast`, the first failure stops the rest:
 * the queued ones never start, the running ones are to be cancelled.
 */
export class FanOutQueue {
  private readonly statuses: WorkerStatus[];
  private next = 0;
  private running = 0;
  private stopped = false;

  constructor(
    readonly size: number,
    readonly limit: number,
    readonly failFast = false,
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
   * Records how item `i` ended. Returns the running items to cancel: all of
   * them after the first failure of a fail-fast fan-out, else none.
   */
  finish(i: number, status: WorkerEnd['status']): number[] {
    if (this.statuses[i] !== 'running') return [];
    this.statuses[i] = status;
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

  counts(): WorkerCounts {
    const c: WorkerCounts = { queued: 0, running: 0, done: 0, failed: 0 };
    for (const s of this.statuses) {
      if (s === 'queued') c.queued++;
      else if (s === 'running') c.running++;
      else if (s === 'completed') c.done++;
      else c.failed++;
    }
    return c;
  }
}
