/**
 * Kind name -> behaviour. Everything the engine does differently per kind
 * is a member of `KindBehaviour`; engine code asks the behaviour, never the
 * kind's name, so a new kind is added by one module here plus a case below,
 * and the compiler points at both.
 */
import type { RegionKind } from '../../shapes/frozen-blueprint.js';
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

export function kindBehaviour(kind: RegionKind): KindBehaviour {
  switch (kind) {
    case 'temporary':
      return temporary;
    case 'pinned':
      return pinned;
    case 'sliding_window':
      return slidingWindow;
    case 'compacting':
      return compacting;
    case 'compact_history':
      return compactHistory;
    case 'clearable':
      return clearable;
    case 'hashmap':
      return hashmap;
    case 'checklist':
      return checklist;
    case 'custom':
      return custom;
    default:
      return unknownKind(kind);
  }
}

/** The behaviour of a region's (or a region definition's) kind. */
export function behaviourOf(region: { kind: RegionKind }): KindBehaviour {
  return kindBehaviour(region.kind);
}

/** Unreachable while every `RegionKind` has a case above: a new kind without one does not compile. */
function unknownKind(kind: never): never {
  throw new RangeError(`no behaviour for region kind "${String(kind)}"`);
}

export type {
  CascadePhase,
  EntryModel,
  FoldTrigger,
  KindBehaviour,
  OverflowRule,
  ReduceRule,
} from './behaviour.js';
