/** `compact_history`: receives the summaries of its `source_region` (docs/reference/regions.md#history-delivery). */
import type { KindBehaviour } from './behaviour.js';

export const compactHistory: KindBehaviour = {
  kind: 'compact_history',
  overflow: () => 'refuse',
  reduce: () => 'keep',
  cascadePhases: () => [],
  entries: 'log',
  folds: () => 'marked',
  holdsSummaries: true,
  bulkTransforms: true,
  windowed: false,
};
