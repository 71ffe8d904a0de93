import { describe, expect, it } from 'vitest';
import type { StageDef } from '../../src/blueprint/types.js';
import { afterPlainReply, endsWithOutput, interactiveReply, OUTPUT_REMINDERS } from '../../src/runtime/stage-modes.js';

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
});
