import { describe, expect, it } from 'vitest';
import { regionTokens } from '../../src/context/measure.js';
import { createRunState, findRegion, type RunState } from '../../src/context/state.js';
import { writeEntry } from '../../src/context/write.js';
import type { RegionDef } from '../../src/shapes/blueprint.js';
import { blueprint, def, env, run } from './helpers.js';

function stateWith(...regions: RegionDef[]): RunState {
  const state = createRunState(blueprint(regions), { window: 100_000 });
  for (const r of state.regions) r.hidden = false;
  return state;
}

function append(state: RunState, region: string, content: string, tokens: number, extra = {}) {
  return run(writeEntry(state, region, { content, tokens, ...extra }, env));
}

describe('generic write (docs/reference/regions.md#generic-write)', () => {
  it('drops the oldest entry of a temporary region to make room (scenario 4)', () => {
    const s = stateWith(def('scratch', 'temporary', { maxTokens: 100 }));
    expect(append(s, 'scratch', 'oldest', 40).ok).toBe(true);
    expect(append(s, 'scratch', 'middle', 40).ok).toBe(true);
    const third = append(s, 'scratch', 'newest', 40);
    expect(third.ok && third.removed.length).toBe(1);
    const scratch = findRegion(s, 'scratch')!;
    expect(scratch.entries.map((e) => e.content)).toEqual(['middle', 'newest']);
    expect(regionTokens(scratch)).toBe(80);
  });

  it('refuses under reject and leaves the state as it was (scenario 5)', () => {
    const s = stateWith(def('sources', 'temporary', { maxTokens: 100, admission: 'reject' }));
    append(s, 'sources', 'a', 80);
    const before = JSON.stringify(s);
    const r = append(s, 'sources', 'b', 40);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.code).toBe('region-full');
    expect(!r.ok && r.message).toContain('80/100');
    expect(!r.ok && r.message).toContain('context_delete');
    expect(JSON.stringify(s)).toBe(before);
  });

  it('reports too-large with the tokens and the budget (scenario 5)', () => {
    const s = stateWith(def('sources', 'temporary', { maxTokens: 100, admission: 'reject' }));
    const r = append(s, 'sources', 'big', 500);
    expect(!r.ok && r.code).toBe('too-large');
    expect(!r.ok && r.message).toMatch(/500.*100/);
    expect(findRegion(s, 'sources')!.entries).toHaveLength(0);
  });

  it('records a user message too large for the conversation as a diagnostic the operator sees', () => {
    const s = stateWith(def('conversation', 'sliding_window', { maxTokens: 100, maxItems: 10 }));
    const r = append(s, 'conversation', 'a very long paste', 500, { kind: 'user' });
    expect(!r.ok && r.code).toBe('too-large');
    expect(findRegion(s, 'conversation')!.entries).toHaveLength(0);
    expect(s.diagnostics).toContainEqual({
      code: 'user-message-too-large',
      severity: 'warning',
      detail: expect.stringMatching(/500 tokens.*budget of 100 tokens/),
    });
  });

  it('evicts a tool call together with its result (scenario 7)', () => {
    const s = stateWith(def('conversation', 'sliding_window', { maxTokens: 100, maxItems: 100 }));
    append(s, 'conversation', 'calling', 30, {
      kind: 'assistant',
      toolCalls: [{ id: 't1', name: 'read_file', arguments: {} }],
    });
    append(s, 'conversation', 'file', 30, { kind: 'tool_result', toolCallId: 't1', toolName: 'read_file' });
    append(s, 'conversation', 'next', 60, { kind: 'user' });
    const conv = findRegion(s, 'conversation')!;
    expect(conv.entries.map((e) => e.kind)).toEqual(['user']);
    expect(regionTokens(conv)).toBe(60);
  });

  it('refuses pinned overflow with region-full', () => {
    const s = stateWith(def('task', 'pinned', { maxTokens: 50 }));
    append(s, 'task', 'a', 40);
    const r = append(s, 'task', 'b', 20);
    expect(!r.ok && r.code).toBe('region-full');
    expect(findRegion(s, 'task')!.entries).toHaveLength(1);
  });

  it('moves the oldest groups of a compacting region to pending (scenario 12)', () => {
    const s = stateWith(def('codebase', 'compacting', { maxTokens: 1000, compactAt: 0.8 }));
    append(s, 'codebase', 'one', 600);
    const r = append(s, 'codebase', 'two', 600);
    expect(r.ok && r.pending.length).toBe(1);
    expect(r.ok && r.removed.length).toBe(0);
    const c = findRegion(s, 'codebase')!;
    expect(c.pending.map((e) => e.content)).toEqual(['one']);
    expect(c.entries.map((e) => e.content)).toEqual(['two']);
  });

  it('advances the clock and ids only on success', () => {
    const s = stateWith(def('scratch', 'temporary', { maxTokens: 100 }));
    append(s, 'scratch', 'a', 10);
    append(s, 'scratch', 'b', 1000);
    append(s, 'scratch', 'c', 10);
    const [a, c] = findRegion(s, 'scratch')!.entries;
    expect(a!.id + 1).toBe(c!.id);
    expect(c!.created).toBe(a!.created + 1);
  });
});
