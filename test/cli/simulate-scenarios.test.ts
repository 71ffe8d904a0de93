/**
 * docs/reference/simulator.md#scenarios, scenarios 1–38, through `lev context simulate` in-process.
 * Unless a test says otherwise: `--window 100000`, stages without a
 * prompt, context events without a `tool_call_id`.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { simulate } from '../../src/cli/simulate/index.js';
import { append, blueprintDir, previews, region, run, sim, tokens, user } from '../fixtures/simulate/harness.js';

const users = (prefix: string, n: number, size = 1) => Array.from({ length: n }, (_, i) => user(`${prefix}${i}`, size));

describe('budgets (scenarios 1–3)', () => {
  it('1: resolves percentages and the compacting threshold', () => {
    const toml = (extra: string) => `
[context.regions]
r = { kind = "temporary", budget = "20%" }
c = { kind = "compacting", budget = "20%", compact_at = "80%"${extra} }
`;
    const out = sim(toml(''), [], { window: 200_000 });
    expect(region(out, 'r').budget).toBe(40_000);
    expect(region(out, 'c')).toMatchObject({ budget: 40_000, threshold: 32_000 });
    expect(region(sim(toml(', threshold_tokens = 25000'), [], { window: 200_000 }), 'c').threshold).toBe(25_000);
  });

  it('2: caps with max_tokens, floors with min_tokens, trims spaces', () => {
    const one = (decl: string, window: number) =>
      region(sim(`[context.regions]\nx = { kind = "temporary", ${decl} }\n`, [], { window }), 'x').budget;
    expect(one('budget = "2%", max_tokens = 4000', 1_000_000)).toBe(4000);
    expect(one('budget = "10%", min_tokens = 9000, max_tokens = 4000', 200_000)).toBe(9000);
    expect(one('budget = " 35 % "', 1_000_000)).toBe(350_000);
  });

  it.each(['"35"', '"abc%"', '"0%"', '"-10%"', '"150%"', '20'])(
    '3: budget = %s exits 2 naming the region and the rule',
    (budget) => {
      const result = run(`[context.regions]\nnotes = { kind = "temporary", budget = ${budget} }\n`, []);
      expect(result.exitCode).toBe(2);
      expect(result.json).toBeUndefined();
      expect(result.stderr).toContain('notes');
      expect(result.stderr).toContain('[bad-budget]');
      expect(result.stderr).toMatch(/agent\.toml:\d+/);
    },
  );
});

describe('writes and overflow (scenarios 4–6)', () => {
  it('4: a temporary region drops its oldest entry to make room, and only as far as the write needs', () => {
    const out = sim('[context.regions]\nscratch = { kind = "temporary", max_tokens = 100 }\n', [
      append('scratch', 'oldest', 40),
      append('scratch', 'middle', 40),
      append('scratch', 'newest', 40),
    ]);
    expect(out.results.map((r) => r.ok)).toEqual([true, true, true]);
    expect(previews(out, 'scratch')).toEqual(['middle', 'newest']);
    expect(region(out, 'scratch').tokens).toBe(80);
    expect(out.results[2]?.text).toMatch(/\b1 (older )?entry removed/);
  });

  it('5: admission reject refuses a write that does not fit, and too-large beats it', () => {
    const toml = '[context.regions]\nsources = { kind = "temporary", max_tokens = 100, admission = "reject" }\n';
    const out = sim(toml, [append('sources', 'a', 80), append('sources', 'b', 40)]);
    expect(out.results[1]?.ok).toBe(false);
    expect(out.results[1]?.text.startsWith('[region-full]')).toBe(true);
    expect(out.results[1]?.text).toContain('80/100');
    expect(tokens(out, 'sources')).toEqual([80]);

    const empty = sim(toml, [append('sources', 'huge', 500)]);
    expect(empty.results[0]?.text.startsWith('[too-large]')).toBe(true);
    expect(region(empty, 'sources').entries).toHaveLength(0);
  });

  it('6: context_write checks the fit before replacing anything', () => {
    const out = sim('[context.regions]\nnotes = { kind = "temporary", max_tokens = 100 }\n', [
      append('notes', 'a', 30),
      append('notes', 'b', 40),
      { op: 'context_write', region: 'notes', content: 'too big', tokens: 150 },
    ]);
    expect(out.results[2]?.text.startsWith('[too-large]')).toBe(true);
    expect(region(out, 'notes')).toMatchObject({ tokens: 70 });
    expect(region(out, 'notes').entries).toHaveLength(2);

    const replaced = sim('[context.regions]\nnotes = { kind = "temporary", max_tokens = 100 }\n', [
      append('notes', 'a', 30),
      append('notes', 'b', 40),
      { op: 'context_write', region: 'notes', content: 'too big', tokens: 150 },
      { op: 'context_write', region: 'notes', content: 'fits', tokens: 60 },
    ]);
    expect(replaced.results[3]?.ok).toBe(true);
    expect(tokens(replaced, 'notes')).toEqual([60]);
  });
});

describe('sliding windows (scenarios 7–10)', () => {
  it('7: evicting a turn takes its tool result with it', () => {
    const out = sim(
      '[context.regions]\nconversation = { kind = "sliding_window", max_tokens = 100, max_items = 100 }\n',
      [
        { op: 'assistant', tokens: 30, tool_calls: [{ id: 't1', name: 'read_file', arguments: { path: 'a' } }] },
        { op: 'tool_result', tool_call_id: 't1', tool_name: 'read_file', tokens: 30 },
        user('late', 60),
      ],
    );
    expect(region(out, 'conversation').entries.map((e) => [e.kind, e.tokens])).toEqual([['user', 60]]);
  });

  it('8: per_item keeps the newest max_items', () => {
    const out = sim('[context.regions]\nconversation = { kind = "sliding_window", max_items = 3 }\n', users('m', 5));
    expect(previews(out, 'conversation')).toEqual(['m2', 'm3', 'm4']);
  });

  it('9: bulk waits for max_items + overflow, then drops down to max_items', () => {
    const toml =
      '[context.regions]\nconversation = { kind = "sliding_window", max_items = 5, strategy = "bulk", overflow = 3 }\n';
    expect(region(sim(toml, users('m', 8)), 'conversation').entries).toHaveLength(8);
    expect(previews(sim(toml, users('m', 9)), 'conversation')).toEqual(['m4', 'm5', 'm6', 'm7', 'm8']);
  });

  it('10: compact folds the oldest entries into a summary at index 0, or into a paired history', () => {
    const toml =
      '[context.regions]\nconversation = { kind = "sliding_window", max_tokens = 1000, max_items = 5, strategy = "compact", compact_count = 3 }\n';
    const out = sim(toml, users('u', 6, 10));
    const conversation = region(out, 'conversation');
    expect(conversation.tokens).toBe(33);
    expect(conversation.entries.map((e) => e.preview.slice(0, 2))).toEqual(['su', 'u3', 'u4', 'u5']);
    expect(conversation.entries[0]).toMatchObject({ summary: true, tokens: 3 });
    expect(conversation.entries[0]?.preview.startsWith('summary of 3 entries (30 tokens) from conversation')).toBe(
      true,
    );

    const paired = sim(
      `${toml}conv_hist = { kind = "compact_history", max_tokens = 500, source_region = "conversation" }\n`,
      users('u', 6, 10),
    );
    expect(previews(paired, 'conversation')).toEqual(['u3', 'u4', 'u5']);
    expect(region(paired, 'conv_hist').entries.map((e) => [e.summary, e.tokens])).toEqual([[true, 3]]);
  });
});

describe('compaction (scenarios 11–13)', () => {
  const codebase = '[context.regions]\ncodebase = { kind = "compacting", max_tokens = 1000, compact_at = "80%" }\n';

  it('11: a compacting region over its threshold folds its oldest groups', () => {
    const out = sim(codebase, [
      append('codebase', 'e0', 300),
      append('codebase', 'e1', 300),
      append('codebase', 'e2', 300),
    ]);
    const r = region(out, 'codebase');
    expect(r.entries.map((e) => [e.summary, e.tokens])).toEqual([
      [true, 60],
      [false, 300],
    ]);
    expect(r.entries[1]?.preview).toBe('e2');
    expect(r).toMatchObject({ tokens: 360, threshold: 800 });

    const paired = sim(
      `${codebase}history = { kind = "compact_history", max_tokens = 500, source_region = "codebase" }\n`,
      [append('codebase', 'e0', 300), append('codebase', 'e1', 300), append('codebase', 'e2', 300)],
    );
    expect(previews(paired, 'codebase')).toEqual(['e2']);
    expect(region(paired, 'history').entries.map((e) => [e.summary, e.tokens])).toEqual([[true, 60]]);
  });

  it('12: an overflowing write sends the oldest entry for summary and discards nothing', () => {
    const out = sim(codebase, [append('codebase', 'first', 600), append('codebase', 'second', 600)]);
    expect(out.results[1]?.ok).toBe(true);
    expect(out.results[1]?.text).toMatch(/\b1 (older )?(entry )?sent for summary/);
    expect(region(out, 'codebase').entries.map((e) => [e.summary, e.tokens])).toEqual([
      [true, 60],
      [false, 600],
    ]);
    expect(region(out, 'codebase').tokens).toBe(660);
  });

  it('13: a full history is re-summarised instead of dropping a summary', () => {
    const out = sim(
      `[context.regions]
codebase = { kind = "compacting", max_tokens = 5000, threshold_tokens = 1000 }
history = { kind = "compact_history", max_tokens = 100, source_region = "codebase" }
`,
      [
        append('codebase', 'a', 700),
        append('codebase', 'b', 700),
        { op: 'assistant', tokens: 0 },
        append('codebase', 'c', 700),
      ],
    );
    expect(region(out, 'history').entries.map((e) => [e.summary, e.tokens])).toEqual([[true, 14]]);
    expect(previews(out, 'codebase')).toEqual(['c']);
  });
});

describe('hashmaps (scenarios 14–16)', () => {
  const write = (key: string, tokens: number) => ({
    op: 'context_write',
    region: 'files',
    key,
    content: `${key}${tokens}`,
    tokens,
  });

  it('14: replacing a key evicts the least recently used other keys; reject refuses', () => {
    const out = sim('[context.regions]\nfiles = { kind = "hashmap", max_tokens = 100 }\n', [
      write('a', 40),
      write('b', 40),
      write('a', 70),
    ]);
    expect(region(out, 'files').entries.map((e) => [e.key, e.tokens])).toEqual([['a', 70]]);

    const rejecting = sim('[context.regions]\nfiles = { kind = "hashmap", max_tokens = 100, admission = "reject" }\n', [
      write('a', 40),
      write('b', 40),
      write('a', 70),
    ]);
    expect(rejecting.results[2]?.text.startsWith('[region-full]')).toBe(true);
    expect(region(rejecting, 'files').entries.map((e) => [e.key, e.tokens])).toEqual([
      ['a', 40],
      ['b', 40],
    ]);
  });

  it('15: max_entries evicts by LRU, and a keyed read counts as use', () => {
    const toml = '[context.regions]\nfiles = { kind = "hashmap", max_entries = 2 }\n';
    const withRead = sim(toml, [
      write('a', 10),
      write('b', 10),
      { op: 'context_read', region: 'files', key: 'a' },
      write('c', 10),
    ]);
    expect(
      region(withRead, 'files')
        .entries.map((e) => e.key)
        .sort(),
    ).toEqual(['a', 'c']);
    const withoutRead = sim(toml, [write('a', 10), write('b', 10), write('c', 10)]);
    expect(
      region(withoutRead, 'files')
        .entries.map((e) => e.key)
        .sort(),
    ).toEqual(['b', 'c']);
  });

  it('16: writes need a key; append joins with a one-token newline', () => {
    const out = sim('[context.regions]\nfiles = { kind = "hashmap" }\n', [
      { op: 'context_write', region: 'files', content: 'no key' },
      write('a', 10),
      { op: 'context_append', region: 'files', key: 'a', content: 'more', tokens: 5 },
    ]);
    expect(out.results[0]?.text.startsWith('[key-required]')).toBe(true);
    expect(region(out, 'files').entries.map((e) => [e.key, e.tokens])).toEqual([['a', 16]]);
  });
});

describe('checklists (scenarios 17–19)', () => {
  const todos =
    '[context.regions]\ntodos = { kind = "checklist", max_tokens = 1000 }\nscratch = { kind = "temporary" }\n';
  const add = (item: string) => ({ op: 'todo_add', region: 'todos', item });

  it('17: ids are never reused', () => {
    const out = sim(todos, [
      add('one'),
      add('two'),
      add('three'),
      { op: 'context_delete', region: 'todos', index: 2 },
      add('four'),
      { op: 'todo_done', region: 'todos', id: 3 },
      { op: 'todo_done', region: 'todos', id: 1 },
    ]);
    expect(out.results[4]?.text).toContain('4');
    expect(out.results[5]?.text.startsWith('[not-found]')).toBe(true);
    expect(out.results[6]?.ok).toBe(true);
    expect(region(out, 'todos').open_items?.map((i) => i.id)).toEqual([2, 4]);
  });

  it('18: renders the count line, open items with notes, then done items', () => {
    const out = sim(todos, [
      add('alpha'),
      add('beta'),
      { op: 'todo_done', region: 'todos', id: 1 },
      { op: 'todo_note', region: 'todos', id: 2, note: 'waiting' },
    ]);
    // A checklist is rewritten on every change, so by default it renders in the tail (docs/reference/rendering.md#placement).
    expect(out.prompt.system.some((b) => b.startsWith('## todos'))).toBe(false);
    const tail = out.prompt.messages.at(-1);
    expect(tail).toMatchObject({ role: 'user', tail: true });
    const lines = tail?.content.split('\n') ?? [];
    expect(lines[1]).toMatch(/1 open.*1 done/);
    expect(lines.slice(2)).toEqual(['- [ ] #2 beta', '  note: waiting', '- [x] #1 alpha']);
    expect(region(out, 'todos').open_items).toEqual([{ id: 2, text: 'beta', note: 'waiting' }]);
  });

  it('19: todo tools on the wrong region or with a bad id fail with their codes', () => {
    const out = sim(todos, [
      { op: 'todo_add', region: 'scratch', item: 'x' },
      { op: 'todo_add', region: 'nope', item: 'x' },
      { op: 'todo_done', region: 'todos', id: 'x' },
    ]);
    expect(out.results[0]?.text.startsWith('[not-a-checklist]')).toBe(true);
    expect(out.results[1]?.text.startsWith('[unknown-region]')).toBe(true);
    expect(out.results[1]?.text).toContain('todos');
    expect(out.results[2]?.text.startsWith('[bad-argument]')).toBe(true);
  });
});

describe('gates and transforms (scenarios 20–23)', () => {
  const gated = (maxAttempts: number) => `
[agent]
name = "g"
entry_stage = "implement"
[context.regions]
todos = { kind = "checklist" }
[stages.implement.transitions.review]
gate = { require_no_open_items = "todos", max_attempts = ${maxAttempts} }
[stages.review]
`;

  it('20: a gate blocks with a nudge until its attempts run out, then forces', () => {
    const out = sim(gated(2), [
      { op: 'todo_add', region: 'todos', item: 'finish it' },
      { op: 'gate', to: 'review' },
      { op: 'gate', to: 'review' },
      { op: 'gate', to: 'review' },
    ]);
    expect(out.results.slice(1).map((r) => r.ok)).toEqual([false, false, true]);
    expect(out.results[1]?.text).toContain('#1');
    const nudges = region(out, 'conversation').entries.filter((e) => e.preview.includes('#1'));
    expect(nudges.length).toBe(2);
    expect(out.run.attempts).toBe(2);
    expect(out.run.gates_forced).toHaveLength(1);

    const once = sim(gated(2), [
      { op: 'todo_add', region: 'todos', item: 'x' },
      { op: 'gate', to: 'review' },
    ]);
    expect(once.run.attempts).toBe(1);

    const immediate = sim(gated(0), [
      { op: 'todo_add', region: 'todos', item: 'x' },
      { op: 'gate', to: 'review' },
    ]);
    expect(immediate.results[1]?.ok).toBe(true);
    expect(immediate.run.gates_forced).toHaveLength(1);
  });

  it('21: clear empties working regions and leaves protected ones, keeping checklist ids', () => {
    const out = sim(
      `
[agent]
name = "c"
entry_stage = "a"
[context.regions]
task = { kind = "pinned" }
hist = { kind = "compact_history", source_region = "scratch" }
todos = { kind = "checklist" }
scratch = { kind = "temporary" }
[stages.a.transitions.b]
transform = "clear"
[stages.b]
`,
      [
        { op: 'seed', region: 'task', tokens: 50 },
        { op: 'seed', region: 'hist', tokens: 50 },
        { op: 'todo_add', region: 'todos', item: 'one' },
        append('scratch', 'work', 100),
        user('u1'),
        user('u2'),
        { op: 'enter_stage', stage: 'b' },
        { op: 'todo_add', region: 'todos', item: 'two' },
      ],
    );
    expect(region(out, 'scratch').entries).toHaveLength(0);
    expect(region(out, 'conversation').entries).toHaveLength(0);
    expect(tokens(out, 'task')).toEqual([50]);
    expect(tokens(out, 'hist')).toEqual([50]);
    expect(region(out, 'todos').open_items?.map((i) => i.id)).toEqual([1, 2]);
  });

  it('22: compact folds marked regions at the next maintenance point', () => {
    const base = (extra: string) => `
[agent]
name = "c"
entry_stage = "a"
[context.regions]
scratch = { kind = "temporary", max_tokens = 1000 }
${extra}
[stages.a.transitions.b]
transform = "compact"
[stages.b]
`;
    const events = [
      append('scratch', 'one', 100),
      append('scratch', 'two', 100),
      append('scratch', 'three', 100),
      { op: 'enter_stage', stage: 'b' },
    ];
    const out = sim(base(''), events);
    expect(region(out, 'scratch').entries.map((e) => [e.summary, e.tokens])).toEqual([[true, 30]]);

    const paired = sim(base('history = { kind = "compact_history", source_region = "scratch" }'), events);
    expect(region(paired, 'scratch').entries).toHaveLength(0);
    expect(region(paired, 'history').entries.map((e) => [e.summary, e.tokens])).toEqual([[true, 30]]);
  });

  it('23: a custom transform may not clear a pinned region', () => {
    const result = run(
      `
[agent]
name = "c"
entry_stage = "a"
[context.regions]
task = { kind = "pinned" }
[stages.a.transitions.b]
transform = "custom"
transform_config = { clear = ["task"] }
[stages.b]
`,
      [],
    );
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/pinned/);
    expect(result.stderr).toContain('task');
  });
});

describe('routing (scenarios 24–26)', () => {
  it('24: caps per tool, overrides, and the bash alias', () => {
    const out = sim(
      `
[context.regions]
scratch = { kind = "temporary", max_tokens = 10000 }
codebase = { kind = "temporary", max_tokens = 40000 }
[stages.main.tool_routing]
default_region = "scratch"
max_result_tokens = 4000
[stages.main.tool_routing.overrides]
read_file = "codebase"
[stages.main.tool_routing.max_result_tokens_per_tool]
read_file = 20000
bash = 500
`,
      [
        {
          op: 'assistant',
          content: 'looking',
          tool_calls: [
            { id: 'r1', name: 'read_file', arguments: { path: 'a.ts' } },
            { id: 'r2', name: 'grep', arguments: { pattern: 'x' } },
            { id: 'r3', name: 'shell', arguments: { command: 'ls' } },
          ],
        },
        { op: 'tool_result', tool_call_id: 'r1', tool_name: 'read_file', tokens: 15000 },
        { op: 'tool_result', tool_call_id: 'r2', tool_name: 'grep', tokens: 6000 },
        { op: 'tool_result', tool_call_id: 'r3', tool_name: 'shell', tokens: 900 },
      ],
    );
    expect(tokens(out, 'codebase')).toEqual([15000]);
    expect(tokens(out, 'scratch')).toEqual([4000, 500]);
    expect(previews(out, 'scratch')[0]).toBe('<4000 of 6000 tokens, cut>');
    const conversation = region(out, 'conversation').entries;
    expect(conversation.map((e) => e.kind)).toEqual(['assistant', 'tool_result', 'tool_result', 'tool_result']);
    const toolMessages = out.prompt.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id);
    expect(toolMessages).toEqual(['r1', 'r2', 'r3']);
  });

  const scratchRouting = (admission: string) => `
[context.regions]
scratch = { kind = "temporary", max_tokens = 1000${admission} }
[stages.main.tool_routing]
default_region = "scratch"
`;

  it('25: under reject, a result is cut to the free room, then only a pointer remains', () => {
    const out = sim(scratchRouting(', admission = "reject"'), [
      append('scratch', 'held', 700),
      {
        op: 'assistant',
        content: 'go',
        tool_calls: [
          { id: 't1', name: 'grep' },
          { id: 't2', name: 'grep' },
        ],
      },
      { op: 'tool_result', tool_call_id: 't1', tool_name: 'grep', tokens: 900 },
      { op: 'tool_result', tool_call_id: 't2', tool_name: 'grep', tokens: 500 },
    ]);
    expect(tokens(out, 'scratch')).toEqual([700, 300]);
    expect(out.results[2]?.text).toMatch(/only the beginning/);
    expect(out.results[2]?.text).toMatch(/600 of 900 tokens were dropped/);
    expect(region(out, 'scratch').tokens).toBe(1000);
    expect(out.results[3]?.text).toMatch(/had no room/);
  });

  it('26: an evicting region takes a cut of its whole budget', () => {
    const out = sim(scratchRouting(''), [
      append('scratch', 'held', 700),
      { op: 'assistant', content: 'go', tool_calls: [{ id: 't1', name: 'grep' }] },
      { op: 'tool_result', tool_call_id: 't1', tool_name: 'grep', tokens: 1500 },
    ]);
    expect(tokens(out, 'scratch')).toEqual([1000]);
    expect(previews(out, 'scratch')).toEqual(['<1000 of 1500 tokens, cut>']);
  });
});

describe('the window cascade (scenarios 27, 28, 38)', () => {
  it('27: clearable regions are wiped first', () => {
    const out = sim(
      `
[context.regions]
p = { kind = "pinned", max_tokens = 2000 }
c = { kind = "clearable", max_tokens = 3000 }
t = { kind = "temporary", max_tokens = 4000 }
`,
      [
        { op: 'seed', region: 'p', tokens: 2000 },
        append('c', 'c', 2500),
        append('t', 't0', 1000),
        append('t', 't1', 1000),
        append('t', 't2', 1000),
        user('big', 1000),
        user('small', 600),
      ],
      { window: 10_000 },
    );
    expect(region(out, 'c').entries).toHaveLength(0);
    expect(region(out, 't').entries).toHaveLength(3);
    expect(out.window.used).toBe(6600);
  });

  const pressure = (admission: string) => `
[context.regions]
p = { kind = "pinned", max_tokens = 6000 }
t = { kind = "temporary", max_tokens = 4000${admission} }
`;
  const pressureEvents = [
    { op: 'seed', region: 'p', tokens: 5500 },
    append('t', 't0', 1000),
    append('t', 't1', 1000),
    append('t', 't2', 1000),
    user('big', 1000),
    user('small', 100),
  ];

  it('28: temporary regions lose their oldest groups; reject regions are exempt', () => {
    const out = sim(pressure(''), pressureEvents, { window: 10_000 });
    expect(previews(out, 't')).toEqual(['t1', 't2']);
    expect(out.window.used).toBe(8600);

    const exempt = sim(pressure(', admission = "reject"'), pressureEvents, { window: 10_000 });
    expect(region(exempt, 't').entries).toHaveLength(3);
    expect(exempt.run.diagnostics.map((d) => d.code)).toContain('window-pressure');
  });

  it('38: the calibration gap from a usage report joins the cascade', () => {
    const out = sim(
      '[context.regions]\nt = { kind = "temporary", max_tokens = 5000 }\n',
      [
        append('t', 'a', 2000),
        append('t', 'b', 2000),
        user('u', 4000),
        { op: 'assistant', tokens: 0 },
        { op: 'usage', prompt_tokens: 9500 },
      ],
      { window: 10_000 },
    );
    expect(out.window).toEqual({ max: 10_000, used: 6000, gap: 1500 });
    expect(previews(out, 't')).toEqual(['b']);
  });
});

describe('stages (scenarios 29–30)', () => {
  it('29: regions a stage does not carry are hidden, uncounted and unreachable', () => {
    const toml = `
[agent]
name = "h"
entry_stage = "a"
[context.regions]
notes = { kind = "temporary" }
[stages.a]
[stages.b.context.regions]
work = { kind = "temporary" }
`;
    const inB = sim(toml, [append('notes', 'n', 10), { op: 'enter_stage', stage: 'b' }, append('notes', 'again', 10)]);
    expect(inB.results[2]?.text.startsWith('[hidden-region]')).toBe(true);
    expect(region(inB, 'notes')).toMatchObject({ hidden: true, tokens: 10 });
    expect(inB.window.used).toBe(0);
    expect(inB.regions.at(-1)?.name).toBe('notes');

    const back = sim(toml, [
      append('notes', 'n', 10),
      { op: 'enter_stage', stage: 'b' },
      append('notes', 'again', 10),
      { op: 'enter_stage', stage: 'a' },
    ]);
    expect(region(back, 'notes')).toMatchObject({ hidden: false, tokens: 10 });
    expect(region(back, 'notes').entries).toHaveLength(1);
  });

  const staged = (instructions: boolean) => `
[agent]
name = "s"
entry_stage = "a"
[context.regions]
${instructions ? 'stage_instructions = { kind = "pinned", budget = "3%" }\n' : ''}task = { kind = "pinned" }
[stages.a]
system_prompt = "A: gather the facts."
[stages.a.transitions.b]
[stages.b]
system_prompt = "B: write the report."
`;

  it('30: stage_instructions holds only the current prompt, after the pinned blocks', () => {
    const out = sim(staged(true), [
      { op: 'seed', region: 'task', tokens: 10 },
      { op: 'enter_stage', stage: 'b' },
    ]);
    const instructions = region(out, 'stage_instructions');
    expect(instructions.entries).toHaveLength(1);
    expect(instructions.entries[0]?.preview).toContain('B: write the report.');
    const order = out.prompt.system.map((b) => b.split('\n')[0]);
    expect(order.indexOf('## task')).toBeLessThan(order.indexOf('## stage_instructions'));
    expect(order.indexOf('## task')).toBeGreaterThanOrEqual(0);
  });

  it('30 (variant): without stage_instructions the prompt lands in the first pinned region', () => {
    const out = sim(staged(false), [
      { op: 'seed', region: 'task', tokens: 10 },
      { op: 'enter_stage', stage: 'b' },
    ]);
    const task = region(out, 'task').entries;
    expect(task).toHaveLength(2);
    expect(task[0]?.tokens).toBe(10);
    expect(task[1]?.preview).toContain('B: write the report.');
    expect(JSON.stringify(out)).not.toContain('A: gather the facts.');
    expect(out.regions.some((r) => r.name === 'stage_instructions')).toBe(false);
  });
});

describe('context_delete (scenario 31)', () => {
  it('deletes by key, index and oldest; reports what is missing or ambiguous', () => {
    const out = sim('[context.regions]\nnotes = { kind = "temporary" }\n', [
      append('notes', 'rfc text', 20, 'rfc'),
      append('notes', 'blog text', 10, 'blog'),
      append('notes', 'x'),
      append('notes', 'y'),
      append('notes', 'z'),
      { op: 'context_delete', region: 'notes', key: 'rfc' },
      { op: 'context_delete', region: 'notes', index: 1 },
      { op: 'context_delete', region: 'notes', oldest: 5 },
      { op: 'context_delete', region: 'notes', index: 7 },
      { op: 'context_delete', region: 'notes', key: 'blog', index: 0 },
    ]);
    expect(out.results.slice(5, 8).map((r) => r.ok)).toEqual([true, true, true]);
    expect(out.results[5]?.text).toContain('20');
    expect(out.results[8]?.text.startsWith('[not-found]')).toBe(true);
    expect(out.results[8]?.text).toMatch(/\b0 entries/);
    expect(out.results[9]?.text.startsWith('[bad-argument]')).toBe(true);
    expect(region(out, 'notes').entries).toHaveLength(0);
  });
});

describe('validation through the simulator (scenarios 32–35)', () => {
  it('32: an unknown region key is a warning, not a failure', () => {
    const result = run('[context.regions]\nconversation = { kind = "sliding_window", max_item = 20 }\n', []);
    expect(result.exitCode).toBe(0);
    expect(result.json?.run.diagnostics.find((d) => d.code === 'unknown-region-key')?.severity).toBe('warning');
  });

  it.each([
    ['strategy = "per-item"', '[context.regions]\nconversation = { kind = "sliding_window", strategy = "per-item" }\n'],
    [
      'refresh = "each-stage"',
      '[context.regions]\nls = { kind = "temporary", seed = { tools = ["list_dir"], refresh = "each-stage" } }\n',
    ],
    ['kind = "pinnned"', '[context.regions]\ntask = { kind = "pinnned" }\n'],
  ])('33: %s exits 2', (_label, toml) => {
    expect(run(toml, []).exitCode).toBe(2);
  });

  it('34: routing into a region the stage cannot see, and a gate on a non-checklist, are refused', () => {
    const routed = run(
      '[context.regions]\nscratch = { kind = "temporary" }\n[stages.main.tool_routing]\ndefault_region = "raw"\n',
      [],
    );
    expect(routed.exitCode).toBe(2);
    expect(routed.stderr).toContain('raw');
    expect(routed.stderr).toContain('main');

    const gated = run(
      '[agent]\nname = "g"\nentry_stage = "a"\n[context.regions]\nscratch = { kind = "temporary" }\n[stages.a.transitions.b]\ngate = { require_no_open_items = "scratch" }\n[stages.b]\n',
      [],
    );
    expect(gated.exitCode).toBe(2);
  });

  it('35: an unknown op makes the events file invalid; an unknown region is an event failure', () => {
    const bad = run('[context.regions]\nnotes = { kind = "temporary" }\n', [{ op: 'frobnicate' }], {
      eventsFile: 'events.jsonl',
    });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/^events\.jsonl:1: error \[bad-event\]/);

    const failed = sim('[context.regions]\nnotes = { kind = "temporary" }\n', [
      { op: 'context_append', region: 'nope', content: 'x' },
    ]);
    expect(failed.results[0]?.ok).toBe(false);
    expect(failed.results[0]?.text.startsWith('[unknown-region]')).toBe(true);
  });
});

describe('seeds and spawn (scenarios 36–37)', () => {
  it('36: file seeds are never read by the simulator; the region waits for a seed event', () => {
    const out = sim('[context.regions]\nsecret = { kind = "pinned", seed = { files = ["../secret.txt"] } }\n', []);
    expect(region(out, 'secret').entries).toHaveLength(0);
    expect(out.run.diagnostics.some((d) => d.code === 'seed-not-simulated' && d.detail.includes('secret'))).toBe(true);
  });

  it('37a: a stage prompt with nowhere to land is refused', () => {
    const result = run(
      '[context.regions]\nnotes = { kind = "temporary" }\n[stages.main]\nsystem_prompt = "Work."\n',
      [],
    );
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('stage-prompt-no-region');
  });

  it('37b/c: literal seeds are applied at start; the implicit task seed waits for a seed event', () => {
    const out = sim(
      '[context.regions]\nrules = { kind = "pinned", seed = { literal = "x" } }\ntask = { kind = "pinned" }\n',
      [{ op: 'seed', region: 'task', content: 'Fix the bug.' }],
    );
    expect(previews(out, 'rules')).toEqual(['x']);
    expect(previews(out, 'task')).toEqual(['Fix the bug.']);
    expect(out.run.diagnostics.some((d) => d.code === 'seed-not-simulated' && d.detail.includes('task'))).toBe(true);
  });
});

describe('event details (docs/reference/simulator.md#events and docs/reference/simulator.md#deterministic-summariser)', () => {
  it('summarises with the deterministic summariser: count, tokens, region and 24-character pieces', () => {
    const out = sim('[context.regions]\ncodebase = { kind = "compacting", max_tokens = 1000, compact_at = "80%" }\n', [
      append('codebase', 'first entry with a long line\nand more', 300),
      append('codebase', 'second', 300),
      append('codebase', 'third', 300),
      { op: 'assistant', tokens: 0 },
      { op: 'context_read', region: 'codebase' },
    ]);
    expect(out.results[3]?.text).toMatch(
      /^maintenance: folded 2 entries \(600 tokens\) of codebase into a 60-token summary/,
    );
    expect(out.results[4]?.text).toContain(
      'summary of 2 entries (600 tokens) from codebase: first entry with a long  | second',
    );
  });

  it('fails a tool_result whose id is not a pending call, and stores a context tool result for a pending one', () => {
    const out = sim('[context.regions]\nnotes = { kind = "temporary" }\n', [
      { op: 'tool_result', tool_call_id: 'ghost', tool_name: 'grep', content: 'x' },
      {
        op: 'assistant',
        content: 'noting',
        tool_calls: [{ id: 'n1', name: 'context_append', arguments: { region: 'notes', content: 'fact' } }],
      },
      { op: 'context_append', region: 'notes', content: 'fact', tool_call_id: 'n1' },
      { op: 'context_list', tool_call_id: 'n1' },
    ]);
    expect(out.results[0]?.ok).toBe(false);
    expect(out.results[0]?.text).toMatch(/^\[unknown-call\].*no calls are pending/);
    expect(out.results[2]?.ok).toBe(true);
    expect(out.results[3]?.text.startsWith('[unknown-call]')).toBe(true);
    const stored = region(out, 'conversation').entries.at(-1);
    expect(stored).toMatchObject({ kind: 'tool_result' });
    expect(out.prompt.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(out.prompt.messages[2]).toMatchObject({ role: 'tool', tool_call_id: 'n1' });
    expect(out.prompt.messages[3]).toEqual({ role: 'user', content: '## notes\nfact', tail: true });
    expect(previews(out, 'notes')).toEqual(['fact']);
  });

  it('says when a stage is entered without an edge, and reports the usage gap', () => {
    const out = sim('[agent]\nname = "x"\nentry_stage = "a"\n[stages.a]\n[stages.b]\n', [
      { op: 'enter_stage', stage: 'b' },
      { op: 'enter_stage', stage: 'nowhere' },
      { op: 'assistant', content: 'hi' },
      { op: 'usage', prompt_tokens: 50 },
      { op: 'gate', to: 'a' },
    ]);
    expect(out.results[0]?.text).toMatch(/directly \(no edge from a to b\)/);
    expect(out.results[1]?.text.startsWith('[unknown-stage]')).toBe(true);
    expect(out.results[3]?.ok).toBe(true);
    expect(out.window.gap).toBe(50);
    expect(out.results[4]?.text.startsWith('[no-edge]')).toBe(true);
    expect(out.run.stage).toBe('b');
  });
});

describe('start state (docs/reference/simulator.md#start-state)', () => {
  const toml = `
[agent]
name = "start"
entry_stage = "a"
[models]
"scripted:small" = { context_window = 16000, max_output_tokens = 1000 }
[context.regions]
notes = { kind = "temporary", budget = "10%" }
[stages.a]
model = "scripted:small"
[stages.b]
model = "scripted:default"
`;

  it('accepts a .toml file, starts in --stage, and takes W from that stage model', () => {
    const dir = blueprintDir(toml);
    const fromFile = simulate(join(dir, 'agent.toml'), '', { stage: 'b' });
    expect(fromFile.exitCode).toBe(0);
    expect(fromFile.json?.run.stage).toBe('b');
    expect(fromFile.json?.window.max).toBe(200_000);
    expect(region(fromFile.json!, 'notes').budget).toBe(20_000);

    const entry = simulate(dir, '', {});
    expect(entry.json?.run.stage).toBe('a');
    expect(entry.json?.window.max).toBe(16_000);
  });

  it('exits 2 for a --stage that does not exist', () => {
    const result = simulate(blueprintDir(toml), '', { stage: 'c' });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('[unknown-stage]');
  });
});
