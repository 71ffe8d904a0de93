import { describe, expect, it } from 'vitest';
import { enterStage } from '../../src/context/enter-stage.js';
import { renderPrompt } from '../../src/context/render.js';
import { runSync } from '../../src/context/requests.js';
import { seedRegion } from '../../src/context/seed-fit.js';
import { createRunState, findRegion, type RunState } from '../../src/context/state.js';
import { blueprint, contents, def, env, handle, put, run, stage, start, tokensOf } from './helpers.js';

function seed(s: RunState, region: string, content: string, tokens: number) {
  return run(seedRegion(s, region, [{ content, tokens }], env, { replaceSeeded: true }));
}

describe('stage instructions (docs/reference/stages.md#stage-instructions, scenario 30)', () => {
  const stages = [
    stage('a', { systemPrompt: 'A does this', systemPromptTokens: 5 }),
    stage('b', { systemPrompt: 'B does that', systemPromptTokens: 6 }),
  ];

  it('replaces the content of stage_instructions on every entry', () => {
    const bp = blueprint([def('stage_instructions', 'pinned', { budgetPercent: 3 }), def('task', 'pinned')], stages);
    const s = start(bp);
    seed(s, 'task', 'the task', 10);
    expect(findRegion(s, 'stage_instructions')!.budget).toBe(3000);
    run(enterStage(s, bp, 'b', env));
    const si = findRegion(s, 'stage_instructions')!;
    expect(si.entries.map((e) => [e.content, e.stagePrompt])).toEqual([['B does that', 'b']]);
    expect(tokensOf(s, 'task')).toEqual([10]);
    const order = renderPrompt(s, bp, env).system.map((b) => b.region);
    expect(order.indexOf('task')).toBeLessThan(order.indexOf('stage_instructions'));
  });

  it('without stage_instructions appends the prompt to the first pinned region (variant)', () => {
    const bp = blueprint([def('task', 'pinned')], stages);
    const s = start(bp);
    seed(s, 'task', 'the task', 10);
    run(enterStage(s, bp, 'b', env));
    const task = findRegion(s, 'task')!;
    expect(task.entries).toHaveLength(2);
    expect(task.entries[0]!.seeded).toBe(true);
    expect(String(task.entries[1]!.content)).toMatch(/stage "b"[\s\S]*B does that/);
    expect(task.entries[1]!.stagePrompt).toBe('b');
    expect(findRegion(s, 'stage_instructions')).toBeUndefined();
  });

  it('fails the entry, changing nothing, when the prompt does not fit', () => {
    const bp = blueprint(
      [def('task', 'pinned', { maxTokens: 20 })],
      [stage('a'), stage('b', { systemPrompt: 'long', systemPromptTokens: 50 })],
    );
    const s = start(bp);
    const before = JSON.stringify(s);
    const r = run(enterStage(s, bp, 'b', env));
    expect(!r.ok && r.code).toBe('stage-prompt-too-large');
    expect(!r.ok && r.message).toMatch(/"b".*50 tokens.*"task".*20/);
    expect(JSON.stringify(s)).toBe(before);
  });

  it('counts a prompt the loader did not count', () => {
    const bp = blueprint([def('stage_instructions', 'pinned')], [stage('a', { systemPrompt: 'twelve chars' })]);
    const s = start(bp);
    expect(tokensOf(s, 'stage_instructions')).toEqual([3]);
  });
});

describe('layout and budgets at stage entry (docs/reference/stages.md#layout and docs/reference/regions.md#resolving-budgets)', () => {
  it('trims a window to the smaller max_items a stage declares, on entry', () => {
    const conversation = (maxItems: number, extra = {}) =>
      def('conversation', 'sliding_window', { maxTokens: 10_000, maxItems, ...extra });
    for (const [strategy, kept, pending] of [
      ['per_item', ['u3', 'u4'], []],
      // compact moves max(compact_count, len - max_items + 1) to pending, leaving room for the summary.
      ['compact', ['u4'], ['u0', 'u1', 'u2', 'u3']],
    ] as const) {
      const bp = blueprint(
        [conversation(10, { strategy })],
        [stage('a'), stage('b', { regions: [conversation(2, { strategy, compactCount: 2 })] })],
      );
      const s = start(bp);
      for (let i = 0; i < 5; i++) put(s, 'conversation', `u${i}`, 1, { kind: 'user' });
      const entered = run(enterStage(s, bp, 'b', env));
      expect(entered.ok).toBe(true);
      expect(contents(s, 'conversation')).toEqual(kept);
      expect(findRegion(s, 'conversation')!.pending.map((e) => e.content)).toEqual(pending);
    }
  });

  it('resolves percent budgets against the stage model window and counts visits', () => {
    const bp = blueprint([
      def('r', 'temporary', { budgetPercent: 20 }),
      def('c', 'compacting', { budgetPercent: 20, compactAt: 0.8 }),
    ]);
    const s = createRunState(bp);
    const r = run(enterStage(s, bp, 'main', env));
    expect(r.ok && r.window).toBe(200_000);
    expect(findRegion(s, 'r')!.budget).toBe(40_000);
    expect(findRegion(s, 'c')!.threshold).toBe(32_000);
    expect(s.visits).toEqual({ main: 1 });
  });

  it('assumes 8192 for an unknown model and records it', () => {
    const bp = blueprint([def('r', 'temporary', { budgetPercent: 50 })], [stage('main', { model: 'nowhere:model' })]);
    const s = createRunState(bp);
    run(enterStage(s, bp, 'main', env));
    expect(s.window.max).toBe(8192);
    expect(findRegion(s, 'r')!.budget).toBe(4096);
    expect(s.diagnostics.map((d) => d.code)).toContain('unknown-model-window');
  });

  it('reduces regions left over budget by their own rule', () => {
    const bp = blueprint(
      [
        def('t', 'temporary', { budgetPercent: 10 }),
        def('c', 'compacting', { budgetPercent: 10 }),
        def('p', 'pinned', { budgetPercent: 10 }),
      ],
      [stage('big'), stage('small', { model: 'small:m' })],
      {
        models: {
          'scripted:default': { contextWindow: 200_000, maxOutputTokens: 1 },
          'small:m': { contextWindow: 20_000, maxOutputTokens: 1 },
        },
      },
    );
    const s = createRunState(bp);
    run(enterStage(s, bp, 'big', env));
    for (const r of ['t', 'c', 'p']) for (let i = 0; i < 3; i++) put(s, r, `${r}${i}`, 1000);
    const r = run(enterStage(s, bp, 'small', env));
    expect(r.ok && r.reduced.map((x) => [x.region, x.removed.length, x.pending.length])).toEqual([
      ['t', 1, 0],
      ['c', 0, 1],
    ]);
    expect(r.ok && r.overBudget).toEqual(['p']);
    expect(contents(s, 't')).toEqual(['t1', 't2']);
    expect(findRegion(s, 'p')!.entries).toHaveLength(3);
    expect(s.diagnostics.map((d) => d.code)).toContain('region-over-budget');
  });

  it('refuses a layout without working space', () => {
    const bp = blueprint([def('p', 'pinned', { maxTokens: 15_000 })], [stage('main', { model: 'm:m' })], {
      models: { 'm:m': { contextWindow: 20_000, maxOutputTokens: 1 } },
    });
    const r = run(enterStage(createRunState(bp), bp, 'main', env));
    expect(!r.ok && r.code).toBe('working-space');
  });

  it('refuses a stage that changes a region kind', () => {
    const bp = blueprint([def('notes', 'temporary')], [stage('a'), stage('b', { regions: [def('notes', 'pinned')] })]);
    const s = start(bp);
    const r = run(enterStage(s, bp, 'b', env));
    expect(!r.ok && r.code).toBe('region-kind-changed');
  });

  it('orders visible regions by the stage layout, then the runtime ones, then hidden ones', () => {
    const bp = blueprint(
      [def('notes', 'temporary'), def('stage_instructions', 'pinned')],
      [stage('a'), stage('b', { regions: [def('work', 'temporary')] })],
    );
    const s = start(bp);
    run(enterStage(s, bp, 'b', env));
    expect(s.regions.map((r) => [r.name, r.hidden])).toEqual([
      ['work', false],
      ['conversation', false],
      ['tool_results', false],
      ['final_output', false],
      ['stage_instructions', false],
      ['notes', true],
    ]);
    run(enterStage(s, bp, 'a', env));
    expect(findRegion(s, 'work')!.hidden).toBe(true);
    expect(s.visits).toEqual({ a: 2, b: 1 });
  });
});

describe('seeds (docs/reference/seeds.md#fitting)', () => {
  it('cuts the first seed that does not fit and leaves the rest out', () => {
    const bp = blueprint([def('docs', 'pinned', { maxTokens: 100 })]);
    const s = start(bp);
    const texts = [
      { content: 'a', tokens: 60, key: 'a.md' },
      { content: 'b', tokens: 60, key: 'b.md' },
      { content: 'c', tokens: 10, key: 'c.md' },
    ];
    const requests: unknown[] = [];
    const r = runWith(s, texts, requests);
    expect(r.ok && [r.written.length, r.cut, r.leftOut]).toEqual([2, true, 1]);
    expect(tokensOf(s, 'docs')).toEqual([60, 40]);
    expect(requests).toContainEqual(
      expect.objectContaining({
        type: 'cut',
        target: 40,
        marker: "seed exceeded the region's budget; 1 later entry left out",
      }),
    );
  });

  it('makes one open item per non-empty line of a checklist seed', () => {
    const bp = blueprint([def('todos', 'checklist')]);
    const s = start(bp);
    run(seedRegion(s, 'todos', [{ content: 'first\n\n second \nthird', tokens: 9 }], env, { replaceSeeded: false }));
    const todos = findRegion(s, 'todos')!;
    expect(todos.entries.map((e) => [e.checklist!.id, e.content])).toEqual([
      [1, 'first'],
      [2, 'second'],
      [3, 'third'],
    ]);
  });

  it('replaces seeded entries and keeps the others', () => {
    const bp = blueprint([def('docs', 'temporary')]);
    const s = start(bp);
    seed(s, 'docs', 'old seed', 5);
    put(s, 'docs', 'agent note', 3);
    seed(s, 'docs', 'new seed', 7);
    expect(contents(s, 'docs')).toEqual(['agent note', 'new seed']);
    expect(findRegion(s, 'docs')!.updates).toBe(0);
  });
});

function runWith(s: RunState, texts: { content: string; tokens: number; key: string }[], log: unknown[]) {
  return runSync(seedRegion(s, 'docs', texts, env, { replaceSeeded: false }), (req) => {
    log.push(req);
    return handle(req);
  });
}

describe('state identity', () => {
  it('keeps region objects callers hold across stage entry and seeding', () => {
    const bp = blueprint([def('notes', 'temporary')], [stage('a'), stage('b')]);
    const s = start(bp);
    const notes = findRegion(s, 'notes')!;
    run(enterStage(s, bp, 'b', env));
    run(seedRegion(s, 'notes', [{ content: 'x', tokens: 1 }], env, { replaceSeeded: true }));
    expect(findRegion(s, 'notes')).toBe(notes);
    expect(notes.entries).toHaveLength(1);
  });
});

describe('hashmap seeds', () => {
  it('replace an entry under the same key and keep the others', () => {
    const bp = blueprint([def('files', 'hashmap')]);
    const s = start(bp);
    put(s, 'files', 'old a', 3, { key: 'a.ts' });
    put(s, 'files', 'b', 3, { key: 'b.ts' });
    run(seedRegion(s, 'files', [{ content: 'new a', tokens: 4, key: 'a.ts' }], env, { replaceSeeded: false }));
    expect(findRegion(s, 'files')!.entries.map((e) => [e.key, e.content])).toEqual([
      ['b.ts', 'b'],
      ['a.ts', 'new a'],
    ]);
  });
});
