/** The per-stage ledger read from a run's events (docs/reference/cli.md#lev-stages). */
import { describe, expect, it } from 'vitest';
import { EVENTS_VERSION, type NewEvent, type RunEvent } from '../../src/shapes/run-events.js';
import { stageLedger } from '../../src/stream/stage-ledger.js';

const usage = (p: number, c: number, r = 0, w = 0) => ({
  promptTokens: p,
  completionTokens: c,
  cacheReadTokens: r,
  cacheWriteTokens: w,
});

/** Events at consecutive offsets from `from`, a second apart. */
function stream(events: NewEvent[], from = 0): RunEvent[] {
  return events.map((e, i) => ({ ...e, v: EVENTS_VERSION, offset: from + i, time: 1_000 * (from + i) }) as RunEvent);
}

const turn = (stage: string, n: number, p: number, c: number, cost?: number): NewEvent =>
  ({
    kind: 'turn-ended',
    time: 0,
    stage,
    turn: n,
    preview: '',
    calls: 0,
    window: { used: 0, max: 0, regions: [] },
    usage: usage(p, c),
    ...(cost !== undefined ? { cost } : {}),
  }) as NewEvent;

const left = (
  stage: string,
  visit: number,
  end: string,
  spent?: { turns: number; usage: ReturnType<typeof usage>; cost?: number },
): NewEvent => ({
  kind: 'stage-left',
  time: 0,
  stage,
  visit,
  end,
  ...spent,
});

describe('stageLedger', () => {
  it('has a row per visit with what its stage-left reports, its gates and the stage entered next', () => {
    const ledger = stageLedger(
      stream([
        { kind: 'stage-entered', time: 0, stage: 'plan', visit: 1 },
        turn('plan', 0, 100, 10, 0.01),
        left('plan', 1, 'completed', { turns: 1, usage: usage(100, 10, 5, 2), cost: 0.01 }),
        { kind: 'gate', time: 0, stage: 'plan', gate: 'require_todos_complete', passed: false },
        // The blocked gate runs the visit again: its second stage-left adds to the same row.
        turn('plan', 1, 120, 12, 0.02),
        left('plan', 1, 'completed', { turns: 1, usage: usage(120, 12), cost: 0.02 }),
        { kind: 'gate', time: 0, stage: 'plan', gate: 'to build', passed: true },
        { kind: 'stage-entered', time: 0, stage: 'build', visit: 2 },
        turn('build', 2, 200, 20),
        left('build', 2, 'max_iterations', { turns: 1, usage: usage(200, 20) }),
        { kind: 'run-ended', time: 0, status: 'completed' },
      ]),
    );
    expect(ledger.visits).toEqual([
      {
        visit: 1,
        stage: 'plan',
        startedAt: 0,
        endedAt: 5_000,
        turns: 2,
        usage: usage(220, 22, 5, 2),
        cost: expect.closeTo(0.03, 10),
        end: 'completed',
        gates: { passed: 1, blocked: 1 },
        next: 'build',
      },
      {
        visit: 2,
        stage: 'build',
        startedAt: 7_000,
        endedAt: 9_000,
        turns: 1,
        usage: usage(200, 20),
        cost: null,
        end: 'max_iterations',
        gates: { passed: 0, blocked: 0 },
        next: null,
      },
    ]);
    expect(ledger.total).toEqual({ turns: 3, usage: usage(420, 42, 5, 2), cost: expect.closeTo(0.03, 10) });
    expect(ledger.runEnded).toEqual({ status: 'completed' });
    expect(ledger.from).toBe(0);
  });

  it('counts a running visit, and one a stream of an earlier version left without totals, from its turns', () => {
    const ledger = stageLedger(
      stream([
        { kind: 'stage-entered', time: 0, stage: 'a', visit: 1 },
        turn('a', 0, 10, 1, 0.5),
        turn('a', 1, 20, 2, 0.25),
        left('a', 1, 'completed'),
        { kind: 'stage-entered', time: 0, stage: 'a', visit: 2 },
        turn('a', 2, 30, 3),
      ]),
    );
    expect(ledger.visits.map((v) => [v.visit, v.turns, v.usage.promptTokens, v.cost, v.end, v.next])).toEqual([
      [1, 2, 30, 0.75, 'completed', 'a'],
      [2, 1, 30, null, null, null],
    ]);
    expect(ledger.runEnded).toBeNull();
  });

  it('gives a visit whose start is no longer kept a row from what follows, and says where the stream begins', () => {
    const ledger = stageLedger(
      stream(
        [
          turn('a', 7, 10, 1),
          left('a', 3, 'completed', { turns: 8, usage: usage(80, 8) }),
          { kind: 'stage-entered', time: 0, stage: 'b', visit: 4 },
        ],
        40,
      ),
    );
    expect(ledger.from).toBe(40);
    expect(ledger.visits.map((v) => [v.visit, v.stage, v.startedAt, v.turns, v.next])).toEqual([
      [3, 'a', null, 8, 'b'],
      [4, 'b', 42_000, 0, null],
    ]);
    expect(stageLedger([])).toMatchObject({ visits: [], total: { turns: 0, cost: null }, from: 0 });
  });
});
