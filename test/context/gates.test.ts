import { describe, expect, it } from 'vitest';
import { enterStage } from '../../src/context/enter-stage.js';
import { chooseEdge, completionEdges, evaluateGate, outcomeEdge } from '../../src/context/gates.js';
import { findRegion, type RunState } from '../../src/context/state.js';
import { applyContextTool } from '../../src/context/tools.js';
import type { EdgeDef } from '../../src/shapes/frozen-blueprint.js';
import { blueprint, def, edge, env, run, stage, start } from './helpers.js';

const facts = { modifyingCallSucceeded: false, modifyingCallDenied: false };

function gateTo(s: RunState, bp: ReturnType<typeof blueprint>, to: EdgeDef | null) {
  return run(evaluateGate(s, bp, s.stage, to, facts, env));
}

describe('completion checks (docs/reference/stages.md#gates, scenario 20)', () => {
  const build = (maxAttempts: number) => {
    const toReview = edge('review', { gate: { requireNoOpenItems: 'todos', maxAttempts } });
    const bp = blueprint(
      [def('todos', 'checklist')],
      [stage('implement', { transitions: [toReview] }), stage('review')],
    );
    const s = start(bp);
    run(applyContextTool(s, bp, 'todo_add', { region: 'todos', item: 'write tests' }, env));
    return { bp, s, toReview };
  };

  it('blocks with a nudge until the shared counter reaches the cap, then forces', () => {
    const { bp, s, toReview } = build(2);
    for (const attempt of [1, 2]) {
      const r = gateTo(s, bp, toReview);
      expect(r.outcome).toBe('block');
      expect(r.nudge).toContain('#1 write tests');
      expect(r.nudge).toContain('todo_done');
      expect(s.attempts).toBe(attempt);
      const last = findRegion(s, 'conversation')!.entries.at(-1)!;
      expect([last.kind, last.runtime, last.content]).toEqual(['user', true, r.nudge]);
    }
    const third = gateTo(s, bp, toReview);
    expect(third.outcome).toBe('forced');
    expect(s.gatesForced).toEqual([
      { stage: 'implement', target: 'review', check: 'require_no_open_items', detail: third.nudge },
    ]);
    expect(s.diagnostics.map((d) => d.code)).toContain('gate-forced');
  });

  it('forces at once with max_attempts = 0', () => {
    const { bp, s, toReview } = build(0);
    expect(gateTo(s, bp, toReview).outcome).toBe('forced');
    expect(s.gatesForced).toHaveLength(1);
  });

  it('passes once the items are closed, and the counter resets on stage entry', () => {
    const { bp, s, toReview } = build(2);
    gateTo(s, bp, toReview);
    run(applyContextTool(s, bp, 'todo_done', { region: 'todos', id: 1 }, env));
    expect(gateTo(s, bp, toReview).outcome).toBe('pass');
    run(enterStage(s, bp, 'review', env));
    expect(s.attempts).toBe(0);
  });

  it('checks required regions first, and records them when forced through', () => {
    const bp = blueprint(
      [def('report', 'temporary', { required: true, requiredMessage: 'Write {region} now.' })],
      [stage('main')],
    );
    const s = start(bp);
    for (let i = 0; i < 3; i++) expect(gateTo(s, bp, null).outcome).toBe('block');
    const forced = gateTo(s, bp, null);
    expect(forced).toMatchObject({ outcome: 'forced', check: 'required_regions', nudge: 'Write report now.' });
    expect(s.requiredRegionsAbandoned).toEqual(['report']);
    expect(s.gatesForced[0]!.target).toBeNull();
  });

  it('skips required regions when the stage cannot write context', () => {
    const bp = blueprint(
      [def('report', 'temporary', { required: true })],
      [stage('main', { availableTools: ['read_file'] })],
    );
    const s = start(bp);
    expect(gateTo(s, bp, null).outcome).toBe('pass');
  });

  it('require_region_updated counts tool updates since stage entry only', () => {
    const toNext = edge('next', { gate: { requireRegionUpdated: 'notes', maxAttempts: 3, message: 'Update notes.' } });
    const bp = blueprint([def('notes', 'temporary')], [stage('main', { transitions: [toNext] }), stage('next')]);
    const s = start(bp);
    expect(gateTo(s, bp, toNext)).toMatchObject({ outcome: 'block', nudge: 'Update notes.' });
    run(applyContextTool(s, bp, 'context_append', { region: 'notes', content: 'x' }, env));
    expect(gateTo(s, bp, toNext).outcome).toBe('pass');
  });

  it('require_modifications passes on a modifying call, a denial, a filled region, or no modifying tool', () => {
    const gate = { requireModifications: true, maxAttempts: 3, region: 'changes' };
    const toNext = edge('next', { gate });
    const bp = blueprint([def('changes', 'temporary')], [stage('main', { transitions: [toNext] }), stage('next')]);
    const s = start(bp);
    const blocked = gateTo(s, bp, toNext);
    expect(blocked.nudge).toContain('shell');
    expect(
      run(evaluateGate(s, bp, 'main', toNext, { modifyingCallSucceeded: true, modifyingCallDenied: false }, env))
        .outcome,
    ).toBe('pass');
    expect(
      run(evaluateGate(s, bp, 'main', toNext, { modifyingCallSucceeded: false, modifyingCallDenied: true }, env))
        .outcome,
    ).toBe('pass');
    run(applyContextTool(s, bp, 'context_append', { region: 'changes', content: 'x' }, env));
    expect(gateTo(s, bp, toNext).outcome).toBe('pass');
    const readOnly = blueprint(
      [],
      [stage('main', { transitions: [toNext], availableTools: ['read_file'] }), stage('next')],
    );
    const s2 = start(readOnly);
    expect(
      run(
        evaluateGate(
          s2,
          readOnly,
          'main',
          edge('next', { gate: { requireModifications: true, maxAttempts: 3 } }),
          facts,
          env,
        ),
      ).outcome,
    ).toBe('pass');
  });
});

describe('edges (docs/reference/stages.md#normal-completion)', () => {
  it('ends the run when the stage declares no normal edge', () => {
    const bp = blueprint([], [stage('main', { transitions: [edge('fix', { condition: 'error' })] }), stage('fix')]);
    expect(completionEdges(start(bp), bp)).toEqual({ kind: 'end' });
  });

  it('takes the single edge, and reports a dead end once max_revisits is used up', () => {
    const bp = blueprint(
      [],
      [
        stage('a', { transitions: [edge('b'), edge('oops', { condition: 'dead_end' })] }),
        stage('b', { maxRevisits: 0, transitions: [edge('a')] }),
        stage('oops'),
      ],
    );
    const s = start(bp);
    expect(completionEdges(s, bp)).toMatchObject({ kind: 'take', edge: { target: 'b' } });
    run(enterStage(s, bp, 'b', env));
    run(enterStage(s, bp, 'a', env));
    expect(completionEdges(s, bp)).toMatchObject({ kind: 'dead_end', edge: { target: 'oops' } });
  });

  it('matches the reply on the first line, then on a short last line, else falls back', () => {
    const bp = blueprint(
      [],
      [
        stage('a', { transitions: [edge('plan', { condition: 'llm_choice', hint: 'think more' }), edge('build')] }),
        stage('plan'),
        stage('build'),
      ],
    );
    const s = start(bp);
    const route = completionEdges(s, bp);
    expect(route.kind === 'choose' && route.prompt).toContain('plan: think more');
    expect(chooseEdge(s, bp, 'Going to BUILD now')).toMatchObject({
      kind: 'edge',
      edge: { target: 'build' },
      unmatched: false,
    });
    expect(chooseEdge(s, bp, 'Long explanation of rebuilding\nthen: plan')).toMatchObject({ edge: { target: 'plan' } });
    expect(chooseEdge(s, bp, 'prebuild\nnothing useful in this last line here')).toMatchObject({
      edge: { target: 'plan' },
      unmatched: true,
    });
  });

  it("asks with the stage's transition_prompt, followed by the edges and the reply rule", () => {
    const bp = blueprint(
      [],
      [
        stage('a', {
          transitionPrompt: '  Decide the next move:\n- more sources -> gather\n',
          allowComplete: true,
          transitions: [edge('gather', { condition: 'llm_choice', hint: 'broaden' }), edge('write')],
        }),
        stage('gather'),
        stage('write'),
      ],
    );
    const route = completionEdges(start(bp), bp);
    expect(route.kind === 'choose' && route.prompt).toBe(
      'Decide the next move:\n- more sources -> gather\n\nAvailable transitions:\ngather: broaden\nwrite\nDONE: finish the run here\n\nReply with one of these names on the first line.',
    );
    expect(chooseEdge(start(bp), bp, 'gather')).toMatchObject({ edge: { target: 'gather' } });
  });

  it('ends the run on DONE or no match when allow_complete is set', () => {
    const bp = blueprint([], [stage('a', { allowComplete: true, transitions: [edge('b')] }), stage('b')]);
    const s = start(bp);
    expect(chooseEdge(s, bp, 'done')).toEqual({ kind: 'end' });
    expect(chooseEdge(s, bp, 'whatever')).toEqual({ kind: 'end' });
    expect(chooseEdge(s, bp, 'b please')).toMatchObject({ kind: 'edge', edge: { target: 'b' } });
  });

  it('routes error, max-iteration and stuck outcomes', () => {
    const bp = blueprint(
      [],
      [stage('a', { transitions: [edge('b'), edge('x', { condition: 'dead_end' })] }), stage('b'), stage('x')],
    );
    const s = start(bp);
    expect(outcomeEdge(s, bp, 'error')).toMatchObject({ kind: 'edge', edge: { target: 'x' } });
    expect(outcomeEdge(s, bp, 'max_iterations')).toEqual({ kind: 'complete' });
    expect(outcomeEdge(s, bp, 'stuck')).toEqual({ kind: 'continue' });
  });
});
