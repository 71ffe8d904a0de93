/**
 * Writes in place (docs/reference/rendering.md#writes-in-place): a region of a kind that only
 * appends shows each new entry as a message at the point of its write, and lays its block out
 * again only after entries left it. What the model sees of each region is what it holds, within
 * its budget, at every request.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadBlueprintFromString } from '../../src/blueprint/load.js';
import { maintain } from '../../src/context/maintenance.js';
import { contentText } from '../../src/context/measure.js';
import { renderPrompt, systemBlockText } from '../../src/context/render.js';
import { routeToolResult } from '../../src/context/routing.js';
import { findRegion, type RunState, visibleRegions } from '../../src/context/state.js';
import { applyContextTool } from '../../src/context/tools.js';
import type { Blueprint } from '../../src/shapes/frozen-blueprint.js';
import { blueprint, def, env, put, run, start } from './helpers.js';

const LAYOUT = `[context.regions]
task         = { kind = "pinned", max_tokens = 1000 }
todos        = { kind = "checklist", max_tokens = 1000 }
notes        = { kind = "hashmap", max_tokens = 1000 }
codebase     = { kind = "compacting", max_tokens = 1500, compact_at = "80%" }
history      = { kind = "compact_history", max_tokens = 1000, source_region = "codebase" }
scratch      = { kind = "temporary", max_tokens = 300 }
inbox        = { kind = "clearable", max_tokens = 1000 }
conversation = { kind = "sliding_window", max_tokens = 40000, max_items = 400, strategy = "bulk", overflow = 20 }

[stages.main]
system_prompt = "Plan the change."
[stages.main.tool_routing]
default_region = "scratch"
[stages.main.tool_routing.overrides]
read_file = "codebase"
`;

function load(toml: string): Blueprint {
  const loaded = loadBlueprintFromString(toml, '/bp', '/bp/agent.toml');
  if (!loaded.blueprint) throw new Error(loaded.diagnostics.map((d) => d.message).join('\n'));
  return loaded.blueprint;
}

/** A request as a run makes it: the maintenance point, then the prompt. */
function request(state: RunState, bp: Blueprint) {
  run(maintain(state, bp, env));
  const rendered = renderPrompt(state, bp, env);
  return {
    system: rendered.system.map((b) => `${b.region}:${systemBlockText(b)}`),
    messages: rendered.messages.map(({ cache: _marker, ...m }) => m),
  };
}

let calls = 0;
/** An assistant turn calling `name`, and its result routed as the stage says. */
function turn(state: RunState, bp: Blueprint, name: string, args: Record<string, unknown>, output = ''): void {
  const call = { id: `c${++calls}`, name, arguments: args };
  put(state, 'conversation', `calling ${name}`, 5, { kind: 'assistant', toolCalls: [call] });
  const result = name.startsWith('context_')
    ? run(applyContextTool(state, bp, name, args, env))
    : { content: output, isError: false };
  const tokens = Math.max(5, Math.ceil(output.length / 4));
  run(routeToolResult(state, bp, call, { content: result.content, tokens, isError: result.isError }, env));
}

describe('which regions write in place', () => {
  it('marks the regions of kinds that only append, none under [context] placement = "system" or beside a per-item conversation', () => {
    const marked = (bp: Blueprint) => bp.regions.filter((r) => r.writesInPlace).map((r) => r.name);
    expect(marked(load(LAYOUT))).toEqual(['codebase', 'history', 'scratch', 'inbox', 'tool_results']);
    expect(
      marked(load(LAYOUT.replace('[context.regions]', '[context]\nplacement = "system"\n[context.regions]'))),
    ).toEqual([]);
    // Beside a conversation whose head moves every turn, blocks in the system section stay cached instead.
    expect(marked(load(LAYOUT.replace('strategy = "bulk", overflow = 20', 'strategy = "per_item"')))).toEqual([]);
    expect(marked(load(LAYOUT.replace(/conversation *= .*\n/, '')))).toEqual([]);
  });
});

describe('a write lands where it happened', () => {
  for (const region of ['codebase', 'history', 'scratch', 'inbox']) {
    it(`${region}: the new entry follows the turn that wrote it, and the request before stays the prefix`, () => {
      const bp = load(LAYOUT);
      const state = start(bp);
      put(state, 'task', 'Fix the bug.', 4);
      const before = request(state, bp);
      put(state, 'conversation', 'writing', 5, { kind: 'assistant' });
      put(state, region, `a ${region} entry`, 10);
      const after = request(state, bp);
      expect(after.system).toEqual(before.system);
      expect(after.messages.slice(0, before.messages.length)).toEqual(before.messages);
      expect(after.messages.slice(before.messages.length)).toEqual([
        { role: 'assistant', content: 'writing' },
        { role: 'user', content: `## ${region} (new entry)\na ${region} entry` },
      ]);
    });
  }

  it('pinned, checklist and hashmap regions still render their whole block', () => {
    const bp = load(LAYOUT);
    const state = start(bp);
    request(state, bp);
    put(state, 'task', 'Fix the bug.', 4);
    run(applyContextTool(state, bp, 'todo_add', { region: 'todos', item: 'one' }, env));
    run(applyContextTool(state, bp, 'context_write', { region: 'notes', key: 'k', content: 'v' }, env));
    const now = request(state, bp);
    // The stage's prompt is in the task, the first pinned region, as no stage_instructions is declared.
    expect(now.system.map((b) => b.split(':')[0])).toEqual(['task', 'notes']);
    expect(now.messages.at(-1)).toMatchObject({
      role: 'user',
      tail: true,
      content: '## todos\n1 open, 0 done\n- [ ] #1 one',
    });
  });

  it('waits for the results of every call of a turn before it is shown', () => {
    const bp = load(LAYOUT);
    const state = start(bp);
    request(state, bp);
    const read = { id: 'r1', name: 'read_file', arguments: { path: 'a.ts' } };
    const look = { id: 'r2', name: 'read_file', arguments: { path: 'b.ts' } };
    put(state, 'conversation', 'two reads', 5, { kind: 'assistant', toolCalls: [read, look] });
    run(routeToolResult(state, bp, read, { content: 'const a = 1;', tokens: 5, isError: false }, env));
    run(routeToolResult(state, bp, look, { content: 'const b = 2;', tokens: 5, isError: false }, env));
    const roles = request(state, bp).messages.map((m) => (m.role === 'user' ? m.content.split('\n')[0] : m.role));
    expect(roles).toEqual([
      'Begin working on the task described above.',
      'assistant',
      'tool',
      'tool',
      '## codebase (new entry)',
      '## codebase (new entry)',
    ]);
  });

  it('keeps the whole block for a region recorded before writes in place', () => {
    const bp = blueprint([def('scratch', 'temporary', { maxTokens: 1000, placement: 'tail' })]);
    const state = start(bp);
    request(state, bp);
    put(state, 'scratch', 'a note', 3);
    expect(request(state, bp).messages.at(-1)).toMatchObject({ tail: true, content: '## scratch\na note' });
  });
});

describe('a region that sheds is laid out again once', () => {
  it('a temporary region: its block, in the tail, takes every entry it still holds at each shed', () => {
    const bp = load(LAYOUT);
    const state = start(bp);
    request(state, bp);
    const layouts = new Set<number>();
    let sheds = 0;
    for (let i = 1; i <= 12; i++) {
      const before = findRegion(state, 'scratch')!.entries.map((e) => e.id);
      turn(state, bp, 'context_append', { region: 'scratch', content: `note ${i}. ${'word '.repeat(60)}` });
      const after = new Set(findRegion(state, 'scratch')!.entries.map((e) => e.id));
      if (before.some((id) => !after.has(id))) sheds++;
      const now = request(state, bp);
      layouts.add(findRegion(state, 'scratch')!.layout!.through);
      const blocks = now.messages.filter((m) => m.role === 'user' && m.tail && m.content.includes('## scratch\n'));
      const inPlace = now.messages.filter((m) => m.role === 'user' && m.content.startsWith('## scratch (new entry)'));
      expect(blocks.length).toBeLessThanOrEqual(1);
      // Every note the region holds is shown once, in its block or in place.
      for (const entry of findRegion(state, 'scratch')!.entries) {
        const text = entry.content as string;
        const shown = now.messages.filter((m) => m.content.includes(text.slice(0, 8))).length;
        expect(shown, text.slice(0, 8)).toBe(1);
      }
      expect(blocks.length + inPlace.length).toBeGreaterThan(0);
    }
    expect(sheds).toBeGreaterThan(0);
    // The first layout, then one per shed.
    expect(layouts.size).toBe(sheds + 1);
  });

  it('a compaction lays out the folded region; the history before it keeps its block and gets the summary in place', () => {
    const bp = load(LAYOUT);
    const state = start(bp);
    put(state, 'task', 'Fix the bug.', 4);
    request(state, bp);
    let folded = false;
    let previous = request(state, bp);
    for (let i = 1; i <= 12 && !folded; i++) {
      turn(state, bp, 'read_file', { path: `f${i}.ts` }, `file ${i} `.repeat(60));
      folded = run(maintain(state, bp, env)).folds.some((f) => f.ok);
      const rendered = renderPrompt(state, bp, env);
      const now = {
        system: rendered.system.map((b) => `${b.region}:${systemBlockText(b)}`),
        messages: rendered.messages,
      };
      if (folded) {
        expect(now.system[0]).toBe(previous.system[0]);
        expect(now.system.map((b) => b.split(':')[0])).toEqual(['task', 'codebase']);
        expect(now.messages.some((m) => m.content.startsWith('## history (new entry)\n[summary of'))).toBe(true);
        expect(now.messages.some((m) => m.content.startsWith('## codebase (new entry)'))).toBe(false);
      }
      previous = now;
    }
    expect(folded).toBe(true);
  });
});

type Step = 'read' | 'todo' | 'note' | 'grep' | 'delete';

describe('every region keeps its meaning at every request', () => {
  it('each entry is shown exactly once and no region is over its budget, for any sequence of writes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom<Step>('read', 'read', 'todo', 'note', 'grep', 'delete'), {
          minLength: 5,
          maxLength: 40,
        }),
        (steps) => {
          const bp = load(LAYOUT);
          const state = start(bp);
          put(state, 'task', 'Fix the bug.', 4);
          steps.forEach((kind, i) => {
            const now = request(state, bp);
            // Tool messages carry pointers with a preview, not what a region holds.
            const text = [...now.system, ...now.messages.filter((m) => m.role !== 'tool').map((m) => m.content)].join(
              '\n',
            );
            for (const region of visibleRegions(state)) {
              expect(region.entries.reduce((sum, e) => sum + e.tokens, 0)).toBeLessThanOrEqual(region.budget);
              if (!region.def.writesInPlace) continue;
              for (const entry of region.entries) {
                const body = contentText(entry.content);
                expect(text.split(body).length - 1, `${region.name} #${entry.id}`).toBe(1);
              }
            }
            const n = `${i}`.padStart(3, '0');
            if (kind === 'read') turn(state, bp, 'read_file', { path: `f${n}.ts` }, `file ${n} `.repeat(60));
            else if (kind === 'todo') turn(state, bp, 'todo_add', { region: 'todos', item: `step ${n}` });
            else if (kind === 'note') turn(state, bp, 'context_append', { region: 'scratch', content: `note ${n}.` });
            else if (kind === 'grep') turn(state, bp, 'grep', { pattern: 'x' }, `match ${n} `.repeat(20));
            else turn(state, bp, 'context_delete', { region: 'codebase', index: 0 });
          });
        },
      ),
      { numRuns: 40 },
    );
  });
});
