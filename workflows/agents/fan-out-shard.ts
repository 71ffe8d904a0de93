/**
 * One shard of a large fan-out (docs/reference/sub-agents.md#large-fan-outs):
 * a child of the stage visit that runs the workers of a slice of the items,
 * in order and at most `limit` at once, and hands back its counts, its
 * part of the report (from the blob store) and what its workers spent, so the visit's history grows
 * with the shards, not with the items.
 */
import type { ShardInput, ShardResult } from '../../src/runtime/index.js';
import { reportCounts } from '../../src/runtime/index.js';
import { activities, stepOptions } from '../activities.js';
import { runWorkers, withoutPreview } from './workers.js';

export async function fanOutShardWorkflow(input: ShardInput): Promise<ShardResult> {
  // A shard's input is its workers' spec with its job: every version recorded it so (`shared` came later).
  const { items, spend } = await runWorkers(input, input.items, input.limit, input.failFast);
  const part = await activities.fanOutReport.executeWithOptions(
    stepOptions(input.options, `fan-out report part: ${items.length} workers`),
    [
      {
        runId: input.runId,
        blueprintHash: input.blueprintHash,
        stage: input.stage,
        items: items.map(withoutPreview),
        share: input.share,
        header: false,
      },
    ],
  );
  return { counts: reportCounts(items), part: part.content, spend };
}
