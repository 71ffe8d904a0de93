/** `compacting`: overflow moves oldest groups to pending; a fold summarises them (docs/reference/regions.md#fold). */
import type { KindBehaviour } from './behaviour.js';

export const compacting: KindBehaviour = {
  kind: 'compacting',
  overflow: () => 'pending',
  reduce: () => 'pending',
  cascadePhases: () => [4],
  entries: 'log',
  folds: () => 'threshold',
  holdsSummaries: false,
  bulkTransforms: true,
  windowed: false,
};
