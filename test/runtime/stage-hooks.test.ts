/**
 * Stage hooks' return contract (docs/reference/stage-hooks.md): what each
 * answer means, and what `after_inference` and `on_tool_call` make of a reply.
 */
import { describe, expect, it } from 'vitest';
import {
  afterInferenceHook,
  entersStage,
  hasTerminalHooks,
  hasVisitHooks,
  hookOutcome,
  regionHook,
  terminalHook,
  toolCallHook,
} from '../../src/runtime/stage-hooks.js';
import type { StageDef } from '../../src/shapes/frozen-blueprint.js';

const withHook = (event: string, body: string): StageDef => ({
  name: 'work',
  model: 'scripted:default',
  allowComplete: false,
  transitions: [],
  hooks: { [event]: 'hooks/h.rhai' },
  hookSources: { 'hooks/h.rhai': `fn ${event}(ctx) { ${body} }` },
});

describe('what a hook returns', () => {
  it('allows with (), true or allow; refuses with false, cancel or retry', () => {
    expect(hookOutcome('on_tool_call', undefined)).toEqual({ kind: 'allow' });
    expect(hookOutcome('on_tool_call', true)).toEqual({ kind: 'allow' });
    expect(hookOutcome('on_tool_call', { action: 'allow' })).toEqual({ kind: 'allow' });
    expect(hookOutcome('on_tool_call', false)).toEqual({
      kind: 'fail',
      message: 'on_tool_call refused: no reason given',
    });
    expect(hookOutcome('on_tool_call', { action: 'cancel', reason: 'no shell here' })).toEqual({
      kind: 'fail',
      message: 'on_tool_call refused: no shell here',
    });
    expect(hookOutcome('on_tool_call', { action: 'retry' })).toMatchObject({ kind: 'fail', message: /retry/ });
  });

  it('modifies with a value, and fails on anything else', () => {
    expect(hookOutcome('after_inference', { action: 'modify', value: 'x' })).toEqual({ kind: 'modify', value: 'x' });
    expect(hookOutcome('after_inference', { action: 'modify' })).toMatchObject({ kind: 'fail' });
    expect(hookOutcome('after_inference', 42)).toMatchObject({ kind: 'fail', message: /not \(\), a bool or a map/ });
    expect(hookOutcome('after_inference', { action: 'skip' })).toMatchObject({ kind: 'fail', message: /"skip"/ });
  });
});

describe('after_inference', () => {
  const reply = { text: '  Answer.  ', tokens: 5, toolNames: ['shell'] };

  it('replaces the text, sees the tool names, and fails the run when the script does', () => {
    expect(afterInferenceHook(withHook('after_inference', 'let seen = ctx.response; ()'), 0, reply)).toBeUndefined();
    const trim = withHook('after_inference', '#{ action: "modify", value: ctx.response.trim() }');
    expect(afterInferenceHook(trim, 0, reply)).toEqual({ text: 'Answer.' });
    const names = withHook('after_inference', 'if ctx.tool_calls.contains("shell") { false } else { () }');
    expect(afterInferenceHook(names, 0, reply)).toEqual({ failed: 'after_inference refused: no reason given' });
    const broken = withHook('after_inference', 'ctx.nope.len()');
    expect(afterInferenceHook(broken, 0, reply)).toMatchObject({ failed: /^after_inference hook failed/ });
    expect(afterInferenceHook(withHook('on_tool_call', '()'), 0, reply)).toBeUndefined();
  });
});

describe('on_tool_call', () => {
  const calls = [
    { id: 'c1', name: 'shell', arguments: { command: 'rm -rf /' } },
    { id: 'c2', name: 'read_file', arguments: { path: 'a' } },
  ];

  it('cancels, or replaces the calls keeping the ids of those in place', () => {
    const guard = withHook(
      'on_tool_call',
      'for c in ctx.tool_calls { if c.name == "shell" { return #{ action: "cancel", reason: "this stage plans" }; } } ()',
    );
    expect(toolCallHook(guard, 0, calls)).toEqual({ failed: 'on_tool_call refused: this stage plans' });
    expect(toolCallHook(guard, 0, [])).toBeUndefined();
    const tame = withHook(
      'on_tool_call',
      '#{ action: "modify", value: [#{ name: "shell", arguments: #{ command: "ls" } }, #{ name: "list_dir" }] }',
    );
    expect(toolCallHook(tame, 0, calls)).toEqual({
      calls: [
        { id: 'c1', name: 'shell', arguments: { command: 'ls' } },
        { id: 'hook-1-list_dir', name: 'list_dir', arguments: {} },
      ],
    });
    const bad = withHook('on_tool_call', '#{ action: "modify", value: [#{ arguments: #{} }] }');
    expect(toolCallHook(bad, 0, calls)).toEqual({ failed: 'on_tool_call: replacement call 0 has no `name`' });
  });
});

describe('on_completion and on_error', () => {
  it('replace the output or the message, or fail the run', () => {
    const tidy = withHook(
      'on_completion',
      '#{ action: "modify", value: ctx.output.to_upper() + " (" + ctx.status + ")" }',
    );
    expect(terminalHook(tidy, 0, 'on_completion', 'done')).toEqual({ text: 'DONE (completed)' });
    expect(hasTerminalHooks([tidy])).toBe(true);
    expect(hasTerminalHooks([withHook('on_tool_call', '()')])).toBe(false);
    const explain = withHook('on_error', '#{ action: "modify", value: "run failed: " + ctx.error }');
    expect(terminalHook(explain, 0, 'on_error', 'boom')).toEqual({ text: 'run failed: boom' });
    expect(terminalHook(explain, 0, 'on_completion', 'x')).toBeUndefined();
    const refuse = withHook('on_completion', '#{ action: "cancel", reason: "empty answer" }');
    expect(terminalHook(refuse, 0, 'on_completion', '')).toEqual({ failed: 'on_completion refused: empty answer' });
    expect(terminalHook(withHook('on_error', '#{ action: "modify", value: 1 }'), 0, 'on_error', 'x')).toEqual({
      failed: 'on_error: `value` must be the replacement text',
    });
  });
});

describe('on_stage_enter, before_inference and on_stage_exit', () => {
  const regions = { notes: '', conversation: 'hello' };

  it('on_stage_enter runs once a visit: not after an inference, nor again after going on as new before one', () => {
    expect(entersStage(0, {})).toBe(true);
    expect(entersStage(2, {})).toBe(false);
    expect(entersStage(0, { stageEntered: true })).toBe(false);
  });

  it('see the regions, and rewrite those they name', () => {
    const seed = withHook('on_stage_enter', '#{ action: "modify", value: #{ notes: "Focus on " + ctx.stage } }');
    expect(regionHook(seed, 0, 'on_stage_enter', regions)).toEqual({ writes: [['notes', 'Focus on work']] });
    expect(hasVisitHooks(seed)).toBe(true);
    expect(hasVisitHooks(withHook('on_error', '()'))).toBe(false);
    const gate = withHook('before_inference', 'if ctx.regions.conversation.len() > 3 { false } else { () }');
    expect(regionHook(gate, 0, 'before_inference', regions)).toEqual({
      failed: 'before_inference refused: no reason given',
    });
  });

  it('fail on a region the stage does not show, or a value that is not text', () => {
    const other = withHook('on_stage_exit', '#{ action: "modify", value: #{ elsewhere: "x" } }');
    expect(regionHook(other, 0, 'on_stage_exit', regions)).toEqual({
      failed: "on_stage_exit: no region 'elsewhere' in this stage's layout",
    });
    const number = withHook('on_stage_exit', '#{ action: "modify", value: #{ notes: 1 } }');
    expect(regionHook(number, 0, 'on_stage_exit', regions)).toEqual({
      failed: "on_stage_exit: region 'notes' must be given a string",
    });
  });
});
