/**
 * A large fan-out split into shards (docs/reference/sub-agents.md#fan_out): how many
 * workers each shard runs and the input and result of a shard workflow. Pure.
 */
import type { Content } from '../../shapes/content.js';
import type { ChildRun, RunOptions, Spend, WorkerCounts } from '../types.js';
import type { WorkerStatus } from './queue.js';
import type { ReportCounts } from './report.js';
import type { FanOutItem } from './tool-args.js';

/** Items a fan-out runs from its stage visit; a larger one is split into shards of this many. */
export const DEFAULT_SHARD_ITEMS = 500;

/**
 * How a large fan-out is split (docs/reference/sub-agents.md#large-fan-outs): into shards of
 * at most `shardItems` items, in item order; at most `concurrent` shards run at once, each
 * with at most `limit` workers, so never more than `maxWorkers` run in all (0: no limit).
 * Undefined when the items fit one visit.
 */
export interface ShardPlan {
  ranges: { from: number; to: number }[];
  concurrent: number;
  limit: number;
}

export function shardPlan(items: number, maxWorkers: number, shardItems: number): ShardPlan | undefined {
  const size = Math.max(1, shardItems);
  if (items <= size) return undefined;
  const ranges = Array.from({ length: Math.ceil(items / size) }, (_, k) => ({
    from: k * size,
    to: Math.min(items, (k + 1) * size),
  }));
  if (maxWorkers <= 0) return { ranges, concurrent: ranges.length, limit: 0 };
  const concurrent = Math.min(ranges.length, maxWorkers);
  return { ranges, concurrent, limit: Math.floor(maxWorkers / concurrent) };
}

/** What one shard of a large fan-out is given (`fanOutShardWorkflow`). */
export interface ShardInput {
  /** The visit's run (whose id prefixes every worker's) and blueprint, and the stage that fans out. */
  runId: string;
  blueprintHash: string;
  stage: string;
  items: FanOutItem[];
  limit: number;
  failFast: boolean;
  /** Tokens each item's section of the report may take. */
  share: number;
  label: string;
  child: Omit<ChildRun, 'seedContext' | 'output'>;
  answerOwed: boolean;
  workdir: string;
  options: RunOptions;
  /** The hash of the workers' `WorkerShare`. */
  shared?: string;
}

/** What a shard hands back: its counts and its part of the report (a blob reference when large). */
export interface ShardResult {
  counts: ReportCounts;
  part: Content;
  /** What the shard's workers spent. */
  spend?: Spend;
}

/** The report part of items no shard answered for: one section naming the first and the last. */
export function unfinishedPart(items: readonly FanOutItem[], label: string, why: string): string {
  const first = items[0]?.id ?? '';
  const last = items.at(-1)?.id ?? first;
  return `## workers ${first} to ${last} ${label} (${items.length} items)\n${why}`;
}

/** A sharded fan-out's progress: the items of queued, running and finished shards. */
export function shardedCounts(
  plan: ShardPlan,
  statusOf: (k: number) => WorkerStatus,
  results: readonly (ShardResult | undefined)[],
): WorkerCounts {
  const c: WorkerCounts = { queued: 0, running: 0, done: 0, failed: 0 };
  plan.ranges.forEach((range, k) => {
    const n = range.to - range.from;
    const status = statusOf(k);
    const result = results[k];
    if (result) {
      c.done += result.counts.succeeded;
      c.failed += result.counts.failed + result.counts.cancelled;
    } else if (status === 'running') c.running += n;
    else if (status === 'queued') c.queued += n;
    else c.failed += n;
  });
  return c;
}

/** The counts of a sharded fan-out's report: the sums of its parts'. */
export function sumShardCounts(parts: readonly Pick<ShardResult, 'counts'>[]): ReportCounts {
  return parts.reduce(
    (sum, p) => ({
      succeeded: sum.succeeded + p.counts.succeeded,
      failed: sum.failed + p.counts.failed,
      cancelled: sum.cancelled + p.counts.cancelled,
    }),
    { succeeded: 0, failed: 0, cancelled: 0 },
  );
}
