import { describe, expect, it } from 'vitest';
import type { CustomRegionHooks } from '../../src/context/kinds/custom.js';
import { kindBehaviour } from '../../src/context/kinds/index.js';
import { maintain } from '../../src/context/maintenance.js';
import { findRegion, type RunState, windowUsed } from '../../src/context/state.js';
import { writeEntry } from '../../src/context/write.js';
import type { RegionDef } from '../../src/shapes/frozen-blueprint.js';
import { kindFacts } from '../../src/shapes/region-kinds.js';
import { blueprint, contents, def, put, run, start, tokensOf, user } from './helpers.js';

function conversation(extra: Partial<RegionDef>): RunState {
  return start(blueprint([def('conversation', 'sliding_window', { maxTokens: 10_000, ...extra })]));
}

describe('sliding windows (docs/reference/regions.md#sliding-window-strategies)', () => {
  it('per_item keeps the newest N (scenario 8)', () => {
    const s = conversation({ maxItems: 3 });
    for (let i = 0; i < 5; i++) user(s, `m${i}`, 1);
    expect(contents(s, 'conversation')).toEqual(['m2', 'm3', 'm4']);
  });

  it('bulk trims back to N only past N + overflow (scenario 9)', () => {
    const s = conversation({ maxItems: 5, strategy: 'bulk', overflow: 3 });
    for (let i = 0; i < 8; i++) user(s, `m${i}`, 1);
    expect(contents(s, 'conversation')).toHaveLength(8);
    user(s, 'm8', 1);
    expect(contents(s, 'conversation')).toEqual(['m4', 'm5', 'm6', 'm7', 'm8']);
  });

  it('a reject window refuses the item past max_items', () => {
    const s = conversation({ maxItems: 2, admission: 'reject' });
    user(s, 'a', 1);
    user(s, 'b', 1);
    const r = user(s, 'c', 1);
    expect(!r.ok && r.message).toMatch(/2\/2 items.*max_items/);
    expect(contents(s, 'conversation')).toEqual(['a', 'b']);
  });

  it('never splits a tool call from its results when trimming by count', () => {
    const s = conversation({ maxItems: 2 });
    user(s, 'q', 1);
    put(s, 'conversation', 'calls', 1, {
      kind: 'assistant',
      toolCalls: [
        { id: 'a', name: 'x', arguments: {} },
        { id: 'b', name: 'y', arguments: {} },
      ],
    });
    put(s, 'conversation', 'ra', 1, { kind: 'tool_result', toolCallId: 'a' });
    put(s, 'conversation', 'rb', 1, { kind: 'tool_result', toolCallId: 'b' });
    expect(contents(s, 'conversation')).toEqual(['calls', 'ra', 'rb']);
    user(s, 'next', 1);
    expect(contents(s, 'conversation')).toEqual(['next']);
  });

  it('compact sends whole groups to pending and keeps the group just written', () => {
    const s = conversation({ maxItems: 3, strategy: 'compact', compactCount: 2 });
    user(s, 'u0', 1);
    put(s, 'conversation', 'calls', 1, { kind: 'assistant', toolCalls: [{ id: 'a', name: 'x', arguments: {} }] });
    put(s, 'conversation', 'ra', 1, { kind: 'tool_result', toolCallId: 'a' });
    const r = user(s, 'u1', 1);
    expect(r.ok && r.pending.map((e) => e.content)).toEqual(['u0', 'calls', 'ra']);
    expect(contents(s, 'conversation')).toEqual(['u1']);
  });

  it('compact never ends over max_items, even when writes refill the window before the fold', () => {
    for (const [maxItems, compactCount] of [
      [5, 3],
      [4, 2],
      [3, 3],
    ] as const) {
      const bp = blueprint([
        def('conversation', 'sliding_window', { maxTokens: 10_000, maxItems, strategy: 'compact', compactCount }),
      ]);
      const s = start(bp);
      for (let i = 0; i < 24; i++) {
        user(s, `u${i}`, 1);
        // Three writes per turn, then the maintenance point that folds what the strategy sent to pending.
        if (i % 3 === 2) {
          run(maintain(s, bp, { now: 0 }));
          expect(findRegion(s, 'conversation')!.entries.length).toBeLessThanOrEqual(maxItems);
        }
      }
      expect(contents(s, 'conversation').at(-1)).toBe('u23');
    }
  });
});

describe('hashmap (docs/reference/regions.md#hashmap-upserts)', () => {
  it('refuses a new key past max_entries under reject, naming max_entries', () => {
    const s = start(blueprint([def('files', 'hashmap', { maxEntries: 1, admission: 'reject' })]));
    put(s, 'files', 'a', 1, { key: 'a' });
    const r = put(s, 'files', 'b', 1, { key: 'b' });
    expect(!r.ok && r.message).toContain('max_entries');
  });

  it('keeps the position of a replaced key and touches it', () => {
    const s = start(blueprint([def('files', 'hashmap')]));
    put(s, 'files', 'a', 1, { key: 'a' });
    put(s, 'files', 'b', 1, { key: 'b' });
    const r = put(s, 'files', 'A', 2, { key: 'a' });
    expect(r.ok && r.created).toBe(false);
    expect(contents(s, 'files')).toEqual(['A', 'b']);
    const [a, b] = findRegion(s, 'files')!.entries;
    expect(a!.touched).toBeGreaterThan(b!.touched);
  });
});

function hooks(h: Partial<CustomRegionHooks>): (name: string) => CustomRegionHooks | undefined {
  return (name) => (name === 'lens' ? { render: () => ({ ok: true, value: '' }), ...h } : undefined);
}

describe('custom regions (docs/reference/regions.md#custom-region-hooks)', () => {
  const bp = () => blueprint([def('lens', 'custom', { maxTokens: 100, script: 'lens.rhai' })]);

  it('on_write may replace (recounted), decline, or fail (accepted, recorded)', () => {
    const s = start(bp());
    const replacing = { now: 0, hooks: hooks({ onWrite: () => ({ ok: true, value: 'sixteen chars!!!' }) }) };
    run(writeEntry(s, 'lens', { content: 'orig', tokens: 50 }, replacing));
    expect(findRegion(s, 'lens')!.entries.map((e) => [e.content, e.tokens])).toEqual([['sixteen chars!!!', 4]]);
    const declining = { now: 0, hooks: hooks({ onWrite: () => ({ ok: true, value: false }) }) };
    const declined = run(writeEntry(s, 'lens', { content: 'x', tokens: 5 }, declining));
    expect(declined.ok && declined.declined).toBe(true);
    expect(findRegion(s, 'lens')!.entries).toHaveLength(1);
    const failing = { now: 0, hooks: hooks({ onWrite: () => ({ ok: true, value: 42 }) }) };
    run(writeEntry(s, 'lens', { content: 'y', tokens: 5 }, failing));
    expect(contents(s, 'lens')).toEqual(['sixteen chars!!!', 'y']);
    expect(s.diagnostics.map((d) => d.code)).toContain('custom-script-failed');
  });

  it('on_overflow frees entries for a single retry, else region-full', () => {
    const s = start(bp());
    for (let i = 0; i < 3; i++) put(s, 'lens', `e${i}`, 30);
    let ctxSeen: unknown;
    const freeing = {
      now: 0,
      hooks: hooks({
        onOverflow: (ctx) => {
          ctxSeen = ctx;
          return { ok: true, value: [1, 1] };
        },
      }),
    };
    expect(run(writeEntry(s, 'lens', { content: 'n', tokens: 30 }, freeing)).ok).toBe(true);
    expect(ctxSeen).toMatchObject({ needed_tokens: 20, entries: [{ index: 0, content: 'e0', tokens: 30 }, {}, {}] });
    expect(contents(s, 'lens')).toEqual(['e0', 'e2', 'n']);
    const stingy = { now: 0, hooks: hooks({ onOverflow: () => ({ ok: true, value: [] }) }) };
    expect(run(writeEntry(s, 'lens', { content: 'm', tokens: 30 }, stingy)).ok).toBe(false);
    const broken = { now: 0, hooks: hooks({ onOverflow: () => ({ ok: true, value: [9] }) }) };
    const r = run(writeEntry(s, 'lens', { content: 'm', tokens: 30 }, broken));
    expect(!r.ok && r.code).toBe('region-full');
    expect(contents(s, 'lens')).toEqual(['e0', 'e2', 'n']);
  });

  it('without on_overflow an overflowing write is refused', () => {
    const s = start(bp());
    put(s, 'lens', 'a', 90);
    expect(put(s, 'lens', 'b', 20).ok).toBe(false);
  });

  it('the cascade asks on_overflow in phase 2, then drops oldest groups in phase 3', () => {
    const b = blueprint([def('lens', 'custom', { maxTokens: 9000, script: 'l.rhai' })]);
    const s = start(b, 10_000);
    for (let i = 0; i < 3; i++) put(s, 'lens', `e${i}`, 2000);
    put(s, 'lens', 'e3', 100);
    user(s, 'u', 3500);
    const asking = { now: 0, hooks: hooks({ onOverflow: () => ({ ok: true, value: [3] }) }) };
    const report = run(maintain(s, b, asking));
    expect(report.removed.map((r) => r.entries.map((e) => e.content))).toEqual([['e3'], ['e0']]);
    expect(windowUsed(s)).toBe(7500);
    expect(tokensOf(s, 'lens')).toEqual([2000, 2000]);
  });
});

describe('what each kind does differently, as the engine asks it', () => {
  const kinds = [
    'temporary',
    'pinned',
    'sliding_window',
    'compacting',
    'compact_history',
    'clearable',
    'hashmap',
    'checklist',
    'custom',
  ] as const;
  const table = Object.fromEntries(
    kinds.map((kind) => {
      const d = def('r', kind, { volatility: 'rewritten' });
      const b = kindBehaviour(kind);
      return [
        kind,
        [
          b.entries,
          b.folds(d),
          b.holdsSummaries,
          kindFacts(kind).renders,
          b.bulkTransforms,
          b.windowed,
          b.cascadePhases(d),
        ],
      ];
    }),
  );

  it('addresses, folds, renders and cascades each kind as the blueprint format says', () => {
    expect(table).toEqual({
      temporary: ['log', 'marked', false, 'system', true, false, [3]],
      pinned: ['log', 'marked', false, 'system', true, false, []],
      sliding_window: ['log', 'marked', false, 'messages', true, true, []],
      compacting: ['log', 'threshold', false, 'system', true, false, [4]],
      compact_history: ['log', 'marked', true, 'system', true, false, []],
      clearable: ['log', 'marked', false, 'system', true, false, [1]],
      hashmap: ['keyed', 'marked', false, 'system', false, false, []],
      checklist: ['items', 'marked', false, 'system', true, false, []],
      custom: ['log', 'marked', false, 'script', true, false, [2, 3]],
    });
  });

  it('folds a compact-strategy window whenever entries are pending, and keeps a persistent custom region stable', () => {
    expect(kindBehaviour('sliding_window').folds(def('w', 'sliding_window', { strategy: 'compact' }))).toBe('pending');
    const persistent = def('c', 'custom', { persistent: true });
    expect(kindBehaviour('custom').cascadePhases(persistent)).toEqual([]);
  });
});
