/** `clearable`: like temporary, but the cascade wipes it whole first. */
import type { KindBehaviour } from './behaviour.js';

export const clearable: KindBehaviour = {
  kind: 'clearable',
  overflow: () => 'discard',
  reduce: () => 'discard',
  cascadePhases: () => [1],
  entries: 'log',
  folds: () => 'marked',
  holdsSummaries: false,
  bulkTransforms: true,
  windowed: false,
};
