/** Stored arguments in the engine (docs/reference/regions.md#stored-arguments). */
import { describe, expect, it } from 'vitest';
import { runSync } from '../../src/context/requests.js';
import { findRegion, type RunState } from '../../src/context/state.js';
import {
  type ArgumentCounts,
  applyContextTool,
  type ContextToolOptions,
  storesContent,
  type ToolResult,
} from '../../src/context/tools.js';
import type { BlobRef } from '../../src/shapes/content.js';
import type { EngineRequest } from '../../src/shapes/engine-requests.js';
import type { RegionDef } from '../../src/shapes/frozen-blueprint.js';
import { blueprint, def, env, handle, start } from './helpers.js';

const ref = (n: number): BlobRef => ({ hash: `${n}`.repeat(64).slice(0, 64), bytes: 25_000, preview: `stored ${n}` });

function withRegions(...regions: RegionDef[]): RunState {
  return start(blueprint(regions));
}

function tool(
  s: RunState,
  name: string,
  args: Record<string, unknown>,
  counts: ArgumentCounts = {},
  opts: ContextToolOptions = {},
  requests: EngineRequest[] = [],
): ToolResult {
  return runSync(applyContextTool(s, blueprint([]), name, args, env, counts, opts), (req) => {
    requests.push(req);
    return req.type === 'join' ? ref(9) : handle(req);
  });
}

describe('stored arguments (docs/reference/regions.md#stored-arguments)', () => {
  it('context_append keeps a stored content as the entry, with the count the activity made', () => {
    const s = withRegions(def('notes', 'temporary', { maxTokens: 20_000 }));
    const r = tool(
      s,
      'context_append',
      { region: 'notes', content: ref(1) },
      { content: 6000 },
      { blobArgs: ['content'] },
    );
    expect(r.isError).toBe(false);
    const entry = findRegion(s, 'notes')!.entries[0]!;
    expect(entry.content).toEqual(ref(1));
    expect(entry.tokens).toBe(6000);
  });

  it('an object a model passes as content is refused, not taken for stored text', () => {
    const s = withRegions(def('notes', 'temporary'));
    const r = tool(s, 'context_append', { region: 'notes', content: ref(1) }, { content: 5 });
    expect(r.code).toBe('bad-argument');
    expect(findRegion(s, 'notes')!.entries).toHaveLength(0);
  });

  it('context_read answers a stored entry with its reference and its count, several through one join', () => {
    const s = withRegions(def('notes', 'temporary', { maxTokens: 20_000 }));
    const stored = { blobArgs: ['content'], readsStored: true };
    tool(s, 'context_append', { region: 'notes', content: ref(1) }, { content: 100 }, stored);
    const one = tool(s, 'context_read', { region: 'notes' }, {}, stored);
    expect(one).toMatchObject({ content: ref(1), tokens: 100, isError: false });
    tool(s, 'context_append', { region: 'notes', content: 'short' }, { content: 2 }, stored);
    const requests: EngineRequest[] = [];
    const both = tool(s, 'context_read', { region: 'notes' }, {}, stored, requests);
    expect(requests).toEqual([{ type: 'join', parts: [ref(1), '\n\n', 'short'] }]);
    expect(both).toMatchObject({ content: ref(9), tokens: 103 });
  });

  it('without readsStored (runs started before) a read shows previews, as it always did', () => {
    const s = withRegions(def('notes', 'temporary', { maxTokens: 20_000 }));
    tool(s, 'context_append', { region: 'notes', content: ref(1) }, { content: 100 }, { blobArgs: ['content'] });
    expect(tool(s, 'context_read', { region: 'notes' }).content).toBe('stored 1');
  });

  it('stores content only for writes to visible, writable log regions', () => {
    const s = withRegions(
      def('notes', 'temporary'),
      def('map', 'hashmap'),
      def('todos', 'checklist'),
      def('hist', 'compact_history', { sourceRegion: 'notes' }),
    );
    expect(storesContent(s, 'context_append', { region: 'notes' })).toBe(true);
    expect(storesContent(s, 'context_write', { region: 'notes' })).toBe(true);
    expect(storesContent(s, 'context_append', { region: 'map' })).toBe(false);
    expect(storesContent(s, 'context_append', { region: 'todos' })).toBe(false);
    expect(storesContent(s, 'context_append', { region: 'hist' })).toBe(false);
    expect(storesContent(s, 'context_append', { region: 'conversation' })).toBe(false);
    expect(storesContent(s, 'context_append', { region: 'nowhere' })).toBe(false);
    expect(storesContent(s, 'todo_add', { region: 'todos' })).toBe(false);
  });
});
