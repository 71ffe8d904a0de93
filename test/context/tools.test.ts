import { describe, expect, it } from 'vitest';
import { enterStage } from '../../src/context/enter-stage.js';
import { regionTokens } from '../../src/context/measure.js';
import { findRegion, openItems, type RunState, windowUsed } from '../../src/context/state.js';
import { type ArgumentCounts, applyContextTool, type ToolResult } from '../../src/context/tools.js';
import { writeEntry } from '../../src/context/write.js';
import type { RegionDef } from '../../src/shapes/frozen-blueprint.js';
import { blueprint, contents, def, env, put, run, stage, start, tokensOf } from './helpers.js';

function tool(s: RunState, name: string, args: unknown, counts: ArgumentCounts = {}): ToolResult {
  return run(applyContextTool(s, blueprint([]), name, args, env, counts));
}

function withRegions(...regions: RegionDef[]): RunState {
  return start(blueprint(regions));
}

describe('context_append and context_write (docs/reference/context-tools.md)', () => {
  it('refuses a write that does not fit and keeps the old content (scenario 6)', () => {
    const s = withRegions(def('notes', 'temporary', { maxTokens: 100 }));
    put(s, 'notes', 'a', 30);
    put(s, 'notes', 'b', 40);
    const big = tool(s, 'context_write', { region: 'notes', content: 'x' }, { content: 150 });
    expect(big.isError).toBe(true);
    expect(big.content).toMatch(/^\[too-large\]/);
    expect(regionTokens(findRegion(s, 'notes')!)).toBe(70);
    expect(findRegion(s, 'notes')!.entries).toHaveLength(2);
    const small = tool(s, 'context_write', { region: 'notes', content: 'y' }, { content: 60 });
    expect(small.isError).toBe(false);
    expect(tokensOf(s, 'notes')).toEqual([60]);
    expect(findRegion(s, 'notes')!.updates).toBe(1);
  });

  it('reports region-full with used/max under reject (scenario 5)', () => {
    const s = withRegions(def('sources', 'temporary', { maxTokens: 100, admission: 'reject' }));
    expect(tool(s, 'context_append', { region: 'sources', content: 'a' }, { content: 80 }).isError).toBe(false);
    const r = tool(s, 'context_append', { region: 'sources', content: 'b' }, { content: 40 });
    expect(r.content).toMatch(/^\[region-full\].*80\/100.*context_delete/);
    expect(tokensOf(s, 'sources')).toEqual([80]);
  });

  it('reports the entry removed to make room (scenario 4)', () => {
    const s = withRegions(def('scratch', 'temporary', { maxTokens: 100 }));
    for (const c of ['oldest', 'middle']) tool(s, 'context_append', { region: 'scratch', content: c }, { content: 40 });
    const r = tool(s, 'context_append', { region: 'scratch', content: 'newest' }, { content: 40 });
    expect(r.content).toContain('1 older entry removed');
    expect(contents(s, 'scratch')).toEqual(['middle', 'newest']);
  });

  it('refuses runtime regions and checklists', () => {
    const s = withRegions(
      def('todos', 'checklist'),
      def('hist', 'compact_history', { sourceRegion: 'notes' }),
      def('notes', 'temporary'),
    );
    expect(tool(s, 'context_append', { region: 'conversation', content: 'x' }).code).toBe('not-writable');
    expect(tool(s, 'context_write', { region: 'hist', content: 'x' }).code).toBe('not-writable');
    const r = tool(s, 'context_write', { region: 'todos', content: 'x' });
    expect(r.code).toBe('not-writable');
    expect(r.content).toContain('todo_add');
    expect(tool(s, 'context_delete', { region: 'conversation', oldest: 1 }).code).toBe('not-writable');
  });

  it('names missing arguments and unknown regions', () => {
    const s = withRegions(def('notes', 'temporary'));
    expect(tool(s, 'context_append', { region: 'notes' }).content).toMatch(/^\[missing-argument\] `content`/);
    expect(tool(s, 'context_append', { region: 'notes', content: '   ' }).code).toBe('missing-argument');
    const unknown = tool(s, 'context_append', { region: 'nope', content: 'x' });
    expect(unknown.code).toBe('unknown-region');
    expect(unknown.content).toContain('notes');
    expect(unknown.content).not.toContain('conversation');
  });
});

describe('hashmaps through the tools (docs/reference/regions.md#hashmap-upserts)', () => {
  it('evicts the other key to fit a bigger value (scenario 14)', () => {
    const s = withRegions(def('files', 'hashmap', { maxTokens: 100 }));
    tool(s, 'context_write', { region: 'files', key: 'a', content: 'a' }, { content: 40 });
    tool(s, 'context_write', { region: 'files', key: 'b', content: 'b' }, { content: 40 });
    expect(tool(s, 'context_write', { region: 'files', key: 'a', content: 'A' }, { content: 70 }).isError).toBe(false);
    const files = findRegion(s, 'files')!;
    expect(files.entries.map((e) => [e.key, e.tokens])).toEqual([['a', 70]]);
  });

  it('refuses under reject and keeps both keys (scenario 14 variant)', () => {
    const s = withRegions(def('files', 'hashmap', { maxTokens: 100, admission: 'reject' }));
    tool(s, 'context_write', { region: 'files', key: 'a', content: 'a' }, { content: 40 });
    tool(s, 'context_write', { region: 'files', key: 'b', content: 'b' }, { content: 40 });
    expect(tool(s, 'context_write', { region: 'files', key: 'a', content: 'A' }, { content: 70 }).code).toBe(
      'region-full',
    );
    expect(findRegion(s, 'files')!.entries.map((e) => [e.key, e.tokens])).toEqual([
      ['a', 40],
      ['b', 40],
    ]);
  });

  it('evicts the least recently used key, and a keyed read counts as use (scenario 15)', () => {
    for (const read of [true, false]) {
      const s = withRegions(def('files', 'hashmap', { maxEntries: 2 }));
      tool(s, 'context_write', { region: 'files', key: 'a', content: 'a' }, { content: 10 });
      tool(s, 'context_write', { region: 'files', key: 'b', content: 'b' }, { content: 10 });
      if (read) expect(tool(s, 'context_read', { region: 'files', key: 'a' }).content).toBe('a');
      tool(s, 'context_write', { region: 'files', key: 'c', content: 'c' }, { content: 10 });
      expect(
        findRegion(s, 'files')!
          .entries.map((e) => e.key)
          .sort(),
      ).toEqual(read ? ['a', 'c'] : ['b', 'c']);
    }
  });

  it('requires a key and charges an append old + 1 + new (scenario 16)', () => {
    const s = withRegions(def('files', 'hashmap'));
    expect(tool(s, 'context_write', { region: 'files', content: 'x' }).code).toBe('key-required');
    tool(s, 'context_write', { region: 'files', key: 'a', content: 'one' }, { content: 10 });
    const r = tool(s, 'context_append', { region: 'files', key: 'a', content: 'two' }, { content: 5 });
    expect(r.content).toContain('extended');
    expect(findRegion(s, 'files')!.entries.map((e) => [e.content, e.tokens])).toEqual([['one\ntwo', 16]]);
  });
});

describe('checklists (docs/reference/regions.md#checklists)', () => {
  it('never reuses ids and reports unknown ids with the open ones (scenario 17)', () => {
    const s = withRegions(def('todos', 'checklist', { maxTokens: 1000 }));
    for (const item of ['one', 'two', 'three']) tool(s, 'todo_add', { region: 'todos', item });
    expect(tool(s, 'context_delete', { region: 'todos', index: 2 }).isError).toBe(false);
    expect(tool(s, 'todo_add', { region: 'todos', item: 'four' }).content).toContain('#4');
    const missing = tool(s, 'todo_done', { region: 'todos', id: 3 });
    expect(missing.content).toMatch(/^\[not-found\].*#1, #2, #4/);
    expect(tool(s, 'todo_done', { region: 'todos', id: '1' }).isError).toBe(false);
    expect(tool(s, 'todo_done', { region: 'todos', id: 1 }).content).toContain('already done');
    expect(openItems(findRegion(s, 'todos')!).map((e) => e.checklist!.id)).toEqual([2, 4]);
  });

  it('renders open items, notes and done items in order (scenario 18)', () => {
    const s = withRegions(def('todos', 'checklist'));
    tool(s, 'todo_add', { region: 'todos', item: 'alpha' });
    tool(s, 'todo_add', { region: 'todos', item: 'beta' });
    tool(s, 'todo_done', { region: 'todos', id: 1 });
    tool(s, 'todo_note', { region: 'todos', id: 2, note: 'waiting' });
    expect(tool(s, 'context_read', { region: 'todos' }).content).toBe(
      '1 open, 1 done\n- [ ] #2 beta\n  note: waiting\n- [x] #1 alpha',
    );
  });

  it('charges notes and refuses one that would overflow', () => {
    const s = withRegions(def('todos', 'checklist', { maxTokens: 20 }));
    tool(s, 'todo_add', { region: 'todos', item: 'a' }, { item: 10 });
    tool(s, 'todo_note', { region: 'todos', id: 1, note: 'n' }, { note: 5 });
    expect(regionTokens(findRegion(s, 'todos')!)).toBe(15);
    const r = tool(s, 'todo_note', { region: 'todos', id: 1, note: 'long' }, { note: 11 });
    expect(r.code).toBe('region-full');
    expect(findRegion(s, 'todos')!.entries[0]!.checklist!.note).toBe('n');
    expect(tool(s, 'todo_add', { region: 'todos', item: 'b' }, { item: 21 }).code).toBe('too-large');
    expect(tool(s, 'todo_add', { region: 'todos', item: 'b' }, { item: 6 }).code).toBe('region-full');
  });

  it('rejects todo calls on other kinds, unknown regions and bad ids (scenario 19)', () => {
    const s = withRegions(def('scratch', 'temporary'), def('todos', 'checklist'));
    const kind = tool(s, 'todo_add', { region: 'scratch', item: 'x' });
    expect(kind.code).toBe('not-a-checklist');
    expect(kind.content).toContain('kind = "checklist"');
    const unknown = tool(s, 'todo_add', { region: 'nope', item: 'x' });
    expect(unknown.code).toBe('unknown-region');
    expect(unknown.content).toContain('todos');
    expect(unknown.content).not.toContain('scratch');
    expect(tool(s, 'todo_done', { region: 'todos', id: 'x' }).code).toBe('bad-argument');
  });
});

describe('context_delete (scenario 31)', () => {
  it('deletes by key, index and oldest, and explains failures', () => {
    const s = withRegions(def('notes', 'temporary'));
    put(s, 'notes', 'rfc', 20, { key: 'rfc' });
    put(s, 'notes', 'blog', 10, { key: 'blog' });
    for (const c of ['x', 'y', 'z']) put(s, 'notes', c, 1);
    const byKey = tool(s, 'context_delete', { region: 'notes', key: 'rfc' });
    expect(byKey.content).toMatch(/"rfc".*20 tokens/);
    expect(tool(s, 'context_delete', { region: 'notes', index: 1 }).isError).toBe(false);
    expect(contents(s, 'notes')).toEqual(['blog', 'y', 'z']);
    expect(tool(s, 'context_delete', { region: 'notes', oldest: 5 }).content).toContain('Released 3 entries');
    const gone = tool(s, 'context_delete', { region: 'notes', index: 7 });
    expect(gone.content).toMatch(/^\[not-found\].*0 entries/);
    expect(tool(s, 'context_delete', { region: 'notes', key: 'blog', index: 0 }).code).toBe('bad-argument');
    expect(tool(s, 'context_delete', { region: 'notes' }).code).toBe('missing-argument');
    expect(tool(s, 'context_delete', { region: 'notes', oldest: 0 }).code).toBe('bad-argument');
    expect(tool(s, 'context_delete', { region: 'notes', index: -1 }).code).toBe('bad-argument');
  });

  it('releases 0 entries, successfully, when asked for the oldest of an empty region', () => {
    const s = withRegions(def('notes', 'temporary'));
    const updates = findRegion(s, 'notes')!.updates;
    const r = tool(s, 'context_delete', { region: 'notes', oldest: 3 });
    expect(r.isError).toBe(false);
    expect(r.content).toMatch(/^Released 0 entries: region "notes" is already empty/);
    expect(findRegion(s, 'notes')!.updates).toBe(updates);
  });
});

describe('context_read and context_list', () => {
  it('reads all entries separated by blank lines and says when a region is empty', () => {
    const s = withRegions(def('notes', 'temporary'));
    expect(tool(s, 'context_read', { region: 'notes' }).content).toContain('empty');
    put(s, 'notes', 'one', 3);
    put(s, 'notes', 'two', 4);
    expect(tool(s, 'context_read', { region: 'notes' })).toEqual({ content: 'one\n\ntwo', isError: false, tokens: 8 });
    expect(tool(s, 'context_read', { region: 'notes', key: 'k' }).content).toMatch(/^\[not-found\].*2 entries/);
  });

  it('lists regions with kind, entries, usage and reject tags', () => {
    const s = withRegions(
      def('notes', 'temporary', { maxTokens: 100, admission: 'reject' }),
      def('todos', 'checklist'),
    );
    put(s, 'notes', 'one', 3, { key: 'k' });
    const all = tool(s, 'context_list', {});
    expect(all.content).toContain('notes (temporary): 1 entry, 3/100 tokens, reject');
    expect(all.content).toContain('todos (checklist): 0 entries, 0/5000 tokens, 0 open items');
    const one = tool(s, 'context_list', { region: 'notes' });
    expect(one.content).toContain('[0] key=k 3 tokens : one');
  });
});

describe('visibility (scenario 29)', () => {
  it('hides a global region from a stage with its own layout, and keeps its entries', () => {
    const bp = blueprint(
      [def('notes', 'temporary')],
      [stage('a'), stage('b', { regions: [def('work', 'temporary')] })],
    );
    const s = start(bp);
    expect(tool(s, 'context_append', { region: 'notes', content: 'n' }, { content: 10 }).isError).toBe(false);
    run(enterStage(s, bp, 'b', env));
    const hidden = tool(s, 'context_append', { region: 'notes', content: 'n' }, { content: 10 });
    expect(hidden.content).toMatch(/^\[hidden-region\].*"b"/);
    expect(findRegion(s, 'notes')!.hidden).toBe(true);
    expect(windowUsed(s)).toBe(0);
    run(enterStage(s, bp, 'a', env));
    expect(tokensOf(s, 'notes')).toEqual([10]);
  });
});

describe('malformed calls', () => {
  it('answers unknown tools and non-object arguments with coded results', () => {
    const s = withRegions(def('notes', 'temporary'));
    expect(tool(s, 'context_frob', {}).code).toBe('unknown-tool');
    expect(tool(s, 'context_read', 'notes').code).toBe('bad-argument');
    expect(tool(s, 'context_append', { region: 42, content: 'x' }).code).toBe('bad-argument');
    expect(tool(s, 'context_delete', { region: 'notes', index: 1.5 }).code).toBe('bad-argument');
  });

  it('refuses to append text to a key holding stored blob content', () => {
    const s = withRegions(def('files', 'hashmap'));
    run(
      writeEntry(
        s,
        'files',
        { content: { hash: 'abc', bytes: 40, preview: 'start of file' }, tokens: 10, key: 'big.txt' },
        env,
      ),
    );
    const r = tool(s, 'context_append', { region: 'files', key: 'big.txt', content: 'more' }, { content: 1 });
    expect(r.code).toBe('not-appendable');
    expect(findRegion(s, 'files')!.entries).toHaveLength(1);
  });

  it('never lets a tool delete the stage instructions', () => {
    const bp = blueprint([def('task', 'pinned')], [stage('main', { systemPrompt: 'Do it', systemPromptTokens: 2 })]);
    const s = start(bp);
    expect(tool(s, 'context_delete', { region: 'task', index: 0 }).code).toBe('bad-argument');
    expect(tool(s, 'context_delete', { region: 'task', oldest: 1 }).code).toBe('not-found');
    const written = tool(s, 'context_write', { region: 'task', content: 'goal' }, { content: 3 });
    expect(written.isError).toBe(false);
    expect(findRegion(s, 'task')!.entries.map((e) => e.stagePrompt ?? e.content)).toEqual(['main', 'goal']);
  });
});
