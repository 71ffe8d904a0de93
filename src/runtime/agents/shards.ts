/**
 * A large fan-out split into shards (docs/reference/sub-agents.md#fan_out): how many
 * workers each shard runs and the input and result of a shard workflow. Pure.
 */
import type { Content } from '../../shapes/content.js';
import type { Spend } from '../types.js';
import type { FanOutItem } from './agent-tool-args.js';
import { rangeSection } from './fan-out-report.js';
import type { JobEnd, ReportCounts } from './queue.js';
import type { WorkerSpec } from './worker-spec.js';

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

/** What a shard does with its slice of the items: run them (at most `limit` at once) and write their part of the report. */
export interface ShardJob {
  /** The visit's blueprint and the stage that fans out, whose model reads the report. */
  blueprintHash: string;
  stage: string;
  items: FanOutItem[];
  limit: number;
  failFast: boolean;
  /** Tokens each item's section of the report may take. */
  share: number;
}

/** What one shard of a large fan-out is given (`fanOutShardWorkflow`): its workers' spec and its job. */
export type ShardInput = WorkerSpec & ShardJob;

/** A shard's input as its child workflow records it, in the key order runs already recorded. */
export function shardInput(spec: WorkerSpec, job: ShardJob): ShardInput {
  return {
    runId: spec.runId,
    blueprintHash: job.blueprintHash,
    stage: job.stage,
    items: job.items,
    limit: job.limit,
    failFast: job.failFast,
    share: job.share,
    label: spec.label,
    child: spec.child,
    answerOwed: spec.answerOwed,
    workdir: spec.workdir,
    options: spec.options,
    ...(spec.shared ? { shared: spec.shared } : {}),
  };
}

/** What a shard hands back: its counts and its part of the report (a blob reference when large). */
export interface ShardResult {
  counts: ReportCounts;
  part: Content;
  /** What the shard's workers spent. */
  spend?: Spend;
}

/** How a finished shard counts in the queue of shards: failed when any of its items failed, with its counts. */
export function shardEnd(result: ShardResult): JobEnd {
  return { status: result.counts.failed > 0 ? 'failed' : 'completed', tally: result.counts };
}

/** The result standing for a shard that answered for none of its items: they all count as `status`, in one section. */
export function unansweredShard(
  items: readonly FanOutItem[],
  status: 'failed' | 'cancelled' | 'not-started',
  why: string,
): ShardResult {
  const n = items.length;
  const counts =
    status === 'failed' ? { succeeded: 0, failed: n, cancelled: 0 } : { succeeded: 0, failed: 0, cancelled: n };
  return { counts, part: rangeSection(items, status, why) };
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
