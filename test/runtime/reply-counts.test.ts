/** What the inference counts ahead for the workflow (src/runtime/reply-counts.ts). */
import { describe, expect, it } from 'vitest';
import { findRegion } from '../../src/context/state.js';
import { ENGINE } from '../../src/runtime/engine-calls.js';
import { replyCounts } from '../../src/runtime/reply-counts.js';
import { routedCall, SNAPSHOT_AFTER_BYTES, snapshotDue } from '../../src/runtime/visit.js';
import { blueprint, def, env, stage, start } from '../context/helpers.js';

const count = (text: string) => text.length;

function reply(calls: { name: string; arguments: Record<string, unknown>; argTokens?: Record<string, number> }[]) {
  return {
    content: 'Working.',
    tokens: 3,
    toolCalls: calls.map((c, i) => ({ id: `c${i}`, argTokens: {}, ...c })),
    invalidToolCalls: [],
  };
}

describe('replyCounts', () => {
  const bp = blueprint(
    [def('notes', 'temporary', { maxTokens: 1000 })],
    [stage('main', { availableTools: ['context_append', 'read_file'] })],
  );

  it('counts the answers of the context tools, as the workflow will compose them, without touching the state', () => {
    const state = start(bp);
    const counted = replyCounts(
      ENGINE,
      state,
      bp,
      'main',
      reply([{ name: 'context_append', arguments: { region: 'notes', content: 'a fact' }, argTokens: { content: 2 } }]),
      env,
      count,
    );
    expect(counted).toEqual([['Appended to region "notes"; 2/1000 tokens.', 42]]);
    expect(findRegion(state, 'notes')!.entries).toHaveLength(0);
  });

  it('counts refusals, and stops at the first built-in tool, whose answer comes later', () => {
    const state = start(bp);
    const counted = new Map(
      replyCounts(
        ENGINE,
        state,
        bp,
        'main',
        reply([
          { name: 'write_file', arguments: { path: 'x', content: 'y' } },
          { name: 'read_file', arguments: { path: 'a' } },
          { name: 'context_append', arguments: { region: 'notes', content: 'later' }, argTokens: { content: 1 } },
        ]),
        env,
        count,
      ),
    );
    expect([...counted.keys()]).toHaveLength(1);
    expect([...counted.keys()][0]).toMatch(/^\[tool-not-granted\] stage "main" was not given the tool `write_file`/);
  });
});

describe('snapshots and routed calls', () => {
  it('asks for a snapshot once the log holds about a turn, or the operation cap', () => {
    expect(snapshotDue(0, 0, 24)).toBe(false);
    expect(snapshotDue(3, SNAPSHOT_AFTER_BYTES - 1, 24)).toBe(false);
    expect(snapshotDue(3, SNAPSHOT_AFTER_BYTES, 24)).toBe(true);
    expect(snapshotDue(24, 10, 24)).toBe(true);
  });

  it('a route records a call without its stored arguments', () => {
    const ref = { hash: 'h'.repeat(64), bytes: 30_000, preview: 'p' };
    const call = { id: 'c', name: 'write_file', arguments: { path: 'a.md', content: ref }, blobArgs: ['content'] };
    expect(routedCall(call)).toEqual({ id: 'c', name: 'write_file', arguments: { path: 'a.md' } });
    const plain = { id: 'c', name: 'read_file', arguments: { path: 'a.md' } };
    expect(routedCall(plain)).toBe(plain);
  });
});
