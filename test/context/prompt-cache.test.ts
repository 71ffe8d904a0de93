/**
 * The prompt's prefix stays stable turn to turn: system blocks run from
 * what changes least to what changes most, and the messages only grow at
 * their end, so a provider's prompt cache can reuse the previous request.
 */
import { describe, expect, it } from 'vitest';
import { loadBlueprintFromString } from '../../src/blueprint/load.js';
import { BEGIN_MESSAGE, renderPrompt, systemBlockText } from '../../src/context/render.js';
import { routeToolResult } from '../../src/context/routing.js';
import type { RunState } from '../../src/context/state.js';
import { applyContextTool } from '../../src/context/tools.js';
import type { PromptMessage } from '../../src/context/types.js';
import { blueprint, def, env, put, run, stage, start } from './helpers.js';

const strip = (messages: PromptMessage[]) => messages.map(({ cache: _marker, ...m }) => m);

/** One agent turn: an assistant message with one call, and its result routed as the stage says. */
function turn(state: RunState, bp: ReturnType<typeof blueprint>, i: number, name: string, args: object): void {
  const call = { id: `c${i}`, name, arguments: args as Record<string, unknown> };
  put(state, 'conversation', `step ${i}`, 5, { kind: 'assistant', toolCalls: [call] });
  if (name.startsWith('todo_') || name.startsWith('context_')) {
    const result = run(applyContextTool(state, bp, name, args, env));
    run(routeToolResult(state, bp, call, { content: result.content, tokens: 10, isError: result.isError }, env));
  } else {
    run(routeToolResult(state, bp, call, { content: `file ${i} `.repeat(50), tokens: 200, isError: false }, env));
  }
}

describe('append-only conversation', () => {
  it('starts with the kick-off message once and appends every assistant and tool message after it', () => {
    const bp = blueprint(
      [
        def('task', 'pinned', { volatility: 'stable', maxTokens: 1000 }),
        def('todos', 'checklist', { maxTokens: 1000 }),
        def('codebase', 'compacting', { volatility: 'grows', maxTokens: 20_000 }),
        def('conversation', 'sliding_window', { maxItems: 40, strategy: 'bulk', overflow: 20, maxTokens: 20_000 }),
      ],
      [
        stage('main', {
          toolRouting: {
            defaultRegion: 'conversation',
            overrides: { read_file: { region: 'codebase' } },
            maxResultTokensPerTool: {},
            persist: true,
          },
        }),
      ],
    );
    const state = start(bp);
    put(state, 'task', 'Fix the bug.', 4);
    let previous = strip(renderPrompt(state, bp, env).messages);
    expect(previous).toEqual([{ role: 'user', content: BEGIN_MESSAGE }]);
    for (let i = 1; i <= 12; i++) {
      if (i % 3 === 0) turn(state, bp, i, 'todo_add', { region: 'todos', item: `step ${i}` });
      else turn(state, bp, i, 'read_file', { path: `src/f${i}.ts` });
      const messages = strip(renderPrompt(state, bp, env).messages);
      expect(messages.slice(0, previous.length)).toEqual(previous);
      expect(messages.length).toBe(previous.length + 2);
      expect(messages.filter((m) => m.role === 'user' && m.content === BEGIN_MESSAGE)).toHaveLength(1);
      previous = messages;
    }
  });
});

describe('system order by volatility', () => {
  it('puts the stable task first, growing regions next, and the rewritten checklist and scratch last by default', () => {
    const loaded = loadBlueprintFromString(
      `[context.regions]
task               = { kind = "pinned", max_tokens = 1000 }
stage_instructions = { kind = "pinned", max_tokens = 1000 }
todos              = { kind = "checklist", max_tokens = 1000 }
codebase           = { kind = "compacting", max_tokens = 5000 }
history            = { kind = "compact_history", max_tokens = 1000, source_region = "codebase" }
scratch            = { kind = "temporary", max_tokens = 1000 }
`,
      '/bp',
      '/bp/agent.toml',
    );
    const bp = loaded.blueprint!;
    const state = start(bp);
    for (const name of ['task', 'stage_instructions', 'codebase', 'history', 'scratch'])
      put(state, name, `${name} text`, 3);
    run(applyContextTool(state, bp, 'todo_add', { region: 'todos', item: 'one' }, env));
    const order = renderPrompt(state, bp, env).system.map((b) => b.region);
    expect(order).toEqual(['task', 'history', 'codebase', 'stage_instructions', 'todos', 'scratch']);
  });

  it('keeps every block before a changed todo byte-identical by default', () => {
    const bp = loadBlueprintFromString(
      `[context.regions]
task     = { kind = "pinned", max_tokens = 1000 }
todos    = { kind = "checklist", max_tokens = 1000 }
codebase = { kind = "compacting", max_tokens = 5000 }
`,
      '/bp',
      '/bp/agent.toml',
    ).blueprint!;
    const state = start(bp);
    put(state, 'task', 'the task', 3);
    put(state, 'codebase', 'some code', 3);
    run(applyContextTool(state, bp, 'todo_add', { region: 'todos', item: 'one' }, env));
    const before = renderPrompt(state, bp, env).system;
    run(applyContextTool(state, bp, 'todo_add', { region: 'todos', item: 'two' }, env));
    const after = renderPrompt(state, bp, env).system;
    expect(after.map((b) => b.region)).toEqual(['task', 'codebase', 'todos']);
    expect(after.slice(0, 2).map(systemBlockText)).toEqual(before.slice(0, 2).map(systemBlockText));
    expect(systemBlockText(after[2]!)).not.toEqual(systemBlockText(before[2]!));
  });
});
