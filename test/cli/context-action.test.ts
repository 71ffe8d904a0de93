/** `lev context <run>`'s pure parts (docs/reference/cli.md#lev-context): the history, the turn asked for, the layout. */
import { describe, expect, it } from 'vitest';
import {
  formatHistory,
  formatWindowAt,
  inferenceAt,
  type WindowAt,
  windowHistory,
} from '../../src/cli/context-action.js';
import { isLevError } from '../../src/errors.js';
import type { InferInput } from '../../src/runtime/activity-types.js';
import { EVENTS_VERSION, type RunEvent } from '../../src/shapes/run-events.js';

const ended = (offset: number, turn: number, stage: string, used: number): RunEvent => ({
  v: EVENTS_VERSION,
  offset,
  time: offset * 1000,
  kind: 'turn-ended',
  stage,
  turn,
  model: 'scripted:x',
  preview: '',
  calls: 0,
  window: {
    used,
    max: 1000,
    regions: [
      { region: 'task', tokens: 20, budget: 100 },
      { region: 'conversation', tokens: used - 20 },
    ],
  },
  usage: { promptTokens: used, completionTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 },
});

describe('the window history', () => {
  it('is a point per ended turn, a line each with every region', () => {
    const history = windowHistory([
      { v: EVENTS_VERSION, offset: 0, time: 0, kind: 'stage-entered', stage: 'plan', visit: 1 },
      ended(1, 0, 'plan', 120),
      ended(2, 1, 'plan', 180),
    ]);
    expect(history.from).toBe(0);
    expect(history.turns.map((t) => [t.turn, t.stage, t.window.used, t.model])).toEqual([
      [0, 'plan', 120, 'scripted:x'],
      [1, 'plan', 180, 'scripted:x'],
    ]);
    expect(formatHistory(history).split('\n')).toEqual([
      'turn 0 [plan] window 120/1000: task 20/100, conversation 100',
      'turn 1 [plan] window 180/1000: task 20/100, conversation 160',
    ]);
  });

  it('says when earlier turns are gone, and when none has ended', () => {
    const text = formatHistory(windowHistory([ended(30, 9, 'plan', 100)]));
    expect(text).toContain('no longer keeps its events before offset 30');
    expect(formatHistory(windowHistory([]))).toBe('no turn has ended yet');
  });
});

describe('the turn asked for', () => {
  const input = (turn: number, model = 'a'): InferInput =>
    ({
      runId: 'r',
      blueprintHash: 'h',
      base: null,
      ops: [],
      stage: 's',
      turn,
      stageTurn: turn,
      purpose: 'turn',
      avoid: [model],
    }) as InferInput;

  it('is the last try of that inference', () => {
    const record = {
      inferences: [
        { input: input(0), visit: 0 },
        { input: input(1, 'a'), visit: 0 },
        { input: input(1, 'b'), visit: 0 },
      ],
    };
    expect(inferenceAt(record, 1, 'r').input.avoid).toEqual(['b']);
  });

  it('is context-turn-unknown when the run has no such turn, naming the range', () => {
    const record = {
      inferences: [
        { input: input(0), visit: 0 },
        { input: input(3), visit: 1 },
      ],
    };
    const err = (() => {
      try {
        inferenceAt(record, 7, 'r');
      } catch (e) {
        return e;
      }
    })();
    expect(isLevError(err) && err.code).toBe('context-turn-unknown');
    expect((err as Error).message).toContain('turns 0 to 3');
    expect(() => inferenceAt({ inferences: [] }, 0, 'r')).toThrow(/no inference yet/);
  });
});

describe('the window at a turn', () => {
  it('is laid out as the simulator lays out its result: the regions, then the prompt', () => {
    const w: WindowAt = {
      runId: 'r',
      turn: 2,
      stage: 'plan',
      stageTurn: 1,
      purpose: 'turn',
      model: 'scripted:x',
      window: { max: 1000, used: 30, gap: 0 },
      regions: [
        {
          name: 'task',
          kind: 'pinned',
          budget: 100,
          tokens: 30,
          hidden: false,
          entries: [{ index: 0, key: null, kind: 'text', tokens: 30, summary: false, preview: 'Find the bug.' }],
        },
      ],
      prompt: { system: ['You are careful.'], messages: [{ role: 'user', content: 'Find the bug.' }] },
    };
    const text = formatWindowAt(w);
    expect(text.split('\n').slice(0, 2)).toEqual([
      'Run r, turn 2: stage plan (its turn 1), model scripted:x',
      'Window: 30 of 1000 tokens used, calibration gap 0',
    ]);
    expect(text).toMatch(/Regions:\n\s+region\s+kind\s+tokens\s+budget/);
    expect(text).toContain('[0]     30 tok  Find the bug.');
    expect(text).toContain('--- system 1 ---\n  You are careful.');
    expect(text).toContain('--- user ---\n  Find the bug.');
    expect(formatWindowAt({ ...w, purpose: 'edge-choice' })).toContain('(choosing the edge out of it)');
  });
});
