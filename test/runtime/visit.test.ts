/** The decisions of a stage visit and of a run, tested without a server. */
import { describe, expect, it } from 'vitest';
import { enterStage } from '../../src/context/enter-stage.js';
import { createRunState, type RunState } from '../../src/context/state.js';
import { invalidArgumentsText, toolFailedText, trackedPointer } from '../../src/runtime/texts.js';
import type { VisitFacts } from '../../src/runtime/types.js';
import {
  departure,
  eachStageSeeds,
  endInference,
  finalOutput,
  freshFacts,
  modifyingTools,
  noteTarget,
  replyOps,
  stopReason,
  stuckLimits,
  tallyCall,
  toolCallSummary,
} from '../../src/runtime/visit.js';
import type { StageDef } from '../../src/shapes/frozen-blueprint.js';
import { blueprint, def, edge, env, run, stage } from '../context/helpers.js';

const MINUTE = 60_000;

function entered(bp: ReturnType<typeof blueprint>, name: string): RunState {
  const state = createRunState(bp);
  run(enterStage(state, bp, name, env));
  return state;
}

function facts(extra: Partial<VisitFacts> = {}): VisitFacts {
  return { ...freshFacts(0), ...extra };
}

describe('when a visit stops', () => {
  const stuck = stage('work', {
    maxIterations: 10,
    transitions: [
      edge('done'),
      edge('help', { condition: 'stuck', stuckAfterIterations: 3, stuckAfterToolCalls: 20 }),
      edge('help2', { condition: 'stuck', stuckAfterIterations: 5, stuckAfterMinutes: 2, stuckAfterSameFileEdits: 4 }),
    ],
  });

  it('takes the smallest positive threshold of all stuck edges', () => {
    expect(stuckLimits(stuck)).toEqual({ iterations: 3, toolCalls: 20, minutes: 2, sameFileEdits: 4 });
    expect(stuckLimits(stage('plain'))).toEqual({});
  });

  it('stops at the iteration cap before looking at progress, with an error_report note', () => {
    const limits = stuckLimits(stuck);
    expect(stopReason(stuck, limits, facts({ idleInferences: 9 }), 10, 0)).toEqual({
      end: 'max_iterations',
      note: { region: 'error_report', text: 'Stage "work" reached its limit of 10 inferences.' },
    });
    expect(stopReason(stuck, limits, facts(), 9, 0)).toBeNull();
  });

  it('is stuck on each threshold alone, with a stuck_report note that gives the counts', () => {
    const limits = stuckLimits(stuck);
    const cases: Partial<VisitFacts>[] = [
      { idleInferences: 3 },
      { toolCallsWithoutProgress: 20 },
      { editsPerPath: { 'a.ts': 1, 'b.ts': 4 } },
    ];
    for (const c of cases) expect(stopReason(stuck, limits, facts(c), 0, 0)?.end).toBe('stuck');
    expect(stopReason(stuck, limits, facts({ lastProgressAt: 0 }), 0, 2 * MINUTE)?.note).toEqual({
      region: 'stuck_report',
      text: 'Stage "work" made no progress (0 inferences, 0 tool calls since the last change).',
    });
    expect(stopReason(stuck, limits, facts({ idleInferences: 2, toolCallsWithoutProgress: 19 }), 0, MINUTE)).toBeNull();
  });
});

describe('what counts as progress', () => {
  const work = stage('work', { transitions: [edge('done', { gate: { tools: ['deploy'], maxAttempts: 3 } })] });
  const modifying = modifyingTools(work);

  it('is a modifying tool that succeeded, including the tools a gate watches', () => {
    expect(modifying.has('write_file')).toBe(true);
    expect(modifying.has('deploy')).toBe(true);
    expect(modifying.has('read_file')).toBe(false);
    const ok = tallyCall(facts(), modifying, {
      kind: 'builtin',
      tool: 'deploy',
      isError: false,
      denied: false,
      modifiedPaths: [],
    });
    expect(ok.progressed).toBe(true);
    expect(ok.facts.modifyingCallSucceeded).toBe(true);
  });

  it('is a sub-agent tool that answered without an error', () => {
    expect(tallyCall(facts(), modifying, { kind: 'agent', tool: 'fan_out', isError: false }).progressed).toBe(true);
    expect(tallyCall(facts(), modifying, { kind: 'agent', tool: 'check_agent', isError: true })).toEqual({
      facts: facts({ toolCallsWithoutProgress: 1, calledTools: true }),
      progressed: false,
    });
  });

  it('is not a denied or failed modifying call, nor a read; a denial is remembered for the gate', () => {
    const denied = tallyCall(facts(), modifying, {
      kind: 'builtin',
      tool: 'write_file',
      isError: true,
      denied: true,
      modifiedPaths: [],
    });
    expect(denied).toEqual({
      facts: facts({ modifyingCallDenied: true, toolCallsWithoutProgress: 1, calledTools: true }),
      progressed: false,
    });
    const read = tallyCall(facts(), modifying, {
      kind: 'builtin',
      tool: 'read_file',
      isError: false,
      denied: false,
      modifiedPaths: [],
    });
    expect(read.progressed).toBe(false);
  });

  it('is a context tool that changed the region set, never context_read or context_list', () => {
    expect(tallyCall(facts(), modifying, { kind: 'context', tool: 'context_write', isError: false }).progressed).toBe(
      true,
    );
    expect(tallyCall(facts(), modifying, { kind: 'context', tool: 'context_write', isError: true }).progressed).toBe(
      false,
    );
    expect(tallyCall(facts(), modifying, { kind: 'context', tool: 'context_read', isError: false }).progressed).toBe(
      false,
    );
    expect(tallyCall(facts(), modifying, { kind: 'refused' })).toEqual({
      facts: facts({ toolCallsWithoutProgress: 1, calledTools: true }),
      progressed: false,
    });
  });

  it('counts edits per path without changing the facts it was given', () => {
    const before = facts({ editsPerPath: { 'a.ts': 2 } });
    const after = tallyCall(before, modifying, {
      kind: 'builtin',
      tool: 'edit_file',
      isError: false,
      denied: false,
      modifiedPaths: ['a.ts', 'b.ts'],
    }).facts;
    expect(after.editsPerPath).toEqual({ 'a.ts': 3, 'b.ts': 1 });
    expect(before.editsPerPath).toEqual({ 'a.ts': 2 });
  });

  it('resets the idle counters and the clock on progress, else counts one more idle inference', () => {
    const idle = facts({ idleInferences: 2, toolCallsWithoutProgress: 5, lastProgressAt: 10 });
    expect(endInference(idle, true, 99)).toEqual(facts({ lastProgressAt: 99 }));
    expect(endInference(idle, false, 99)).toEqual({ ...idle, idleInferences: 3 });
  });
});

describe('runtime notes and tool texts', () => {
  it('go to the preferred region when the stage shows it, else to the conversation as a user turn', () => {
    const bp = blueprint([def('error_report', 'pinned')]);
    const state = entered(bp, 'main');
    expect(noteTarget(state, 'error_report')).toEqual({ region: 'error_report', kind: 'text' });
    expect(noteTarget(state, 'stuck_report')).toEqual({ region: 'conversation', kind: 'user' });
  });

  it('are coded where they are errors and point a tracked file at its region', () => {
    expect(invalidArgumentsText('grep', 'Unexpected token')).toBe(
      '[bad-argument] the arguments of grep were not a JSON object (Unexpected token); call it again with valid JSON.',
    );
    // An adapter's own coded refusal is not wrapped in a misleading bad-argument text.
    const tooLarge = '[tool-arguments-too-large] The arguments of write_file are 5242880 bytes, more than allowed.';
    expect(invalidArgumentsText('write_file', tooLarge)).toBe(tooLarge);
    expect(toolFailedText('run_shell', 'worker lost')).toBe('[tool-failed] run_shell failed: worker lost');
    expect(trackedPointer('read_file', 'src/a.ts', 120, 'files')).toBe(
      `read_file src/a.ts: the file's text (120 tokens) is kept in region "files" under key "src/a.ts", already in your prompt.`,
    );
    expect(toolCallSummary({ id: '1', name: 'run_shell', arguments: { command: 'npm test' } })).toBe(
      'tool: run_shell npm test',
    );
    expect(toolCallSummary({ id: '1', name: 'current_time', arguments: {} })).toBe('tool: current_time');
  });
});

describe('which edge a visit leaves by', () => {
  const bpWith = (work: Partial<StageDef>, extra: StageDef[] = []) =>
    blueprint([], [stage('work', work), stage('review'), stage('fix', { maxRevisits: 0 }), ...extra]);

  it('follows the only normal edge after the completion checks', () => {
    const bp = bpWith({ transitions: [edge('review')] });
    expect(departure(entered(bp, 'work'), bp, 'completed')).toEqual({
      kind: 'leave',
      edge: bp.stages[0]!.transitions[0],
      checks: true,
    });
  });

  it('ends the run from a stage without normal edges, still after the checks', () => {
    const bp = bpWith({});
    expect(departure(entered(bp, 'work'), bp, 'completed')).toEqual({ kind: 'leave', edge: null, checks: true });
  });

  it('asks the model when there is a choice, offering DONE when the stage may complete', () => {
    const bp = bpWith({ allowComplete: true, transitions: [edge('review', { condition: 'llm_choice' })] });
    const route = departure(entered(bp, 'work'), bp, 'completed');
    expect(route).toMatchObject({ kind: 'choose', options: ['review', 'DONE'], checks: true });
  });

  it('takes the error or dead_end edge after an error without checks, and fails without one', () => {
    const withError = bpWith({ transitions: [edge('review'), edge('fix', { condition: 'dead_end' })] });
    expect(departure(entered(withError, 'work'), withError, 'error', 'boom')).toEqual({
      kind: 'leave',
      edge: withError.stages[0]!.transitions[1],
      checks: false,
    });
    const bare = bpWith({ transitions: [edge('review')] });
    expect(departure(entered(bare, 'work'), bare, 'error', 'boom')).toEqual({
      kind: 'fail',
      code: 'stage-failed',
      message: 'stage "work" ended with error (boom) and has no error or dead_end edge',
    });
  });

  it('fails the run when no tool worker came, even with an error edge (docs/reference/long-runs.md#tool_worker_patience)', () => {
    const withError = bpWith({ transitions: [edge('review'), edge('fix', { condition: 'dead_end' })] });
    expect(
      departure(entered(withError, 'work'), withError, 'error', 'No tool worker took…', 'tool-worker-missing'),
    ).toEqual({
      kind: 'fail',
      code: 'tool-worker-missing',
      message: 'stage "work" ended in error: No tool worker took…',
    });
  });

  it('runs a stuck stage again when it has no stuck edge', () => {
    const bp = bpWith({ transitions: [edge('review')] });
    expect(departure(entered(bp, 'work'), bp, 'stuck')).toEqual({ kind: 'rerun' });
  });

  it('leaves by the normal edges without checks when the iteration cap has no edge of its own', () => {
    const bp = bpWith({ transitions: [edge('review')] });
    expect(departure(entered(bp, 'work'), bp, 'max_iterations')).toEqual({
      kind: 'leave',
      edge: bp.stages[0]!.transitions[0],
      checks: false,
    });
  });

  it('fails with dead-end when every normal edge used up its revisits and there is no way out', () => {
    const bp = bpWith({ transitions: [edge('fix')] });
    const state = entered(bp, 'work');
    state.visits.fix = 1;
    expect(departure(state, bp, 'completed')).toMatchObject({ kind: 'fail', code: 'dead-end' });
  });
});

describe('the run output and seed refreshes', () => {
  it('is the first non-empty final_output entry, else the last visit text', () => {
    const bp = blueprint([def('final_output', 'pinned')]);
    const state = entered(bp, 'main');
    expect(finalOutput(state, 'last words')).toBe('last words');
    state.regions
      .find((r) => r.name === 'final_output')!
      .entries.push(
        { content: '', tokens: 0, kind: 'text' } as never,
        { content: 'the report', tokens: 2, kind: 'text' } as never,
      );
    expect(finalOutput(state, 'last words')).toBe('the report');
  });

  it('refreshes only the visible regions whose seed runs on each stage entry', () => {
    const bp = blueprint([
      def('status', 'pinned', { seed: { form: 'command', command: 'git status', refresh: 'each_stage' } as never }),
      def('notes', 'pinned', { seed: { form: 'literal', text: 'hi' } as never }),
    ]);
    expect(eachStageSeeds(entered(bp, 'main'))).toEqual(['status']);
  });
});

describe('replyOps', () => {
  const base = {
    content: 'done',
    tokens: 3,
    toolCalls: [],
    invalidToolCalls: [],
    renderFailures: [],
  };

  it('stores a plain reply as one assistant turn', () => {
    expect(replyOps(base)).toEqual([
      {
        kind: 'write',
        region: 'conversation',
        entry: { kind: 'assistant', content: 'done', tokens: 3, toolCalls: [] },
      },
    ]);
  });

  it('records the reported prompt tokens and the render diagnostics first, then the turn with its calls', () => {
    const ops = replyOps({
      ...base,
      reportedPromptTokens: 120,
      renderFailures: ['hook failed'],
      renderCuts: ['cut to budget'],
      toolCalls: [{ id: 'c1', name: 'context_append', arguments: { text: 'x' }, argTokens: { text: 1 } }],
      invalidToolCalls: [{ id: 'c2', name: 'read_file', raw: '{', error: 'bad JSON' }],
    });
    expect(ops.map((op) => op.kind)).toEqual(['usage', 'diagnostic', 'diagnostic', 'write']);
    expect(ops[0]).toEqual({ kind: 'usage', promptTokens: 120 });
    expect(ops[1]).toMatchObject({ code: 'custom-render-failed', detail: 'hook failed', severity: 'warning' });
    expect(ops[2]).toMatchObject({ code: 'custom-render-over-budget', detail: 'cut to budget' });
    expect(ops[3]).toMatchObject({
      entry: {
        toolCalls: [
          { id: 'c1', name: 'context_append', arguments: { text: 'x' } },
          { id: 'c2', name: 'read_file', arguments: {} },
        ],
      },
    });
  });
});
