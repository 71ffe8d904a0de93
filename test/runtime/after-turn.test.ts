import { describe, expect, it } from 'vitest';
import { afterTurn, type TurnStart } from '../../src/runtime/after-turn.js';

const calm: TurnStart = { at: 'start', stop: null, overBudget: undefined, goesOn: false, handOverAsked: false };
const stuckNote = { region: 'stuck_report', text: 'Stage "main" is stuck.' } as const;

describe('before an inference', () => {
  it('goes on to the inference when nothing stops it', () => {
    expect(afterTurn(calm)).toEqual({ kind: 'next' });
  });

  it('finishes on a stop reason, its note written first, before the spend cap and the clock are asked', () => {
    const stop = { end: 'stuck' as const, note: stuckNote };
    expect(afterTurn({ ...calm, stop, overBudget: 'over', goesOn: true })).toEqual({
      kind: 'finish',
      end: 'stuck',
      note: stuckNote,
    });
  });

  it('fails budget-exhausted past the spend cap, with a note, before it would go on as new', () => {
    expect(afterTurn({ ...calm, overBudget: 'the run spent $2 of $1', goesOn: true })).toEqual({
      kind: 'fail',
      failed: 'the run spent $2 of $1',
      code: 'budget-exhausted',
      note: { region: 'error_report', text: '[budget-exhausted] the run spent $2 of $1' },
    });
  });

  it('goes on as new when its clock says so, carrying the hand-over request as read then', () => {
    expect(afterTurn({ ...calm, goesOn: true })).toEqual({ kind: 'go-on-as-new', handOverAsked: false });
    expect(afterTurn({ ...calm, goesOn: true, handOverAsked: true })).toEqual({
      kind: 'go-on-as-new',
      handOverAsked: true,
    });
  });
});

describe('an inference without a reply', () => {
  it('starts the turn again when the chain moved on or a wait was cut short', () => {
    expect(afterTurn({ at: 'no-reply', stage: 'main', reply: { again: true } })).toEqual({ kind: 'continue' });
  });

  it('fails with the failure and its code, noting it in the error report', () => {
    const note = { region: 'error_report', text: 'Inference failed in stage "main": down' };
    expect(
      afterTurn({ at: 'no-reply', stage: 'main', reply: { failed: 'down', code: 'provider-unavailable' } }),
    ).toEqual({ kind: 'fail', failed: 'down', code: 'provider-unavailable', note });
    // No code: none is made up (the visit fails `stage-failed`).
    expect(afterTurn({ at: 'no-reply', stage: 'main', reply: { failed: 'down' } })).toEqual({
      kind: 'fail',
      failed: 'down',
      note,
    });
  });
});

describe('a reply without tool calls', () => {
  it('completes the stage, or starts another turn', () => {
    expect(afterTurn({ at: 'plain-reply', after: true })).toEqual({ kind: 'finish', end: 'completed' });
    expect(afterTurn({ at: 'plain-reply', after: false })).toEqual({ kind: 'continue' });
  });

  it("ends cancelled on a checkpoint's abort option, in error on an unanswered point", () => {
    expect(afterTurn({ at: 'plain-reply', after: { kind: 'abort', detail: 'aborted at review' } })).toEqual({
      kind: 'finish',
      end: 'cancelled',
      detail: 'aborted at review',
    });
    expect(afterTurn({ at: 'plain-reply', after: { kind: 'unanswered', detail: 'nobody answered' } })).toEqual({
      kind: 'fail',
      failed: 'nobody answered',
      code: 'checkpoint-unanswered',
    });
  });
});

describe('after the calls are answered', () => {
  it('goes on to the repetition watch while a tool worker took them', () => {
    expect(afterTurn({ at: 'calls-answered', toolWorkerGone: undefined })).toEqual({ kind: 'next' });
  });

  it('fails tool-worker-missing, noted, when none did', () => {
    expect(afterTurn({ at: 'calls-answered', toolWorkerGone: 'no worker for 5m' })).toEqual({
      kind: 'fail',
      failed: 'no worker for 5m',
      code: 'tool-worker-missing',
      note: { region: 'error_report', text: '[tool-worker-missing] no worker for 5m' },
    });
  });
});

describe('at the end of a turn', () => {
  it('completes an output stage holding its submission, whatever a fan-out says', () => {
    expect(
      afterTurn({ at: 'turn-done', endsWithOutput: true, fanOut: { end: 'error', error: 'a worker failed' } }),
    ).toEqual({ kind: 'finish', end: 'completed' });
  });

  it('ends a fan-out stage whose workers ran: completed, or failed without a code when one of them failed', () => {
    expect(afterTurn({ at: 'turn-done', endsWithOutput: false, fanOut: { end: 'completed' } })).toEqual({
      kind: 'finish',
      end: 'completed',
    });
    expect(
      afterTurn({ at: 'turn-done', endsWithOutput: false, fanOut: { end: 'error', error: 'a worker failed' } }),
    ).toEqual({ kind: 'fail', failed: 'a worker failed' });
  });

  it('starts the next turn otherwise', () => {
    expect(afterTurn({ at: 'turn-done', endsWithOutput: false, fanOut: undefined })).toEqual({ kind: 'continue' });
  });
});
