/**
 * Completion checks (docs/reference/stages.md#checks) through `lev context simulate`:
 * the blueprint's gate as the loader reads it, the nudge a blocked check adds
 * to `conversation` and the next prompt, the fix that lets it pass, and what
 * a check forced through records (docs/reference/stages.md#gate-outcomes). The same
 * engine operations run in a stage visit; test/integration/gates.test.ts runs
 * the visit loop around them (a block continues the visit, a forced gate
 * reaches the memo) on a real server.
 */
import { describe, expect, it } from 'vitest';
import type { SimOutput } from '../../src/cli/simulate/output.js';
import { append, region, sim } from '../fixtures/simulate/harness.js';

/** `work` → `review` through `gate`, with the regions of the integration test's blueprint. */
function gated(gate: string, notesSeed = ''): string {
  return `
[agent]
name = "gates"
entry_stage = "work"
[context.regions]
task  = { kind = "pinned", max_tokens = 500 }
todos = { kind = "checklist", max_tokens = 500 }
notes = { kind = "temporary", max_tokens = 1000${notesSeed} }
patch = { kind = "temporary", max_tokens = 1000 }
[stages.work]
[stages.work.transitions.review]
gate = ${gate}
[stages.review]
`;
}

const toReview = { op: 'gate', to: 'review' };
/** The task a run is given, which the simulator leaves to a `seed` event. */
const task = { op: 'seed', region: 'task', content: 'make the change' };

function entriesOf(out: SimOutput, name: string): string[] {
  return region(out, name).entries.map((e) => e.preview);
}

/** Blocks once, applies `fix`, and passes: the nudge is the last message the model is sent after the block. */
function blockedThenFixed(gate: string, fix: object, notesSeed = ''): { nudge: string; out: SimOutput } {
  const blocked = sim(gated(gate, notesSeed), [task, toReview]);
  expect(blocked.results[1]?.ok).toBe(false);
  const nudge = blocked.results[1]?.text ?? '';
  expect(region(blocked, 'conversation').entries.map((e) => e.kind)).toEqual(['user']);
  expect(blocked.prompt.messages.filter((m) => !m.tail).at(-1)).toMatchObject({ role: 'user', content: nudge });

  const out = sim(gated(gate, notesSeed), [task, toReview, fix, toReview]);
  expect(out.results.map((r) => r.ok)).toEqual([true, false, true, true]);
  expect(out.results[3]?.text).toBe('gate to review passed');
  expect(out.run.attempts).toBe(1);
  expect(out.run.gates_forced).toEqual([]);
  return { nudge, out };
}

describe('a completion check blocks with a nudge and passes once the model fixes it', () => {
  it('require_regions names the empty region and passes once the model fills it', () => {
    const { nudge, out } = blockedThenFixed('{ require_regions = ["notes", "task"] }', {
      op: 'context_write',
      region: 'notes',
      content: 'changed the parser',
    });
    expect(nudge).toContain('notes');
    expect(nudge).toContain('context_write');
    expect(nudge).not.toContain('task');
    expect(entriesOf(out, 'notes')).toEqual(['changed the parser']);
  });

  it('require_region_updated ignores seeded content and passes after an append in this stage', () => {
    const { nudge, out } = blockedThenFixed(
      '{ require_region_updated = "notes" }',
      append('notes', 'parser fixed'),
      ', seed = { literal = "notes from before the run" }',
    );
    expect(nudge).toContain('"notes"');
    expect(nudge).toContain('has not been updated');
    expect(nudge).not.toContain('open items');
    expect(entriesOf(out, 'notes')).toEqual(['notes from before the run', 'parser fixed']);
  });

  it('require_modifications with `region` passes once that region holds something', () => {
    const { nudge } = blockedThenFixed('{ require_modifications = true, region = "patch" }', {
      op: 'context_write',
      region: 'patch',
      content: '--- a/x\n+++ b/x',
    });
    expect(nudge).toContain('write_file');
    expect(nudge).toContain('edits made through the shell are not tracked');
  });
});

describe('a completion check the model never fixes is forced through', () => {
  it.each([
    ['require_no_open_items', '{ require_no_open_items = "todos", max_attempts = 1 }', '#1 left open'],
    ['require_regions', '{ require_regions = ["notes"], max_attempts = 1 }', 'notes'],
    ['require_region_updated', '{ require_region_updated = "notes", max_attempts = 1 }', '"notes"'],
    ['require_modifications', '{ require_modifications = true, region = "patch", max_attempts = 1 }', 'write_file'],
    ['require_modifications', '{ require_modifications = true, tools = ["shell"], max_attempts = 1 }', 'shell'],
  ])('forces %s through at max_attempts when the model never fixes it (%s)', (check, gate, named) => {
    const out = sim(gated(gate), [task, { op: 'todo_add', region: 'todos', item: 'left open' }, toReview, toReview]);
    // One blocked completion, then the forced one.
    expect(out.results.map((r) => r.ok)).toEqual([true, true, false, true]);
    expect(out.results[2]?.text).toContain(named);
    expect(out.results[3]?.text).toBe(`gate to review forced through after 1 attempts (${check} failing)`);
    expect(out.run.gates_forced).toEqual([
      { stage: 'work', target: 'review', check, detail: expect.stringContaining(named) },
    ]);
    expect(out.run.diagnostics).toContainEqual(expect.objectContaining({ code: 'gate-forced', severity: 'warning' }));
  });

  it('max_attempts = 0 forces a failing check at once', () => {
    const out = sim(gated('{ require_regions = ["notes"], max_attempts = 0 }'), [task, toReview]);
    expect(out.results[1]).toEqual({ ok: true, text: expect.stringContaining('forced through after 0 attempts') });
    expect(out.run.gates_forced).toEqual([
      expect.objectContaining({ stage: 'work', target: 'review', check: 'require_regions' }),
    ]);
    expect(entriesOf(out, 'conversation').some((t) => t.includes('still empty'))).toBe(false);
  });
});
