import { describe, expect, it } from 'vitest';
import { callKey, DEFAULT_REPETITION, repetitionConfig, watchCalls } from '../../src/runtime/repetition.js';
import type { RepetitionWatch } from '../../src/runtime/types.js';
import { loadToml } from '../blueprint/helpers.js';

const time = { name: 'current_time', arguments: {} };
const write = (path: string) => ({ name: 'write_file', arguments: { path, content: 'x' } });
const modifying = new Set(['write_file']);

function turns(calls: { name: string; arguments: Record<string, unknown> }[][], config = DEFAULT_REPETITION) {
  let watch: RepetitionWatch | undefined;
  return calls.map((turn) => {
    const seen = watchCalls(watch, turn, modifying, config);
    watch = seen.watch;
    return seen.nudge;
  });
}

describe('repetition detection', () => {
  it("reads the original's keys, the ones absent at its defaults", () => {
    expect(repetitionConfig(loadToml('[agent]\nname = "a"\n').blueprint!)).toEqual(DEFAULT_REPETITION);
    const bp = loadToml('[repetition_detection]\nenabled = false\nmax_repeat_calls = 5\n').blueprint!;
    expect(repetitionConfig(bp)).toEqual({ enabled: false, maxRepeatCalls: 5, maxReadonlyStreak: 10 });
    expect(loadToml('[repetition_detection]\nmax_repeat_calls = 0\n').diagnostics.map((d) => d.code)).toContain(
      'bad-size',
    );
  });

  it('nudges at the third identical call in a row, and again three calls later', () => {
    const nudges = turns([[time], [time], [time], [time], [time], [time]]);
    expect(nudges.map((n) => n !== undefined)).toEqual([false, false, true, false, false, true]);
    expect(nudges[2]).toMatch(/^\[System\] .*same `current_time` call.*3 times in a row.*Try something else\.$/);
  });

  it('counts arguments in any key order as the same call, and other arguments as another', () => {
    expect(callKey({ name: 't', arguments: { a: 1, b: [2, { c: 3, d: 4 }] } })).toBe(
      callKey({ name: 't', arguments: { b: [2, { d: 4, c: 3 }], a: 1 } }),
    );
    expect(turns([[write('a')], [write('b')], [write('a')]]).every((n) => n === undefined)).toBe(true);
  });

  it('nudges after max_readonly_streak calls that modify nothing; a modifying call starts the streak again', () => {
    const look = (i: number) => ({ name: 'read_file', arguments: { path: `f${i}` } });
    const nine = Array.from({ length: 9 }, (_, i) => [look(i)]);
    expect(turns([...nine, [write('a')], [look(10)]]).every((n) => n === undefined)).toBe(true);
    const ten = turns([...nine, [look(9)]]);
    expect(ten.at(-1)).toMatch(/last 10 tool calls only looked and changed nothing/);
  });

  it('watches nothing when disabled, nor a turn without calls', () => {
    const off = { ...DEFAULT_REPETITION, enabled: false };
    expect(turns([[time], [time], [time], [time]], off).every((n) => n === undefined)).toBe(true);
    expect(turns([[time], [time], [], [time]]).at(-1)).toBeDefined();
  });
});
