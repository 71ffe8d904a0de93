/** Kind name -> behaviour. */
import type { RegionKind } from '../../blueprint/types.js';
import type { KindBehaviour } from './behaviour.js';
import { checklist } from './checklist.js';
import { clearable } from './clearable.js';
import { compactHistory } from './compact-history.js';
import { compacting } from './compacting.js';
import { custom } from './custom.js';
import { hashmap } from './hashmap.js';
import { pinned } from './pinned.js';
import { slidingWindow } from './sliding-window.js';
import { temporary } from './temporary.js';

const KINDS: Readonly<Record<RegionKind, KindBehaviour>> = {
  temporary,
  pinned,
  sliding_window: slidingWindow,
  compacting,
  compact_history: compactHistory,
  clearable,
  hashmap,
  checklist,
  custom,
};

export function kindBehaviour(kind: RegionKind): KindBehaviour {
  return KINDS[kind];
}

export type { CascadePhase, KindBehaviour, OverflowRule, ReduceRule } from './behaviour.js';
