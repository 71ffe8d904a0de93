/**
 * A large fan-out split into shards (docs/reference/sub-agents.md#fan_out): how many
 * workers each shard runs and the input and result of a shard workflow. Pure.
 */
import type { Content } from '../../shapes/content.js';
import type { Spend } from '../spend.js';
import type { RunOptions } from '../types.js';
import type { ChildRun } from './lineage.js';
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
