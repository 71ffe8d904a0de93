/**
 * The per-kind facts (`src/shapes/region-kinds.ts`) that the loader and the
 * engine both read: each decided once, by kind and, for a custom region,
 * by `persistent`.
 */
import { describe, expect, it } from 'vitest';
import { REGION_KINDS } from '../../src/shapes/frozen-blueprint.js';
import { isFixedRegion, isProtected, kindBlockClass, kindFacts } from '../../src/shapes/region-kinds.js';

const all = (test: (kind: (typeof REGION_KINDS)[number]) => boolean) => REGION_KINDS.filter(test);

describe('region kind facts', () => {
  it('protect pinned, checklist, compact_history and persistent custom regions from transforms', () => {
    expect(all((kind) => isProtected({ kind }))).toEqual(['pinned', 'compact_history', 'checklist']);
    expect(isProtected({ kind: 'custom', persistent: true })).toBe(true);
    expect(isProtected({ kind: 'custom', persistent: false })).toBe(false);
  });

  it('hold the budgets of those and of hashmaps for the whole run', () => {
    expect(all((kind) => isFixedRegion({ kind }))).toEqual(['pinned', 'compact_history', 'hashmap', 'checklist']);
    expect(isFixedRegion({ kind: 'custom', persistent: true })).toBe(true);
  });

  it('class system blocks by kind, a persistent custom region as pinned-like and rewritten scratch last', () => {
    expect(kindBlockClass({ kind: 'pinned', volatility: 'stable' })).toBe(0);
    expect(kindBlockClass({ kind: 'custom', volatility: 'rewritten', persistent: true })).toBe(0);
    expect(kindBlockClass({ kind: 'custom', volatility: 'rewritten' })).toBe(2);
    expect(kindBlockClass({ kind: 'temporary', volatility: 'rewritten' })).toBe(3);
    expect(kindBlockClass({ kind: 'temporary', volatility: 'grows' })).toBe(2);
  });

  it('render a sliding window as messages, a custom region by its script, the rest as system blocks', () => {
    expect(all((kind) => kindFacts(kind).renders !== 'system')).toEqual(['sliding_window', 'custom']);
    expect(kindFacts('custom').renders).toBe('script');
  });

  it('make room by taking the oldest groups out of temporary, clearable, sliding window and compacting regions', () => {
    expect(all((kind) => kindFacts(kind).rolling)).toEqual(['sliding_window', 'compacting', 'temporary', 'clearable']);
  });
});
