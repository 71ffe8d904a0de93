import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { enterStage } from '../../src/context/enter-stage.js';
import { groupRanges } from '../../src/context/groups.js';
import { maintain } from '../../src/context/maintenance.js';
import { regionTokens } from '../../src/context/measure.js';
import { findRegion, type RunState } from '../../src/context/state.js';
import { applyContextTool } from '../../src/context/tools.js';
import type { Entry } from '../../src/shapes/content.js';
import type { WindowStrategy } from '../../src/shapes/frozen-blueprint.js';
import { blueprint, def, env, put, run, stage, start } from './helpers.js';

const WRITABLE = ['pin', 'tmp', 'strict', 'comp', 'clear', 'files', 'lru'] as const;

type Event =
  | { op: 'write'; region: (typeof WRITABLE)[number]; tokens: number; key: number }
  | { op: 'turn'; calls: number; tokens: number }
  | { op: 'user'; tokens: number }
  | { op: 'maintain' }
  | { op: 'todo_add'; tokens: number }
  | { op: 'todo_delete'; index: number }
  | { op: 'delete'; region: 'tmp' | 'strict' | 'files'; oldest: number };

const event: fc.Arbitrary<Event> = fc.oneof(
  fc.record({
    op: fc.constant('write' as const),
    region: fc.constantFrom(...WRITABLE),
    tokens: fc.integer({ min: 0, max: 180 }),
    key: fc.integer({ min: 0, max: 5 }),
  }),
  fc.record({
    op: fc.constant('turn' as const),
    calls: fc.integer({ min: 0, max: 3 }),
    tokens: fc.integer({ min: 0, max: 60 }),
  }),
  fc.record({ op: fc.constant('user' as const), tokens: fc.integer({ min: 0, max: 120 }) }),
  fc.record({ op: fc.constant('maintain' as const) }),
  fc.record({ op: fc.constant('todo_add' as const), tokens: fc.integer({ min: 1, max: 60 }) }),
  fc.record({ op: fc.constant('todo_delete' as const), index: fc.integer({ min: 0, max: 4 }) }),
  fc.record({
    op: fc.constant('delete' as const),
    region: fc.constantFrom('tmp' as const, 'strict' as const, 'files' as const),
    oldest: fc.integer({ min: 1, max: 3 }),
  }),
);

function layout(strategy: WindowStrategy, window: number) {
  const bp = blueprint([
    def('pin', 'pinned', { maxTokens: 300 }),
    def('tmp', 'temporary', { maxTokens: 300, shedTo: 0.75 }),
    def('strict', 'temporary', { maxTokens: 300, admission: 'reject' }),
    def('comp', 'compacting', { maxTokens: 400, thresholdTokens: 250 }),
    def('hist', 'compact_history', { maxTokens: 120, sourceRegion: 'comp' }),
    def('clear', 'clearable', { maxTokens: 200 }),
    def('files', 'hashmap', { maxTokens: 300, maxEntries: 4 }),
    def('lru', 'hashmap', { maxTokens: 200, admission: 'reject' }),
    def('todos', 'checklist', { maxTokens: 200 }),
    def('conversation', 'sliding_window', { maxTokens: 500, maxItems: 6, strategy, overflow: 2, compactCount: 2 }),
  ]);
  return { bp, state: start(bp, window) };
}

let callSeq = 0;

function apply(s: RunState, bp: ReturnType<typeof blueprint>, e: Event): { failedWrite: boolean } {
  switch (e.op) {
    case 'write': {
      const r = put(
        s,
        e.region,
        `${e.region}-${e.tokens}`,
        e.tokens,
        e.region === 'files' || e.region === 'lru' ? { key: `k${e.key}` } : {},
      );
      return { failedWrite: !r.ok };
    }
    case 'turn': {
      const calls = Array.from({ length: e.calls }, () => ({ id: `c${callSeq++}`, name: 'read_file', arguments: {} }));
      put(s, 'conversation', 'assistant', e.tokens, { kind: 'assistant', toolCalls: calls });
      for (const c of calls)
        put(s, 'conversation', 'result', 5, { kind: 'tool_result', toolCallId: c.id, toolName: c.name });
      return { failedWrite: false };
    }
    case 'user':
      return { failedWrite: !put(s, 'conversation', 'user', e.tokens, { kind: 'user' }).ok };
    case 'maintain':
      run(maintain(s, bp, env));
      return { failedWrite: false };
    case 'todo_add':
      return {
        failedWrite: run(applyContextTool(s, bp, 'todo_add', { region: 'todos', item: 'x' }, env, { item: e.tokens }))
          .isError,
      };
    case 'todo_delete':
      return {
        failedWrite: run(applyContextTool(s, bp, 'context_delete', { region: 'todos', index: e.index }, env)).isError,
      };
    case 'delete':
      return {
        failedWrite: run(applyContextTool(s, bp, 'context_delete', { region: e.region, oldest: e.oldest }, env))
          .isError,
      };
  }
}

function ids(entries: Entry[]): number[] {
  return entries.map((x) => x.id);
}

function pairedCalls(s: RunState): boolean {
  const conv = findRegion(s, 'conversation')!;
  for (const [start, end] of groupRanges(conv.entries)) {
    const head = conv.entries[start]!;
    if (head.kind === 'tool_result') return false;
    if (head.kind === 'assistant') {
      const calls = (head.toolCalls ?? []).map((c) => c.id);
      const results = conv.entries.slice(start + 1, end).map((x) => x.toolCallId);
      if (calls.join() !== results.join()) return false;
    }
  }
  return true;
}

describe('engine invariants over random event sequences', () => {
  it('hold for every strategy and window', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<WindowStrategy>('per_item', 'bulk', 'compact'),
        fc.constantFrom(1500, 3000, 100_000),
        fc.array(event, { maxLength: 60 }),
        (strategy, window, events) => {
          const { bp, state: s } = layout(strategy, window);
          const pinned = new Set<number>();
          let maxItemId = 0;
          for (const e of events) {
            const before = JSON.stringify(s);
            const strictBefore = ids(findRegion(s, 'strict')!.entries);
            const lruBefore = ids(findRegion(s, 'lru')!.entries);
            const { failedWrite } = apply(s, bp, e);

            if (failedWrite) expect(JSON.stringify(s)).toBe(before);
            if (e.op === 'write' && e.region === 'strict')
              expect(ids(findRegion(s, 'strict')!.entries).slice(0, strictBefore.length)).toEqual(strictBefore);
            if (e.op === 'write' && e.region === 'lru')
              expect(ids(findRegion(s, 'lru')!.entries)).toEqual(expect.arrayContaining(lruBefore));

            const pin = findRegion(s, 'pin')!;
            if (e.op === 'write' && e.region === 'pin' && !failedWrite) pinned.add(pin.entries.at(-1)!.id);
            expect(new Set(ids(pin.entries))).toEqual(pinned);

            for (const r of s.regions) expect(regionTokens(r)).toBeLessThanOrEqual(r.budget);
            expect(pairedCalls(s)).toBe(true);

            for (const item of findRegion(s, 'todos')!.entries) {
              if (item.created > (JSON.parse(before) as RunState).clock) {
                expect(item.checklist!.id).toBeGreaterThan(maxItemId);
                maxItemId = item.checklist!.id;
              }
            }
            const itemIds = findRegion(s, 'todos')!.entries.map((x) => x.checklist!.id);
            expect(new Set(itemIds).size).toBe(itemIds.length);
          }
          // Continue-as-new carries the state as JSON: the copy must be exact and behave the same.
          const copy = JSON.parse(JSON.stringify(s)) as RunState;
          expect(copy).toStrictEqual(s);
          expect(run(maintain(copy, bp, env))).toEqual(run(maintain(s, bp, env)));
          expect(copy).toStrictEqual(s);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('stage changes', () => {
  const models = {
    'scripted:default': { contextWindow: 200_000, maxOutputTokens: 1 },
    'small:m': { contextWindow: 2_000, maxOutputTokens: 1 },
  };
  const bp = blueprint(
    [
      def('pin', 'pinned', { budgetPercent: 10 }),
      def('tmp', 'temporary', { budgetPercent: 10 }),
      def('comp', 'compacting', { budgetPercent: 10 }),
      def('win', 'sliding_window', { budgetPercent: 10, maxItems: 4 }),
      def('files', 'hashmap', { budgetPercent: 10 }),
    ],
    [
      stage('wide'),
      stage('narrow', {
        model: 'small:m',
        regions: [
          def('tmp', 'temporary', { budgetPercent: 10 }),
          def('comp', 'compacting', { budgetPercent: 10 }),
          def('win', 'sliding_window', { budgetPercent: 10, maxItems: 4 }),
        ],
      }),
    ],
    { models },
  );
  const step = fc.oneof(
    fc.record({ op: fc.constant('enter' as const), stage: fc.constantFrom('wide', 'narrow') }),
    fc.record({
      op: fc.constant('write' as const),
      region: fc.constantFrom('pin', 'tmp', 'comp', 'win', 'files'),
      tokens: fc.integer({ min: 1, max: 3000 }),
      key: fc.integer({ min: 0, max: 3 }),
    }),
  );

  it('re-resolution leaves rolling regions within budget and never loses pinned entries', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const s = start(bp);
        const pinned = new Set<number>();
        for (const e of steps) {
          if (e.op === 'enter') {
            const r = run(enterStage(s, bp, e.stage, env));
            expect(r.ok).toBe(true);
            for (const region of s.regions.filter(
              (x) => !x.hidden && ['temporary', 'compacting', 'sliding_window'].includes(x.kind),
            )) {
              expect(regionTokens(region)).toBeLessThanOrEqual(region.budget);
            }
          } else {
            const before = JSON.stringify(s);
            const r = put(s, e.region, 'x', e.tokens, e.region === 'files' ? { key: `k${e.key}` } : {});
            if (!r.ok) expect(JSON.stringify(s)).toBe(before);
            else if (e.region === 'pin') pinned.add(r.entry!.id);
          }
          expect(new Set(ids(findRegion(s, 'pin')!.entries))).toEqual(pinned);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('eviction down to the low-water mark', () => {
  const bp = blueprint([
    def('tmp', 'temporary', { maxTokens: 300, shedTo: 0.75 }),
    def('conversation', 'sliding_window', {
      maxTokens: 400,
      maxItems: 30,
      strategy: 'bulk',
      overflow: 10,
      shedTo: 0.75,
    }),
  ]);
  const step = fc.oneof(
    fc.record({ op: fc.constant('write' as const), tokens: fc.integer({ min: 0, max: 300 }) }),
    fc.record({
      op: fc.constant('turn' as const),
      calls: fc.integer({ min: 0, max: 3 }),
      tokens: fc.integer({ min: 0, max: 120 }),
    }),
  );

  it('sheds whole groups, oldest first, only under pressure, to at most 75% of the budget, never over it', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 50 }), (steps) => {
        const s = start(bp);
        for (const e of steps) {
          const name = e.op === 'write' ? 'tmp' : 'conversation';
          const region = findRegion(s, name)!;
          const before = ids(region.entries);
          const usedBefore = regionTokens(region);
          if (e.op === 'write') put(s, 'tmp', `t${e.tokens}`, e.tokens);
          else apply(s, bp, e);
          const after = findRegion(s, name)!;
          const kept = ids(after.entries).filter((id) => before.includes(id));
          // Oldest first: what survives is the newest part of what was there.
          expect(kept).toEqual(before.slice(before.length - kept.length));
          for (const r of s.regions) expect(regionTokens(r)).toBeLessThanOrEqual(r.budget);
          expect(pairedCalls(s)).toBe(true);
          if (e.op === 'write' && kept.length < before.length) {
            // It had to evict: the write did not fit, and the region now sits at the mark or holds only the new entry.
            expect(usedBefore + e.tokens).toBeGreaterThan(after.budget);
            const mark = Math.floor(after.budget * 0.75);
            expect(regionTokens(after) <= mark || after.entries.length === 1).toBe(true);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
