/** What the operator commands print and what `lev run --attended` reads from a `[y/N/note]` line. */
import { describe, expect, it } from 'vitest';
import { describeAnswer } from '../../src/cli/operator-action.js';
import { approvalAnswer } from '../../src/cli/reply-prompt.js';

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
