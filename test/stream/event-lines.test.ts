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

  it('tells region writes, evictions, folds and waits with what matters of each', () => {
    const line = (e: Parameters<typeof eventLine>[0]) => eventLine(e);
    expect(
      line({
        ...base,
        offset: 1,
        kind: 'region-write',
        region: 'facts',
        entries: 1,
        tokens: 12,
        key: 'k',
        preview: 'a\nb',
      }),
    ).toBe('#1 region-write facts: 1 entry, 12 tokens key "k" "a b"');
    expect(line({ ...base, offset: 2, kind: 'evicted', region: 'notes', entries: 2, tokens: 90, cause: 'write' })).toBe(
      '#2 evicted notes: 2 entries, 90 tokens (write)',
    );
    expect(
      line({
        ...base,
        offset: 3,
        kind: 'folded',
        region: 'conversation',
        entries: 3,
        tokens: 30,
        ok: true,
        summaryTokens: 8,
      }),
    ).toBe('#3 folded conversation: 3 entries, 30 tokens into 8');
    expect(
      line({
        ...base,
        offset: 4,
        kind: 'folded',
        region: 'conversation',
        entries: 3,
        tokens: 30,
        ok: false,
        error: 'down',
      }),
    ).toBe('#4 folded conversation: 3 entries kept, the fold failed: down');
    expect(line({ ...base, offset: 5, kind: 'wait-started', wait: 'approval', detail: 'shell make' })).toBe(
      '#5 wait-started approval: shell make',
    );
    expect(line({ ...base, offset: 6, kind: 'wait-ended', wait: 'approval', ended: 'denied' })).toBe(
      '#6 wait-ended approval: denied',
    );
  });

  it('ends with the run', () => {
    expect(eventLine({ ...base, offset: 9, kind: 'run-ended', status: 'failed', code: 'budget-exhausted' })).toBe(
      '#9 run-ended failed [budget-exhausted]',
    );
  });
});
