/**
 * One record per region kind of the facts both the blueprint loader and the
 * engine need (docs/reference/regions.md#kinds): whether transforms leave it
 * alone, whether its budget is held for the whole run, its default
 * volatility, its class in the system section and how it reaches the prompt.
 * It sits on the ground floor so that `src/blueprint` (below the engine) and
 * `src/context` decide each of them once. What only the engine does per kind
 * (overflow, folds, the cascade) is its `KindBehaviour` (`src/context/kinds/`).
 */
import type { RegionDef, RegionKind, Volatility } from './frozen-blueprint.js';

/** A fact that holds for every region of the kind, for none, or for those declared `persistent = true`. */
export type KindRule = 'always' | 'never' | 'when-persistent';

/** A system block's class: 0 pinned-like, 1 stage instructions, 2 working regions, 3 scratch. */
export type BlockClass = 0 | 1 | 2 | 3;

/** How the region reaches the prompt: as chat messages, as system blocks, or through its script's `render`. */
export type RenderForm = 'messages' | 'system' | 'script';

export interface KindFacts {
  /** Never touched by edge transforms (docs/reference/stages.md#transforms). */
  protected: KindRule;
  /** Its budget is held for the whole run, so the working-space check counts it (docs/reference/regions.md#working-space). */
  fixedBudget: KindRule;
  /** The volatility a region gets when it sets none (docs/reference/regions.md#default-volatility). */
  volatility: Volatility;
  /**
   * Its blocks' class in the system order (docs/reference/rendering.md#system-order); a persistent
   * region, or one whose volatility is `rewritten`, takes the class given for it when there is one.
   */
  blockClass: { usual: BlockClass; persistent?: BlockClass; rewritten?: BlockClass };
  renders: RenderForm;
  /** Makes room by taking its oldest groups out (docs/reference/regions.md#vocabulary). */
  rolling: boolean;
  /**
   * Entries only arrive at its end and leave whole (eviction, fold, deletion): none is edited in
   * place, so a write can render where it happened (docs/reference/rendering.md#writes-in-place).
   */
  appends: boolean;
}

export const REGION_KIND_FACTS: Readonly<Record<RegionKind, KindFacts>> = {
  // Written once (the task, a stage prompt) and then left alone.
  pinned: {
    protected: 'always',
    fixedBudget: 'always',
    volatility: 'stable',
    blockClass: { usual: 0 },
    renders: 'system',
    rolling: false,
    appends: false,
  },
  // Appended to; a fold or an eviction takes entries from the front only now and then.
  compact_history: {
    protected: 'always',
    fixedBudget: 'always',
    volatility: 'grows',
    blockClass: { usual: 0 },
    renders: 'system',
    rolling: false,
    appends: true,
  },
  compacting: {
    protected: 'never',
    fixedBudget: 'never',
    volatility: 'grows',
    blockClass: { usual: 2 },
    renders: 'system',
    rolling: true,
    appends: true,
  },
  hashmap: {
    protected: 'never',
    fixedBudget: 'always',
    volatility: 'grows',
    blockClass: { usual: 2 },
    renders: 'system',
    rolling: false,
    appends: false,
  },
  // Re-rendered on every change: a checklist's counts line heads its block; scratch space turns over.
  checklist: {
    protected: 'always',
    fixedBudget: 'always',
    volatility: 'rewritten',
    blockClass: { usual: 2 },
    renders: 'system',
    rolling: false,
    appends: false,
  },
  temporary: {
    protected: 'never',
    fixedBudget: 'never',
    volatility: 'rewritten',
    blockClass: { usual: 2, rewritten: 3 },
    renders: 'system',
    rolling: true,
    appends: true,
  },
  clearable: {
    protected: 'never',
    fixedBudget: 'never',
    volatility: 'rewritten',
    blockClass: { usual: 2, rewritten: 3 },
    renders: 'system',
    rolling: true,
    appends: true,
  },
  // A script renders whatever it likes, and a persistent one is held like a pinned region.
  custom: {
    protected: 'when-persistent',
    fixedBudget: 'when-persistent',
    volatility: 'rewritten',
    blockClass: { usual: 2, persistent: 0 },
    renders: 'script',
    rolling: false,
    appends: false,
  },
  // Rendered as the messages, not as system blocks.
  sliding_window: {
    protected: 'never',
    fixedBudget: 'never',
    volatility: 'rewritten',
    blockClass: { usual: 2 },
    renders: 'messages',
    rolling: true,
    appends: false,
  },
};

export function kindFacts(kind: RegionKind): KindFacts {
  return REGION_KIND_FACTS[kind];
}

function holds(rule: KindRule, def: Pick<RegionDef, 'persistent'>): boolean {
  return rule === 'always' || (rule === 'when-persistent' && def.persistent === true);
}

/** Whether edge transforms leave the region alone (docs/reference/stages.md#transforms). */
export function isProtected(def: Pick<RegionDef, 'kind' | 'persistent'>): boolean {
  return holds(REGION_KIND_FACTS[def.kind].protected, def);
}

/** Whether the region's budget is held for the whole run (docs/reference/regions.md#working-space check). */
export function isFixedRegion(def: Pick<RegionDef, 'kind' | 'persistent'>): boolean {
  return holds(REGION_KIND_FACTS[def.kind].fixedBudget, def);
}

/** The class of the region's system blocks by its kind (the stage instructions' class is by name, in `block-order.ts`). */
export function kindBlockClass(def: Pick<RegionDef, 'kind' | 'persistent' | 'volatility'>): BlockClass {
  const { usual, persistent, rewritten } = REGION_KIND_FACTS[def.kind].blockClass;
  if (persistent !== undefined && def.persistent === true) return persistent;
  if (rewritten !== undefined && def.volatility === 'rewritten') return rewritten;
  return usual;
}
