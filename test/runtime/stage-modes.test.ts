import { describe, expect, it } from 'vitest';
import {
  afterPlainReply,
  countSent,
  endsWithOutput,
  fanOutEnd,
  interactiveReply,
  missedFanOut,
  OUTPUT_REMINDERS,
} from '../../src/runtime/stage-modes.js';
import type { StageDef } from '../../src/shapes/frozen-blueprint.js';

const stage = (extra: Partial<StageDef> = {}): StageDef => ({
  name: 'report',
  model: 'scripted:default',
  allowComplete: false,
  transitions: [],
  ...extra,
});
const answer = { format: 'json', content: '{}', stage: 'report' };

describe('what a stage does after an answer without tool calls', () => {
  it('an autonomous stage ends', () => {
    expect(afterPlainReply(stage(), {})).toEqual({ kind: 'end' });
  });

  it('a stage owing an answer is reminded, then ends with output-forced', () => {
    const owes = stage({ mode: 'output', requireOutput: true });
    expect(afterPlainReply(owes, {})).toMatchObject({ kind: 'remind', text: /submit_output/ });
    expect(afterPlainReply(owes, { outputReminders: OUTPUT_REMINDERS })).toMatchObject({ kind: 'forced' });
    expect(afterPlainReply(owes, { output: answer })).toEqual({ kind: 'end' });
  });

  it('an interactive stage waits; a blank reply or /done ends it', () => {
    expect(afterPlainReply(stage({ mode: 'interactive' }), {})).toEqual({ kind: 'wait' });
    expect(interactiveReply('  ')).toEqual({ kind: 'end' });
    expect(interactiveReply('/done')).toEqual({ kind: 'end' });
    expect(interactiveReply(' make it sev1 ')).toEqual({ kind: 'continue', text: 'make it sev1' });
  });

  it('only an output stage ends the run on a valid submission', () => {
    expect(endsWithOutput(stage({ mode: 'output', requireOutput: true }), { output: answer })).toBe(true);
    expect(endsWithOutput(stage({ requireOutput: true }), { output: answer })).toBe(false);
    expect(endsWithOutput(stage({ mode: 'output' }), {})).toBe(false);
  });

  it('a fan-out stage is asked for its fan_out call max_attempts times, then gives up with fan-out-empty', () => {
    const fan = stage({
      mode: 'fan_out',
      fanOut: { worker: { stage: 'one' }, maxWorkers: 30, onWorkerFailure: 'continue', maxAttempts: 2 },
    });
    expect(afterPlainReply(fan, {})).toMatchObject({ kind: 'ask-fan-out', text: /^\[fan-out-required\] .*fan_out/ });
    expect(missedFanOut(fan, {})).toEqual({ facts: { fanOutAttempts: 1 } });
    expect(afterPlainReply(fan, { fanOutAttempts: 1 })).toMatchObject({ kind: 'ask-fan-out' });
    expect(afterPlainReply(fan, { fanOutAttempts: 2 })).toMatchObject({
      kind: 'fan-out-empty',
      detail: /asked 2 times/,
    });
    expect(missedFanOut(fan, { fanOutAttempts: 2 })).toMatchObject({
      facts: { fanOutDone: true },
      gaveUp: /no workers/,
    });
    const never = stage({
      fanOut: { worker: { stage: 'one' }, maxWorkers: 0, onWorkerFailure: 'fail', maxAttempts: 0 },
    });
    expect(afterPlainReply(never, {})).toMatchObject({ kind: 'fan-out-empty' });
    expect(afterPlainReply(fan, { fanOutDone: true })).toEqual({ kind: 'end' });
  });

  it('a fan-out stage ends once its fan-out ran: completed, or with an error when a fail-fast worker failed', () => {
    const fan = stage({
      mode: 'fan_out',
      fanOut: { worker: { stage: 'one' }, maxWorkers: 30, onWorkerFailure: 'fail', maxAttempts: 3 },
    });
    expect(fanOutEnd(fan, {})).toBeUndefined();
    expect(fanOutEnd(fan, { fanOutDone: true })).toEqual({ end: 'completed' });
    expect(fanOutEnd(fan, { fanOutDone: true, fanOutFailed: 'w2 failed' })).toEqual({
      end: 'error',
      error: 'w2 failed',
    });
    expect(fanOutEnd(stage(), { fanOutDone: true })).toBeUndefined();
  });
});

describe('the empty-response nudge', () => {
  const nudged = stage({ nudge: { max: 2, text: 'Use your tools on {stage}.' } });

  it('nudges a stage that has called no tool yet, max times, then lets the reply end it', () => {
    const step = afterPlainReply(nudged, {}, true);
    expect(step).toEqual({ kind: 'nudge', text: '[System] Use your tools on {stage}.' });
    let facts = countSent({}, step);
    expect(facts).toEqual({ nudges: 1 });
    facts = countSent(facts, afterPlainReply(nudged, facts, true));
    expect(afterPlainReply(nudged, facts, true)).toEqual({ kind: 'end' });
  });

  it('is over once the stage called a tool, and off in a visit that does not run it', () => {
    expect(afterPlainReply(nudged, { calledTools: true }, true)).toEqual({ kind: 'end' });
    expect(afterPlainReply(nudged, {}, false)).toEqual({ kind: 'end' });
    expect(afterPlainReply(stage(), {}, true)).toEqual({ kind: 'end' });
  });

  it('comes before the output reminders, and never to an interactive stage', () => {
    const owes = stage({ mode: 'output', requireOutput: true, nudge: { max: 1, text: 'Tools.' } });
    expect(afterPlainReply(owes, {}, true)).toMatchObject({ kind: 'nudge' });
    expect(afterPlainReply(owes, { nudges: 1 }, true)).toMatchObject({ kind: 'remind' });
    expect(afterPlainReply({ ...nudged, mode: 'interactive' }, {}, true)).toEqual({ kind: 'wait' });
  });
});
