import { describe, expect, it } from 'vitest';
import { enterStage } from '../../src/context/enter-stage.js';
import { maintain } from '../../src/context/maintenance.js';
import { runSync } from '../../src/context/requests.js';
import { seedRegion } from '../../src/context/seed-fit.js';
import { findRegion } from '../../src/context/state.js';
import { applyContextTool } from '../../src/context/tools.js';
import { applyTransform } from '../../src/context/transforms.js';
import { blueprint, def, edge, env, put, run, stage, start, tokensOf, user } from './helpers.js';

describe('edge transforms (docs/reference/stages.md#transforms)', () => {
  it('clear empties working regions and keeps protected ones (scenario 21)', () => {
    const toB = edge('b', { transform: 'clear' });
    const bp = blueprint(
      [
        def('task', 'pinned'),
        def('hist', 'compact_history', { sourceRegion: 'scratch' }),
        def('todos', 'checklist'),
        def('scratch', 'temporary', { maxTokens: 100 }),
        def('files', 'hashmap'),
      ],
      [stage('a', { transitions: [toB] }), stage('b')],
    );
    const s = start(bp);
    run(seedRegion(s, 'task', [{ content: 't', tokens: 50 }], env, { replaceSeeded: true }));
    run(seedRegion(s, 'hist', [{ content: 'h', tokens: 50 }], env, { replaceSeeded: true }));
    run(applyContextTool(s, bp, 'todo_add', { region: 'todos', item: 'one' }, env));
    put(s, 'scratch', 's', 100);
    put(s, 'files', 'f', 10, { key: 'f' });
    user(s, 'u1', 5);
    user(s, 'u2', 5);
    const report = applyTransform(s, bp, toB);
    run(enterStage(s, bp, 'b', env));
    expect(report.cleared).toEqual(expect.arrayContaining(['scratch', 'conversation', 'tool_results']));
    for (const r of ['scratch', 'conversation']) expect(findRegion(s, r)!.entries).toHaveLength(0);
    expect(tokensOf(s, 'task')).toEqual([50]);
    expect(tokensOf(s, 'hist')).toEqual([50]);
    expect(tokensOf(s, 'files')).toEqual([10]);
    expect(findRegion(s, 'todos')!.entries).toHaveLength(1);
    expect(run(applyContextTool(s, bp, 'todo_add', { region: 'todos', item: 'two' }, env)).content).toContain('#2');
  });

  it('compact folds marked regions at the next maintenance point (scenario 22)', () => {
    const toB = edge('b', { transform: 'compact' });
    for (const paired of [false, true]) {
      const regions = [def('scratch', 'temporary', { maxTokens: 1000 })];
      if (paired) regions.push(def('hist', 'compact_history', { maxTokens: 500, sourceRegion: 'scratch' }));
      const bp = blueprint(regions, [stage('a', { transitions: [toB] }), stage('b')]);
      const s = start(bp);
      for (let i = 0; i < 3; i++) put(s, 'scratch', `s${i}`, 100);
      expect(applyTransform(s, bp, toB).marked).toEqual(['scratch']);
      run(enterStage(s, bp, 'b', env));
      expect(tokensOf(s, 'scratch')).toEqual([100, 100, 100]);
      run(maintain(s, bp, env));
      if (paired) {
        expect(findRegion(s, 'scratch')!.entries).toHaveLength(0);
        expect(tokensOf(s, 'hist')).toEqual([30]);
      } else {
        expect(findRegion(s, 'scratch')!.entries.map((e) => [e.tokens, e.summary])).toEqual([[30, true]]);
      }
      expect(findRegion(s, 'scratch')!.markedForFold).toBeUndefined();
    }
  });

  it('custom clears and marks only the listed regions and passes the compact prompt', () => {
    const toB = edge('b', {
      transform: 'custom',
      transformConfig: { clear: ['files'], compact: ['notes'], carry: ['keep'], compactPrompt: 'Keep decisions.' },
    });
    const bp = blueprint(
      [def('files', 'hashmap'), def('notes', 'temporary'), def('keep', 'temporary')],
      [stage('a', { transitions: [toB] }), stage('b')],
    );
    const s = start(bp);
    put(s, 'files', 'f', 10, { key: 'f' });
    put(s, 'notes', 'n', 10);
    put(s, 'keep', 'k', 10);
    user(s, 'u', 1);
    const report = applyTransform(s, bp, toB);
    expect(report).toEqual({ transform: 'custom', cleared: ['files'], marked: ['notes'] });
    expect(findRegion(s, 'notes')!.markedCompactPrompt).toBe('Keep decisions.');
    const prompts: unknown[] = [];
    runSync(maintain(s, bp, env), (req) => {
      if (req.type === 'summarise') prompts.push(req.prompt);
      return req.type === 'summarise' ? { ok: true, text: { content: 'sum', tokens: 1 } } : 1;
    });
    expect(prompts).toEqual(['Keep decisions.']);
    expect(tokensOf(s, 'keep')).toEqual([10]);
    expect(tokensOf(s, 'conversation')).toEqual([1]);
  });
});
