/**
 * The prompt's prefix stays stable turn to turn: system blocks run from
 * what changes least to what changes most, and the messages only grow at
 * their end, so a provider's prompt cache can reuse the previous request.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadBlueprintFromString } from '../../src/blueprint/load.js';
import { maintain } from '../../src/context/maintenance.js';
import { BEGIN_MESSAGE, renderPrompt, systemBlockText } from '../../src/context/render.js';
import { routeToolResult } from '../../src/context/routing.js';
import type { RunState } from '../../src/context/state.js';
import { applyContextTool } from '../../src/context/tools.js';
import type { PromptMessage } from '../../src/shapes/content.js';
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

const CODER_LAYOUT = `[context.regions]
task               = { kind = "pinned", max_tokens = 1000 }
stage_instructions = { kind = "pinned", max_tokens = 1000 }
todos              = { kind = "checklist", max_tokens = 1000 }
codebase           = { kind = "compacting", max_tokens = 1500, compact_at = "80%" }
history            = { kind = "compact_history", max_tokens = 1000, source_region = "codebase" }
scratch            = { kind = "temporary", max_tokens = 1000 }
conversation       = { kind = "sliding_window", max_tokens = 40000, max_items = 400, strategy = "bulk", overflow = 20 }

[stages.main]
system_prompt = "Plan the change."
[stages.main.tool_routing]
default_region = "scratch"
[stages.main.tool_routing.overrides]
read_file = "codebase"
`;

function load(toml: string) {
  const loaded = loadBlueprintFromString(toml, '/bp', '/bp/agent.toml');
  if (!loaded.blueprint) throw new Error(loaded.diagnostics.map((d) => d.message).join('\n'));
  return loaded.blueprint;
}

/** The rendered prompt split the way a provider's cache sees it: system texts, the conversation, the tail. */
function parts(state: RunState, bp: ReturnType<typeof load>) {
  const rendered = renderPrompt(state, bp, env);
  const messages = strip(rendered.messages);
  const last = messages.at(-1);
  const tail = last?.role === 'user' && last.tail ? last : undefined;
  return {
    system: rendered.system.map((b) => `${b.region}:${systemBlockText(b)}`),
    conversation: tail ? messages.slice(0, -1) : messages,
    tail,
  };
}

describe('system order by volatility', () => {
  it('puts the stable task first, growing regions next, and the rewritten checklist and scratch in the tail', () => {
    const bp = load(CODER_LAYOUT);
    const state = start(bp);
    for (const name of ['task', 'codebase', 'history', 'scratch']) put(state, name, `${name} text`, 3);
    run(applyContextTool(state, bp, 'todo_add', { region: 'todos', item: 'one' }, env));
    const rendered = renderPrompt(state, bp, env);
    expect(rendered.system.map((b) => b.region)).toEqual(['task', 'history', 'codebase', 'stage_instructions']);
    const tail = rendered.messages.at(-1);
    expect(tail).toMatchObject({ role: 'user', tail: true });
    expect(tail?.content).toBe('## todos\n1 open, 0 done\n- [ ] #1 one\n\n## scratch\nscratch text');
  });

  it('keeps the rewritten regions in the system section, last, with [context] placement = "system"', () => {
    const bp = load(CODER_LAYOUT.replace('[context.regions]', '[context]\nplacement = "system"\n[context.regions]'));
    const state = start(bp);
    for (const name of ['task', 'codebase', 'history', 'scratch']) put(state, name, `${name} text`, 3);
    run(applyContextTool(state, bp, 'todo_add', { region: 'todos', item: 'one' }, env));
    const rendered = renderPrompt(state, bp, env);
    expect(rendered.system.map((b) => b.region)).toEqual([
      'task',
      'history',
      'codebase',
      'stage_instructions',
      'todos',
      'scratch',
    ]);
    expect(rendered.messages.some((m) => m.role === 'user' && m.tail)).toBe(false);
  });

  it('a todo change leaves the whole system section and the conversation byte-identical', () => {
    const bp = load(CODER_LAYOUT);
    const state = start(bp);
    put(state, 'task', 'the task', 3);
    put(state, 'codebase', 'some code', 3);
    turn(state, bp, 1, 'read_file', { path: 'a.ts' });
    const before = parts(state, bp);
    run(applyContextTool(state, bp, 'todo_add', { region: 'todos', item: 'two' }, env));
    const after = parts(state, bp);
    expect(after.system).toEqual(before.system);
    expect(after.conversation).toEqual(before.conversation);
    expect(after.tail?.content).toContain('two');
    expect(before.tail?.content ?? '').not.toContain('two');
  });
});

type Step = 'read' | 'todo' | 'note' | 'grep';

/** One turn of the coder loop, and which region its result changes. */
function step(state: RunState, bp: ReturnType<typeof load>, i: number, kind: Step): void {
  if (kind === 'read') turn(state, bp, i, 'read_file', { path: `src/f${i}.ts` });
  else if (kind === 'todo') turn(state, bp, i, 'todo_add', { region: 'todos', item: `step ${i}` });
  else if (kind === 'note') turn(state, bp, i, 'context_append', { region: 'scratch', content: `note ${i}` });
  else turn(state, bp, i, 'grep', { pattern: `p${i}` });
}

/** Every entry id each region holds, to tell which regions lost entries between two requests. */
function held(state: RunState): Map<string, Set<number>> {
  return new Map(state.regions.map((r) => [r.name, new Set(r.entries.map((e) => e.id))]));
}

function lostEntries(before: Map<string, Set<number>>, after: Map<string, Set<number>>): string[] {
  return [...before].filter(([name, ids]) => [...ids].some((id) => !after.get(name)?.has(id))).map(([name]) => name);
}

describe('the previous request stays the prefix except where a region lost entries (docs/reference/rendering.md#writes-in-place)', () => {
  it('holds for any sequence of reads, todos, notes and searches, compactions and sheds included', () => {
    let relayouts = 0;
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom<Step>('read', 'read', 'todo', 'note', 'grep'), { minLength: 10, maxLength: 60 }),
        (steps) => {
          const bp = load(CODER_LAYOUT);
          const state = start(bp);
          put(state, 'task', 'Fix the bug.', 4);
          let previous: ReturnType<typeof parts> | undefined;
          let before = held(state);
          let scratchShed = false;
          steps.forEach((kind, i) => {
            // A request as a run makes it: the maintenance point, then the prompt.
            run(maintain(state, bp, env));
            const now = parts(state, bp);
            const lost = lostEntries(before, held(state));
            expect(now.conversation.some((m) => m.role === 'user' && m.tail)).toBe(false);
            if (previous && lost.length === 0) {
              // Nothing left a region: the request only adds to the end of the previous one, up to its tail.
              expect(now.system).toEqual(previous.system);
              expect(now.conversation.slice(0, previous.conversation.length)).toEqual(previous.conversation);
              expect(now.conversation.length).toBeGreaterThan(previous.conversation.length);
            } else if (previous) {
              relayouts++;
              // Only a region that lost entries is laid out again; the system blocks before it stay.
              const first = now.system.findIndex((b, j) => b !== previous!.system[j]);
              if (first >= 0) {
                expect(lost).toContain(now.system[first]!.split(':')[0]);
                expect(now.system.slice(0, first)).toEqual(previous.system.slice(0, first));
              }
            }
            // Scratch writes in place: its block in the tail fills only when it sheds, and then
            // holds what it kept; until then the tail holds only the checklist.
            if (lost.includes('scratch')) scratchShed = true;
            if (!scratchShed && now.tail) expect(now.tail.content).not.toContain('## scratch');
            previous = now;
            before = held(state);
            step(state, bp, i + 1, kind);
          });
        },
      ),
      { numRuns: 60 },
    );
    expect(relayouts).toBeGreaterThan(0);
  });
});
