/**
 * What the operator commands print and send, and what `lev run --attended` reads from a
 * `[y/N/note]` line, a choice and a yes/no question (docs/reference/interaction.md#from-the-shell).
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerArgument } from '../../src/cli/answer-action.js';
import { describeAnswer } from '../../src/cli/operator-action.js';
import { approvalAnswer, choiceAnswer, confirmAnswer } from '../../src/cli/reply-prompt.js';
import { isLevError } from '../../src/errors.js';
import { personWaits } from '../../src/worker/runs.js';

describe('approvalAnswer', () => {
  it('approves on y, denies on Enter or n, and takes any other text as the note of a denial', () => {
    expect(approvalAnswer('y')).toEqual({ update: 'approve' });
    expect(approvalAnswer(' YES ')).toEqual({ update: 'approve' });
    expect(approvalAnswer('y but only this once')).toEqual({ update: 'approve', note: 'but only this once' });
    expect(approvalAnswer('')).toEqual({ update: 'deny' });
    expect(approvalAnswer('n')).toEqual({ update: 'deny' });
    expect(approvalAnswer('No')).toEqual({ update: 'deny' });
    expect(approvalAnswer('use git clean instead')).toEqual({ update: 'deny', note: 'use git clean instead' });
    expect(approvalAnswer('yesterday was fine')).toEqual({ update: 'deny', note: 'yesterday was fine' });
  });
});

describe('describeAnswer', () => {
  it('says where a message goes and what a decision was', () => {
    expect(describeAnswer('r1', 'message', { stage: 'build', turn: 9, stageTurn: 3, held: false })).toBe(
      'message queued for stage build: the model reads it at turn 3 (run inference 9)',
    );
    expect(describeAnswer('r1', 'message', { stage: null, turn: null, stageTurn: null, held: true })).toBe(
      'message held for run r1: the next stage that accepts messages reads it',
    );
    expect(describeAnswer('r1', 'deny', { call: 'c1', tool: 'shell', decision: 'denied', note: 'no' })).toBe(
      'denied call c1 (shell) with the note "no"',
    );
    expect(describeAnswer('r1', 'pause', { paused: true, stage: null })).toContain('the next stage stops');
    // A command printed for a person reaches the same server.
    expect(describeAnswer('r1', 'pause', { paused: true, stage: 'b' }, '10.0.0.5:7233')).toContain(
      'lev resume r1 --address 10.0.0.5:7233 goes on',
    );
    expect(describeAnswer('r1', 'pause', { paused: true, stage: 'b' })).toContain('lev resume r1 goes on');
  });
});

describe('lev answer', () => {
  it('sends the text, or the call and one of --choice, --yes, --no and --file', () => {
    expect(answerArgument('main', undefined, {})).toEqual({ text: 'main' });
    expect(answerArgument('q1', 'main', {})).toEqual({ call: 'q1', text: 'main' });
    expect(answerArgument('q1', undefined, { choice: '2' })).toEqual({ call: 'q1', choice: 2 });
    expect(answerArgument(undefined, undefined, { choice: 'SQLite' })).toEqual({ choice: 'SQLite' });
    expect(answerArgument('q1', undefined, { yes: true })).toEqual({ call: 'q1', yes: true });
    expect(answerArgument(undefined, undefined, { no: true })).toEqual({ yes: false });
    const file = join(tmpdir(), `lev-answer-${process.pid}.md`);
    writeFileSync(file, '## Plan\n1. Edited.');
    expect(answerArgument('q1', undefined, { file })).toEqual({ call: 'q1', text: '## Plan\n1. Edited.' });
  });

  it('refuses two answers at once, and a file it cannot read', () => {
    const refused = (f: () => unknown) => {
      try {
        f();
      } catch (err) {
        return isLevError(err) ? err.code : 'not coded';
      }
      return 'not refused';
    };
    expect(refused(() => answerArgument('q1', 'main', { yes: true }))).toBe('answer-ambiguous');
    expect(refused(() => answerArgument(undefined, undefined, { yes: true, no: true }))).toBe('answer-ambiguous');
    expect(refused(() => answerArgument(undefined, undefined, { file: '/no/such/file.md' }))).toBe(
      'input-file-unreadable',
    );
  });

  it('prints the option an answer picked', () => {
    expect(describeAnswer('r1', 'answer', { call: 'c1', question: 'Which?', answer: 'SQLite' })).toBe(
      'answered call c1: SQLite',
    );
    expect(describeAnswer('r1', 'answer', { call: 'c1', question: 'Which?' })).toBe('answered call c1');
  });

  it('is what lev show names for a checkpoint, with its options', () => {
    const waits = personWaits(
      'r1',
      {
        asks: [
          {
            kind: 'answer',
            call: 'point-p-0',
            tool: 'interaction_point',
            subject: 'Go on?',
            since: 0,
            deadline: 1,
            form: 'confirm',
            point: 'p',
          },
        ],
        paused: false,
        stage: 'plan',
      },
      '127.0.0.1:7233',
    );
    expect(waits).toEqual([
      {
        kind: 'checkpoint',
        detail: 'checkpoint p, an answer to "Go on?" (call point-p-0): lev answer r1 point-p-0 --yes (or --no)',
      },
    ]);
  });
});

describe('at the terminal', () => {
  it('reads a choice as the number listed or the text of an option, else asks again', () => {
    const options = ['Postgres', 'SQLite'];
    expect(choiceAnswer(options, '2')).toBe(2);
    expect(choiceAnswer(options, ' sqlite ')).toBe(2);
    expect(choiceAnswer(options, '3')).toBeUndefined();
    expect(choiceAnswer(options, '0')).toBeUndefined();
    expect(choiceAnswer(options, '')).toBeUndefined();
  });

  it('reads y/yes and n/no to a yes/no question, else asks again', () => {
    expect(confirmAnswer('Y')).toBe(true);
    expect(confirmAnswer('no')).toBe(false);
    expect(confirmAnswer('')).toBeUndefined();
    expect(confirmAnswer('sure')).toBeUndefined();
  });
});
