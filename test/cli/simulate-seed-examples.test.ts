/**
 * The examples of the seed document (shared/seed/structured-context-memory.txt),
 * run through the simulator: each shows the behaviour the text promises.
 */
import { describe, expect, it } from 'vitest';
import { append, previews, region, run, sim, tokens, user } from '../fixtures/simulate/harness.js';

const CODING_AGENT = `
[context.regions]
task         = { kind = "pinned", budget = "12%", seed = "task_input" }
codebase     = { kind = "compacting", budget = "20%" }
conversation = { kind = "sliding_window", budget = "33%", max_items = 20 }
history      = { kind = "compact_history", budget = "15%", source_region = "codebase" }
`;

describe('seed document examples', () => {
  it('resolves the typical coding-agent layout against a 200k window', () => {
    const out = sim(CODING_AGENT, [], { window: 200_000 });
    expect(region(out, 'task').budget).toBe(24_000);
    expect(region(out, 'codebase')).toMatchObject({ budget: 40_000, threshold: 32_000 });
    expect(region(out, 'conversation').budget).toBe(66_000);
    expect(region(out, 'history').budget).toBe(30_000);
  });

  it('keeps percentages in shape across models: 20% is 6,400 at 32k', () => {
    expect(region(sim(CODING_AGENT, [], { window: 32_000 }), 'codebase').budget).toBe(6_400);
  });

  it('lets a file dump fill codebase while the task stays exactly where it was', () => {
    const dumps = Array.from({ length: 8 }, (_, i) => append('codebase', `dump ${i}`, 15_000));
    const out = sim(
      CODING_AGENT,
      [{ op: 'seed', region: 'task', content: 'Fix the flaky login test.' }, ...dumps, { op: 'assistant', tokens: 0 }],
      { window: 200_000 },
    );
    expect(previews(out, 'task')).toEqual(['Fix the flaky login test.']);
    expect(region(out, 'codebase').tokens).toBeLessThanOrEqual(40_000);
    expect(region(out, 'history').entries.every((e) => e.summary)).toBe(true);
    expect(region(out, 'history').entries.length).toBeGreaterThan(0);
  });

  it('refuses an unknown kind and a hyphenated strategy instead of ignoring them', () => {
    expect(run('[context.regions]\nnotes = { kind = "scratchpad" }\n', []).exitCode).toBe(2);
    expect(
      run('[context.regions]\nconversation = { kind = "sliding_window", strategy = "per-item" }\n', []).exitCode,
    ).toBe(2);
  });

  it('gates a stage on open checklist items with the configured message', () => {
    const toml = `
[agent]
name = "todo"
entry_stage = "implement"
[context.regions]
todos = { kind = "checklist", budget = "3%" }
[stages.implement.transitions.review]
gate = { require_no_open_items = "todos", message = "Finish or explicitly drop the open items first." }
[stages.review]
`;
    const out = sim(toml, [
      { op: 'todo_add', region: 'todos', item: 'compute the fee table' },
      { op: 'gate', to: 'review' },
      { op: 'todo_done', region: 'todos', id: 1 },
      { op: 'gate', to: 'review' },
    ]);
    expect(out.results[1]).toMatchObject({ ok: false });
    expect(out.results[1]?.text).toContain('Finish or explicitly drop the open items first.');
    expect(out.results[3]).toMatchObject({ ok: true });
    expect(out.run.gates_forced).toEqual([]);
  });

  it('releases entries by key, index and oldest, as the agent decides', () => {
    const out = sim('[context.regions]\nsources = { kind = "temporary", budget = "30%", admission = "reject" }\n', [
      append('sources', '<the raw spec>', 400, 'rfc-9110'),
      append('sources', 'notes a', 10),
      append('sources', 'notes b', 10),
      append('sources', 'notes c', 10),
      append('sources', 'notes d', 10),
      append('sources', 'notes e', 10),
      { op: 'context_delete', region: 'sources', key: 'rfc-9110' },
      { op: 'context_delete', region: 'sources', index: 2 },
      { op: 'context_delete', region: 'sources', oldest: 3 },
    ]);
    expect(out.results.map((r) => r.ok)).toEqual(Array(9).fill(true));
    expect(previews(out, 'sources')).toEqual(['notes e']);
  });

  it('makes the agent choose under admission = "reject": the write fails and says to release first', () => {
    const out = sim(
      '[context.regions]\nsources = { kind = "temporary", budget = "30%", admission = "reject" }\n',
      [append('sources', 'curated finding', 25_000), append('sources', 'another page', 10_000)],
      { window: 100_000 },
    );
    expect(out.results[1]?.text).toMatch(/^\[region-full\].*context_delete/);
    expect(tokens(out, 'sources')).toEqual([25_000]);
  });

  it('routes with the override table form: region and cap together, region only, cap only', () => {
    const toml = `
[context.regions]
codebase = { kind = "compacting", budget = "20%" }
scratch  = { kind = "temporary", budget = "10%" }
[stages.analyze.tool_routing]
default_region = "scratch"
max_result_tokens = 4000
[stages.analyze.tool_routing.overrides]
read_file = { region = "codebase", max_result_tokens = 20000 }
grep = "scratch"
list_dir = { max_result_tokens = 500 }
`;
    const out = sim(toml, [
      {
        op: 'assistant',
        content: 'exploring',
        tool_calls: [
          { id: 'a', name: 'read_file', arguments: { path: 'src/main.rs' } },
          { id: 'b', name: 'grep', arguments: {} },
          { id: 'c', name: 'list_dir', arguments: {} },
        ],
      },
      { op: 'tool_result', tool_call_id: 'a', tool_name: 'read_file', tokens: 18_000 },
      { op: 'tool_result', tool_call_id: 'b', tool_name: 'grep', tokens: 5_000 },
      { op: 'tool_result', tool_call_id: 'c', tool_name: 'list_dir', tokens: 800 },
    ]);
    expect(tokens(out, 'codebase')).toEqual([18_000]);
    expect(tokens(out, 'scratch')).toEqual([4_000, 500]);
  });

  it('keeps what precedes stage_instructions byte-identical across a stage change', () => {
    const toml = `
[agent]
name = "two-stage"
entry_stage = "gather"
[context.regions]
stage_instructions = { kind = "pinned", budget = "3%" }
task = { kind = "pinned" }
[stages.gather]
system_prompt = "Gather sources for the question."
[stages.gather.transitions.write]
[stages.write]
system_prompt = "Write the answer from the gathered sources."
`;
    const before = sim(toml, [{ op: 'seed', region: 'task', content: 'Why is the sky blue?' }]);
    const after = sim(toml, [
      { op: 'seed', region: 'task', content: 'Why is the sky blue?' },
      { op: 'enter_stage', stage: 'write' },
    ]);
    const headings = after.prompt.system.map((b) => b.split('\n')[0]);
    expect(headings).toEqual(['## task', '## stage_instructions']);
    expect(after.prompt.system[0]).toBe(before.prompt.system[0]);
    expect(after.prompt.system[1]).toContain('Write the answer');
    expect(before.prompt.system[1]).toContain('Gather sources');
  });

  it('applies literal seeds and leaves the other forms to seed events', () => {
    const out = sim(
      `
[context.regions]
rules    = { kind = "pinned", seed = { literal = "Never edit generated files." } }
readme   = { kind = "pinned", seed = { files = ["README.md"] } }
env      = { kind = "pinned", seed = { command = "git log --oneline -20" } }
inherited = { kind = "pinned", seed = { caller = "brief" } }
`,
      [{ op: 'seed', region: 'readme', content: '# Project\nHow to build it.' }],
    );
    expect(previews(out, 'rules')).toEqual(['Never edit generated files.']);
    expect(previews(out, 'readme')).toEqual(['# Project How to build it.']);
    expect(region(out, 'env').entries).toEqual([]);
    const notes = out.run.diagnostics.filter((d) => d.code === 'seed-not-simulated').map((d) => d.detail);
    expect(notes.some((n) => n.includes('env'))).toBe(true);
    expect(notes.some((n) => n.includes('inherited'))).toBe(true);
  });

  it('keeps the conversation to its newest max_items messages', () => {
    const out = sim(
      CODING_AGENT,
      Array.from({ length: 25 }, (_, i) => user(`m${i}`)),
      { window: 200_000 },
    );
    expect(region(out, 'conversation').entries).toHaveLength(20);
    expect(previews(out, 'conversation')[0]).toBe('m5');
  });
});
