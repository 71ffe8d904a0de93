/**
 * The region and wait events (docs/reference/events.md#the-events): built from an engine
 * operation's result and the state after it, as the workflow applies it, and from a change of
 * what a visit waits for.
 */
import { describe, expect, it } from 'vitest';
import { createRunState } from '../../src/context/state.js';
import { type AppliedOp, applyLive, ENGINE, type OpCall, type WriteEviction } from '../../src/runtime/index.js';
import { entriesBefore, regionEvents, waitEvents, waitOf } from '../../src/runtime/stream-events.js';
import type { PendingAsk } from '../../src/runtime/types.js';
import type { Blueprint } from '../../src/shapes/frozen-blueprint.js';
import type { NewEvent } from '../../src/shapes/run-events.js';
import { blueprint, def, handle } from '../context/helpers.js';

/** Applies `call` as the engine driver does and returns the events it writes. */
async function told(state: ReturnType<typeof createRunState>, bp: Blueprint, call: OpCall): Promise<NewEvent[]> {
  const writes: WriteEviction[] = [];
  const env = {
    now: 0,
    onEvict: (region: { name: string; kind: string }, entries: readonly unknown[]) =>
      writes.push({ region: region.name, kind: region.kind, entries: entries as WriteEviction['entries'] }),
  };
  const before = entriesBefore(state);
  const { result } = await applyLive(ENGINE, state, bp, call, env, async (req) => handle(req));
  return regionEvents(before, state, { call, result } as AppliedOp, writes, 7);
}

async function entered(bp: Blueprint, window = 100_000) {
  const state = createRunState(bp, { window });
  await told(state, bp, { kind: 'enterStage', stage: bp.agent.entryStage });
  return state;
}

const write = (region: string, content: string, tokens: number, key?: string): OpCall => ({
  kind: 'write',
  region,
  entry: { content, tokens, kind: 'text', ...(key !== undefined ? { key } : {}) },
});

describe('the region events of an engine operation', () => {
  it('tell a write with its tokens, key and a short preview, never the whole text', async () => {
    const bp = blueprint([def('facts', 'hashmap', { maxTokens: 1000 })]);
    const state = await entered(bp);
    const text = `alpha ${'x'.repeat(300)}`;
    expect(await told(state, bp, write('facts', text, 60, 'k1'))).toEqual([
      {
        kind: 'region-write',
        time: 7,
        region: 'facts',
        entries: 1,
        tokens: 60,
        key: 'k1',
        preview: `${text.slice(0, 80)}…`,
      },
    ]);
    // A key written again in place is a write too.
    expect(await told(state, bp, write('facts', 'beta', 2, 'k1'))).toMatchObject([
      { kind: 'region-write', region: 'facts', entries: 1, tokens: 2, key: 'k1', preview: 'beta' },
    ]);
  });

  it('tell an item added to a checklist, whose list grows in place', async () => {
    const bp = blueprint([def('todos', 'checklist')]);
    const state = await entered(bp);
    const add = (item: string): OpCall => ({
      kind: 'contextTool',
      tool: 'todo_add',
      args: { region: 'todos', item },
      counts: { item: 2 },
    });
    await told(state, bp, add('write tests'));
    expect(await told(state, bp, add('run them'))).toMatchObject([
      { kind: 'region-write', region: 'todos', entries: 1, preview: expect.stringContaining('run them') },
    ]);
  });

  it("leave the conversation's writes to the turn and tool events", async () => {
    const bp = blueprint([]);
    const state = await entered(bp);
    expect(await told(state, bp, write('conversation', 'hello', 3))).toEqual([]);
  });

  it('tell what a write evicted to stay within budget, after the write', async () => {
    const bp = blueprint([def('notes', 'temporary', { maxTokens: 100 })]);
    const state = await entered(bp);
    await told(state, bp, write('notes', 'a', 60));
    expect(await told(state, bp, write('notes', 'b', 60))).toEqual([
      { kind: 'region-write', time: 7, region: 'notes', entries: 1, tokens: 60, preview: 'b' },
      { kind: 'evicted', time: 7, region: 'notes', entries: 1, tokens: 60, cause: 'write' },
    ]);
  });

  it('tell a fold at a maintenance point with the tokens before and after', async () => {
    const conv = def('conversation', 'sliding_window', {
      maxTokens: 1000,
      maxItems: 5,
      strategy: 'compact',
      compactCount: 3,
    });
    const bp = blueprint([conv]);
    const state = await entered(bp);
    for (let i = 0; i < 6; i++) await told(state, bp, write('conversation', `u${i}`, 10));
    const events = await told(state, bp, { kind: 'maintain' });
    expect(events).toEqual([
      {
        kind: 'folded',
        time: 7,
        region: 'conversation',
        entries: 3,
        tokens: 30,
        ok: true,
        summaryTokens: expect.any(Number),
      },
    ]);
  });

  it("tell the window cascade's removals as evictions of cause cascade", async () => {
    const bp = blueprint([def('p', 'pinned', { maxTokens: 6000 }), def('t', 'temporary', { maxTokens: 4000 })]);
    const state = await entered(bp, 10_000);
    await told(state, bp, write('p', 'seed', 5500));
    for (let i = 0; i < 3; i++) await told(state, bp, write('t', `t${i}`, 1000));
    await told(state, bp, write('conversation', 'a', 1000));
    await told(state, bp, write('conversation', 'b', 100));
    expect(await told(state, bp, { kind: 'maintain' })).toEqual([
      { kind: 'evicted', time: 7, region: 't', entries: 1, tokens: 1000, cause: 'cascade' },
    ]);
  });
});

const ask = (kind: PendingAsk['kind'], call: string, subject: string): PendingAsk => ({
  kind,
  call,
  tool: kind === 'approval' ? 'write_file' : 'ask_user',
  subject,
  since: 0,
  deadline: 1000,
});
const calm = { asks: [], waitingReply: false, paused: false, decisions: {} };

describe('the wait events of a visit', () => {
  it('start a wait for an approval on its call, and end it as the person decided', () => {
    const asks = [ask('approval', 'c1', 'write_file a.ts')];
    const waiting = waitOf({ ...calm, asks });
    expect(waiting).toEqual({ wait: 'approval', detail: 'write_file a.ts', calls: ['c1'] });
    expect(waitEvents(undefined, waiting, {}, 5)).toEqual([
      { kind: 'wait-started', time: 5, wait: 'approval', detail: 'write_file a.ts' },
    ]);
    // A decided ask waits no more, before the visit wakes to take the decision.
    const decisions = { c1: { kind: 'approved' as const } };
    const after = waitOf({ ...calm, asks, decisions });
    expect(after).toBeUndefined();
    expect(waitEvents(waiting, after, decisions, 6)).toEqual([
      { kind: 'wait-ended', time: 6, wait: 'approval', ended: 'approved' },
    ]);
  });

  it('end an ask nobody decided as timed out, and go on to the next kind of wait', () => {
    const waiting = waitOf({ ...calm, asks: [ask('approval', 'c1', 'shell make'), ask('answer', 'c2', 'Which?')] });
    const next = waitOf({ ...calm, asks: [ask('answer', 'c2', 'Which?')] });
    expect(waitEvents(waiting, next, {}, 9)).toEqual([
      { kind: 'wait-ended', time: 9, wait: 'approval', ended: 'timed-out' },
      { kind: 'wait-started', time: 9, wait: 'answer', detail: 'Which?' },
    ]);
  });

  it('tell nothing while the wait stays, and end a pause as resumed', () => {
    const paused = waitOf({ ...calm, paused: true });
    expect(paused).toEqual({ wait: 'resume' });
    expect(waitEvents(paused, waitOf({ ...calm, paused: true }), {}, 1)).toEqual([]);
    expect(waitEvents(paused, undefined, {}, 2)).toEqual([
      { kind: 'wait-ended', time: 2, wait: 'resume', ended: 'resumed' },
    ]);
  });

  it('name the model of a provider outage and the queue of an absent tool worker', () => {
    const provider = { provider: 'openai', model: 'gpt-x', error: '[provider-server] 503', since: 0, giveUpAt: 9 };
    expect(waitOf({ ...calm, provider })).toEqual({
      wait: 'provider-unavailable',
      detail: 'gpt-x: [provider-server] 503',
    });
    const toolWorker = { taskQueue: 'tools-a', workdir: '/w', since: 0, failsAt: 9 };
    expect(waitOf({ ...calm, toolWorker })).toEqual({ wait: 'tool-worker-missing', detail: 'tools-a' });
    expect(waitEvents({ wait: 'tool-worker-missing' }, undefined, {}, 3)).toEqual([
      { kind: 'wait-ended', time: 3, wait: 'tool-worker-missing', ended: 'over' },
    ]);
  });
});
