import { describe, expect, it } from 'vitest';
import { gateChecked, toolAnswered, toolCalled, turnEnded, windowOf } from '../../src/runtime/stream-events.js';

const at = { stage: 'plan', turn: 4, time: 1000 };
const usage = { promptTokens: 900, completionTokens: 40, cacheReadTokens: 600, cacheWriteTokens: 0 };
const progress = {
  regions: [
    { name: 'system', kind: 'pinned', tokens: 120, budget: 0, entries: 1 },
    { name: 'conversation', kind: 'conversation', tokens: 700, budget: 4000, entries: 9 },
  ],
  window: { max: 8000, used: 820, gap: 0 },
};

describe('stream events', () => {
  it("end a turn with the window by region, the turn's usage and cache use, cost and a short preview", () => {
    const event = turnEnded(
      at,
      { content: 'x'.repeat(500), toolCalls: [], invalidToolCalls: [], usage, model: 'scripted:demo' },
      progress,
      0.0012,
    );
    expect(event).toMatchObject({
      kind: 'turn-ended',
      turn: 4,
      model: 'scripted:demo',
      calls: 0,
      usage,
      cost: 0.0012,
      window: {
        used: 820,
        max: 8000,
        regions: [
          { region: 'system', tokens: 120 },
          { region: 'conversation', tokens: 700, budget: 4000 },
        ],
      },
    });
    expect((event as { preview: string }).preview.length).toBeLessThanOrEqual(201);
  });

  it('leave the cost out when the model has no price, and a budget out when the region has none', () => {
    const event = turnEnded(at, { content: 'hi', toolCalls: [], invalidToolCalls: [], usage }, progress, null);
    expect('cost' in event).toBe(false);
    expect(windowOf(progress).regions[0]).toEqual({ region: 'system', tokens: 120 });
  });

  it('summarise a tool call by its subject, never its whole arguments', () => {
    const call = { id: 'c1', name: 'write_file', arguments: { path: 'a.ts', content: 'y'.repeat(10_000) } };
    const event = toolCalled(at, call);
    expect(event).toEqual({ kind: 'tool-call', ...at, call: 'c1', tool: 'write_file', subject: 'write_file a.ts' });
  });

  it('give a large result by its blob reference and a preview, and say how each other call ended', () => {
    const call = { id: 'c1', name: 'read_file' };
    const stored = { hash: 'abc', bytes: 90_000, preview: 'first lines' };
    const effect = { kind: 'builtin' as const, tool: 'read_file', isError: false, denied: false, modifiedPaths: [] };
    expect(toolAnswered(at, call, { ...effect, content: stored, tokens: 20_000 })).toMatchObject({
      ok: true,
      summary: 'first lines',
      tokens: 20_000,
      blob: 'abc',
    });
    expect(toolAnswered(at, call, { ...effect, isError: true, denied: true, content: 'no' })).toMatchObject({
      ok: false,
      summary: 'denied',
    });
    expect(toolAnswered(at, call, { kind: 'refused' })).toMatchObject({
      ok: false,
      summary: expect.stringMatching(/refused/),
    });
    expect(toolAnswered(at, call, { kind: 'context', tool: 'context_add', isError: false })).toMatchObject({
      ok: true,
      summary: 'ok',
    });
  });

  it('say whether a gate passed, and when it was forced', () => {
    expect(gateChecked('plan', 'build', { outcome: 'block', check: 'required_regions' }, 1)).toMatchObject({
      gate: 'required_regions',
      passed: false,
    });
    expect(gateChecked('plan', null, { outcome: 'pass' }, 1)).toMatchObject({ gate: 'to the end', passed: true });
    expect(gateChecked('plan', null, { outcome: 'forced', check: 'x' }, 1)).toMatchObject({
      passed: true,
      detail: expect.any(String),
    });
  });
});
