import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/shapes/run-events.js';
import { eventLine } from '../../src/stream/event-lines.js';

const base = { v: 1 as const, time: 0 };

describe('eventLine', () => {
  it("gives a turn's end with its window, usage, cache, cost, calls and preview on one line", () => {
    const event: RunEvent = {
      ...base,
      offset: 7,
      kind: 'turn-ended',
      stage: 'plan',
      turn: 2,
      preview: 'Reading\nthe files.',
      calls: 2,
      window: { used: 820, max: 8000, regions: [] },
      usage: { promptTokens: 800, completionTokens: 20, cacheReadTokens: 600, cacheWriteTokens: 0 },
      cost: 0.00123,
    };
    expect(eventLine(event)).toBe(
      '#7 turn-ended plan turn 2: window 820/8000, 800 in, 20 out, 600 cached, $0.0012, 2 calls "Reading the files."',
    );
  });

  it('says how a tool call ended, with a stored result by its blob', () => {
    expect(
      eventLine({
        ...base,
        offset: 8,
        kind: 'tool-result',
        stage: 'plan',
        turn: 2,
        call: 'c1',
        tool: 'read_file',
        ok: true,
        summary: 'first lines',
        tokens: 9000,
        blob: 'abcdef0123456789',
      }),
    ).toBe('#8 tool-result c1 read_file ok (9000 tokens) blob abcdef012345 "first lines"');
  });

  it('ends with the run', () => {
    expect(eventLine({ ...base, offset: 9, kind: 'run-ended', status: 'failed', code: 'budget-exhausted' })).toBe(
      '#9 run-ended failed [budget-exhausted]',
    );
  });
});
