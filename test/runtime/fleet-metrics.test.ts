/**
 * What the workflow counts (docs/reference/operating.md#leviaths-metrics): the evictions, folds
 * and gate outcomes of the engine operations it applies, read from their effects; the tool
 * calls it answers without the tool activity; and a run's waits for people.
 */
import { describe, expect, it } from 'vitest';
import { createRunState } from '../../src/context/state.js';
import {
  type AppliedOp,
  applyLive,
  ENGINE,
  LEVIATH_METRICS,
  type MetricAdd,
  type OpCall,
  opMetrics,
  type WriteEviction,
  waitChange,
  workflowToolCall,
} from '../../src/runtime/index.js';
import type { Blueprint } from '../../src/shapes/frozen-blueprint.js';
import { blueprint, def, edge, handle, stage } from '../context/helpers.js';

/** Applies `call` as the workflow does and returns what it counts. */
async function counted(state: ReturnType<typeof createRunState>, bp: Blueprint, call: OpCall): Promise<MetricAdd[]> {
  const writes: WriteEviction[] = [];
  const env = {
    now: 0,
    onEvict: (region: { name: string; kind: string }, entries: readonly unknown[]) =>
      writes.push({ region: region.name, kind: region.kind, entries: entries as WriteEviction['entries'] }),
  };
  const { result } = await applyLive(ENGINE, state, bp, call, env, async (req) => handle(req));
  return opMetrics(state, bp.agent.name, { call, result } as AppliedOp, writes);
}

async function entered(bp: Blueprint, window = 100_000) {
  const state = createRunState(bp, { window });
  await counted(state, bp, { kind: 'enterStage', stage: bp.agent.entryStage });
  return state;
}

const write = (region: string, content: string, tokens: number): OpCall => ({
  kind: 'write',
  region,
  entry: { content, tokens, kind: 'user' },
});

describe('the metrics of an engine operation', () => {
  it('count the entries and tokens a write evicted, by region kind', async () => {
    const bp = blueprint([def('notes', 'temporary', { maxTokens: 100 })]);
    const state = await entered(bp);
    expect(await counted(state, bp, write('notes', 'a', 60))).toEqual([]);
    expect(await counted(state, bp, write('notes', 'b', 60))).toEqual([
      { metric: 'evictions', value: 1, tags: { kind: 'temporary', cause: 'write' } },
      { metric: 'evictedTokens', value: 60, tags: { kind: 'temporary', cause: 'write' } },
    ]);
  });

  it('count a write that refuses nothing, and a refused write, as no eviction', async () => {
    const bp = blueprint([def('notes', 'temporary', { maxTokens: 100, admission: 'reject' })]);
    const state = await entered(bp);
    await counted(state, bp, write('notes', 'a', 60));
    expect(await counted(state, bp, write('notes', 'b', 60))).toEqual([]);
  });

  it('count a fold at a maintenance point by kind and outcome, with the tokens it summarised', async () => {
    const conv = def('conversation', 'sliding_window', {
      maxTokens: 1000,
      maxItems: 5,
      strategy: 'compact',
      compactCount: 3,
    });
    const bp = blueprint([conv]);
    const state = await entered(bp);
    for (let i = 0; i < 6; i++) await counted(state, bp, write('conversation', `u${i}`, 10));
    expect(await counted(state, bp, { kind: 'maintain' })).toEqual([
      { metric: 'folds', value: 1, tags: { kind: 'sliding_window', outcome: 'ok' } },
      { metric: 'foldedTokens', value: 30, tags: { kind: 'sliding_window' } },
    ]);
  });

  it("count the window cascade's removals as evictions of cause cascade", async () => {
    const bp = blueprint([def('p', 'pinned', { maxTokens: 6000 }), def('t', 'temporary', { maxTokens: 4000 })]);
    const state = await entered(bp, 10_000);
    await counted(state, bp, write('p', 'seed', 5500));
    for (let i = 0; i < 3; i++) await counted(state, bp, write('t', `t${i}`, 1000));
    await counted(state, bp, write('conversation', 'a', 1000));
    await counted(state, bp, write('conversation', 'b', 100));
    // The oldest temporary group goes (docs/reference/regions.md#window-cascade).
    expect(await counted(state, bp, { kind: 'maintain' })).toEqual([
      { metric: 'evictions', value: 1, tags: { kind: 'temporary', cause: 'cascade' } },
      { metric: 'evictedTokens', value: 1000, tags: { kind: 'temporary', cause: 'cascade' } },
    ]);
  });

  it('count a completion check that blocks, then one forced through, by blueprint, stage and check', async () => {
    const toReview = edge('review', { gate: { requireNoOpenItems: 'todos', maxAttempts: 1 } });
    const bp = blueprint(
      [def('todos', 'checklist')],
      [stage('implement', { transitions: [toReview] }), stage('review')],
    );
    const state = await entered(bp);
    await counted(state, bp, {
      kind: 'contextTool',
      tool: 'todo_add',
      args: { region: 'todos', item: 'write tests' },
      counts: { item: 2 },
    });
    const gate: OpCall = {
      kind: 'gate',
      fromStage: 'implement',
      target: 'review',
      facts: { modifyingCallSucceeded: false, modifyingCallDenied: false },
    };
    const tags = { blueprint: 'test', stage: 'implement', check: 'require_no_open_items' };
    expect(await counted(state, bp, gate)).toEqual([{ metric: 'gateBlocks', value: 1, tags }]);
    expect(await counted(state, bp, gate)).toEqual([{ metric: 'gatesForced', value: 1, tags }]);
  });

  it('name only metrics of the one table, each with a leviath_ name ending in _total', () => {
    for (const { name } of Object.values(LEVIATH_METRICS)) expect(name).toMatch(/^leviath_[a-z_]+_total$/);
  });
});

describe('the tool calls the workflow counts', () => {
  const ok = { kind: 'context', tool: 'context_append', isError: false } as const;

  it('leave a call the tool activity ran to the activity', () => {
    const ran = { kind: 'builtin', tool: 'read_file', isError: false, denied: false, modifiedPaths: [] } as const;
    expect(workflowToolCall('read_file', ran, true)).toBeUndefined();
  });

  it('count context, agent and ask_user calls, refusals, denials and invalid arguments by outcome', () => {
    const tags = (add: MetricAdd | undefined) => add?.tags;
    expect(tags(workflowToolCall('context_append', ok, false))).toEqual({ tool: 'context_append', outcome: 'ok' });
    expect(tags(workflowToolCall('spawn_agent', { kind: 'agent', tool: 'spawn_agent', isError: true }, false))).toEqual(
      { tool: 'spawn_agent', outcome: 'error' },
    );
    const denied = { kind: 'builtin', tool: 'write_file', isError: true, denied: true, modifiedPaths: [] } as const;
    expect(tags(workflowToolCall('write_file', denied, false))).toEqual({ tool: 'write_file', outcome: 'denied' });
    expect(tags(workflowToolCall('shell', { kind: 'refused' }, false))).toEqual({ tool: 'shell', outcome: 'refused' });
    expect(tags(workflowToolCall('read_file', 'invalid', false))).toEqual({ tool: 'read_file', outcome: 'invalid' });
    // Every asking tool is a name of its own (docs/reference/interaction.md#the-asking-tools).
    expect(tags(workflowToolCall('ask_user_choice', { kind: 'refused' }, false))).toEqual({
      tool: 'ask_user_choice',
      outcome: 'refused',
    });
  });

  it('name a made-up tool that was refused or invalid `other`, so a label stays bounded', () => {
    expect(workflowToolCall('frobnicate_everything', { kind: 'refused' }, false)?.tags).toEqual({
      tool: 'other',
      outcome: 'refused',
    });
    expect(workflowToolCall('x'.repeat(200), 'invalid', false)?.tags.tool).toBe('other');
  });
});

describe("a run's waits", () => {
  it('start and end by reason, and count nothing while the reason stays', () => {
    expect(waitChange(undefined, 'approval')).toEqual([
      { metric: 'waitsStarted', value: 1, tags: { reason: 'approval' } },
    ]);
    expect(waitChange('approval', 'approval')).toEqual([]);
    expect(waitChange('approval', 'resume')).toEqual([
      { metric: 'waitsEnded', value: 1, tags: { reason: 'approval' } },
      { metric: 'waitsStarted', value: 1, tags: { reason: 'resume' } },
    ]);
    expect(waitChange('resume', undefined)).toEqual([{ metric: 'waitsEnded', value: 1, tags: { reason: 'resume' } }]);
  });
});
