/** `temporary` (the default kind): scratch space that drops its oldest groups. */
import type { KindBehaviour } from './behaviour.js';

export const temporary: KindBehaviour = {
  kind: 'temporary',
  overflow: () => 'discard',
  reduce: () => 'discard',
  cascadePhases: () => [3],
  entries: 'log',
  folds: () => 'marked',
  holdsSummaries: false,
  bulkTransforms: true,
  windowed: false,
};
