/** `compact_history`: receives the summaries of its `source_region` (SPEC 5.4). */
import type { KindBehaviour } from './behaviour.js';

export const compactHistory: KindBehaviour = {
  kind: 'compact_history',
  overflow: () => 'refuse',
  reduce: () => 'keep',
  cascadePhases: () => [],
  protectedFromTransforms: () => true,
  rolling: () => false,
  entries: 'log',
  folds: () => 'marked',
  holdsSummaries: true,
  renders: 'system',
  bulkTransforms: true,
  windowed: false,
};
