/** `pinned`: content that stays; an overflowing write is refused, never evicted. */
import type { KindBehaviour } from './behaviour.js';

export const pinned: KindBehaviour = {
  kind: 'pinned',
  overflow: () => 'refuse',
  reduce: () => 'keep',
  cascadePhases: () => [],
  entries: 'log',
  folds: () => 'marked',
  holdsSummaries: false,
  bulkTransforms: true,
  windowed: false,
};
