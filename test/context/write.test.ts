import { describe, expect, it } from 'vitest';
import { loadBlueprintFromString } from '../../src/blueprint/load.js';
import { regionTokens } from '../../src/context/measure.js';
import { createRunState, findRegion, type RunState } from '../../src/context/state.js';
import { writeEntry } from '../../src/context/write.js';
import type { Blueprint, RegionDef } from '../../src/shapes/frozen-blueprint.js';
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

/** A blueprint as `lev run` loads it, so the loader's defaults for each kind apply. */
function loaded(regions: string): Blueprint {
  const toml = `[agent]\nname = "t"\nmodel = "scripted:s.toml"\nentry_stage = "s"\n[context.regions]\nstage_instructions = { kind = "pinned", max_tokens = 100 }\n${regions}\n[stages.s]\nsystem_prompt = "x"\n`;
  const result = loadBlueprintFromString(toml, '/tmp', 'agent.toml');
  if (!result.blueprint) throw new Error(JSON.stringify(result.diagnostics));
  return result.blueprint;
}

function loadedState(regions: string): RunState {
  const state = createRunState(loaded(regions), { window: 100_000 });
  for (const r of state.regions) r.hidden = false;
  return state;
}

const held = (s: RunState, region: string) => findRegion(s, region)!.entries.map((e) => e.content);

// The original Leviath's own tests of eviction (its region module), which a loaded temporary region must pass.
describe('eviction frees only what a write needs (docs/reference/regions.md#chunked-eviction)', () => {
  it('an evicting region rolls the oldest off to admit a write', () => {
    const s = loadedState('findings = { kind = "temporary", max_tokens = 100 }');
    append(s, 'findings', 'oldest', 40);
    append(s, 'findings', 'middle', 40);
    expect(regionTokens(findRegion(s, 'findings')!)).toBe(80);
    append(s, 'findings', 'newest', 40);
    expect(regionTokens(findRegion(s, 'findings')!)).toBe(80);
    expect(held(s, 'findings')).toEqual(['middle', 'newest']);
  });

  it('eviction stops as soon as the write fits', () => {
    const s = loadedState('findings = { kind = "temporary", max_tokens = 100 }');
    for (let i = 0; i < 5; i++) append(s, 'findings', `entry-${i}`, 20);
    append(s, 'findings', 'newest', 20);
    expect(held(s, 'findings')).toEqual(['entry-1', 'entry-2', 'entry-3', 'entry-4', 'newest']);
  });

  it('the appended tool_results region frees only what a write needs too', () => {
    const bp = loaded('notes = { kind = "pinned", max_tokens = 100 }');
    expect(bp.regions.find((r) => r.name === 'tool_results')).not.toHaveProperty('shedTo');
  });

  it('a bulk sliding window still sheds in chunks, down to 75% of its budget', () => {
    const s = loadedState(
      'conversation = { kind = "sliding_window", max_tokens = 100, max_items = 100, strategy = "bulk", overflow = 10 }',
    );
    for (let i = 0; i < 5; i++) append(s, 'conversation', `turn-${i}`, 20, { kind: 'user' });
    append(s, 'conversation', 'newest', 20, { kind: 'user' });
    // 100 + 20 > 100: it sheds to floor(100 * 0.75) = 75, so 3 old turns of 20 go, not 1.
    expect(held(s, 'conversation')).toEqual(['turn-3', 'turn-4', 'newest']);
  });

  it('a run whose blueprint was frozen with a mark on a temporary region keeps shedding in chunks', () => {
    // Blueprints frozen before this rule carry `shedTo` on their temporary regions; replaying those runs must not change.
    const s = stateWith(def('findings', 'temporary', { maxTokens: 100, shedTo: 0.75 }));
    for (let i = 0; i < 5; i++) append(s, 'findings', `entry-${i}`, 20);
    append(s, 'findings', 'newest', 20);
    expect(held(s, 'findings')).toEqual(['entry-3', 'entry-4', 'newest']);
  });
});
