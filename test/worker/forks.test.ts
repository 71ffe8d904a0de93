/**
 * Choosing where a fork starts (docs/reference/cluster-runs.md#fork): after turn N of the run,
 * or of one stage across its visits; the inference a model chain made again counts once; an
 * edge choice, a turn past the end and a stage without turns are coded refusals.
 */

import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { parseTurn } from '../../src/cli/commands/fork.js';
import { isLevError } from '../../src/errors.js';
import type { InferInput } from '../../src/runtime/activity-types.js';
import { blobHashes } from '../../src/runtime/node/fork-start.js';
import { forkPoint, forkSeed } from '../../src/worker/forks.js';
import type { RunInference, RunVisit } from '../../src/worker/run-history.js';

function inference(
  turn: number,
  stage: string,
  stageTurn: number,
  visit: number,
  extra: Partial<InferInput> = {},
): RunInference {
  return {
    input: { runId: 'r', blueprintHash: 'h', base: null, ops: [], stage, turn, stageTurn, purpose: 'turn', ...extra },
    visit,
  };
}

// plan (visit 0): turns 0, 1; edge choice 2; build (visit 1): 3, 4; review (visit 2): 5; build again (visit 3): 6, 7.
const inferences: RunInference[] = [
  inference(0, 'plan', 0, 0),
  inference(1, 'plan', 1, 0),
  inference(2, 'plan', 2, 1, { purpose: 'edge-choice' }),
  inference(3, 'build', 0, 1),
  // The first try of turn 4 moved its model chain on; the second is the one that counted.
  inference(4, 'build', 1, 1, { base: 'first-try' }),
  inference(4, 'build', 1, 1, { base: 'second-try' }),
  inference(5, 'review', 0, 2),
  inference(6, 'build', 0, 3),
  inference(7, 'build', 1, 3),
];
const visits: RunVisit[] = [
  { workflowId: 'r.1.plan', answer: { format: 'text', content: 'the plan', stage: 'plan' } },
  { workflowId: 'r.2.build' },
  { workflowId: 'r.3.review', answer: { format: 'text', content: 'the review', stage: 'review' } },
  { workflowId: 'r.4.build' },
];
const record = { inferences, visits };

function codeOf(work: () => unknown): string | undefined {
  try {
    work();
  } catch (err) {
    return isLevError(err) ? `${err.code}: ${err.message}` : String(err);
  }
  return undefined;
}

describe('forkPoint', () => {
  it("starts before the run's inference N+1, the last try of it, with the answer of the visits before", () => {
    expect(forkPoint(record, { turn: 0 }, 'r').at.input.turn).toBe(0);
    expect(forkPoint(record, { turn: 0 }, 'r').answer).toBeUndefined();
    const fourth = forkPoint(record, { turn: 4 }, 'r');
    expect(fourth.at.input).toMatchObject({ turn: 4, stage: 'build', base: 'second-try' });
    expect(fourth.answer?.content).toBe('the plan');
    expect(forkPoint(record, { turn: 7 }, 'r').answer?.content).toBe('the review');
  });

  it("counts a stage's turns across its visits in order", () => {
    expect(forkPoint(record, { turn: 0, stage: 'build' }, 'r').at.input.turn).toBe(3);
    expect(forkPoint(record, { turn: 2, stage: 'build' }, 'r').at.input.turn).toBe(6);
    expect(forkPoint(record, { turn: 3, stage: 'build' }, 'r').at.input.turn).toBe(7);
    expect(forkPoint(record, { turn: 0, stage: 'review' }, 'r').at.input).toMatchObject({ turn: 5, stageTurn: 0 });
  });

  it('refuses an edge choice, a turn past the end and a stage that made no turn, saying what there is', () => {
    expect(codeOf(() => forkPoint(record, { turn: 2 }, 'r'))).toBe(
      'fork-turn-unknown: Turn 3 of run "r" chose the edge out of stage "plan", between two visits; fork after turn 3 to start with the stage it chose.',
    );
    expect(codeOf(() => forkPoint(record, { turn: 8 }, 'r'))).toBe(
      'fork-turn-unknown: Run "r" made 8 turns; --turn takes 0 to 7, the turn after which the fork starts.',
    );
    expect(codeOf(() => forkPoint(record, { turn: 4, stage: 'build' }, 'r'))).toBe(
      'fork-turn-unknown: Stage "build" of run "r" made 4 turns in all its visits; with --stage build, --turn takes 0 to 3.',
    );
    expect(codeOf(() => forkPoint(record, { turn: 0, stage: 'ship' }, 'r'))).toBe(
      'fork-stage-unknown: Run "r" made no turn in stage "ship"; it made turns in "plan", "build", "review".',
    );
    expect(codeOf(() => forkPoint({ inferences: [], visits: [] }, { turn: 0 }, 'r'))).toMatch(
      /^fork-turn-unknown: Run "r" made 0 turns/,
    );
  });

  it("seeds the fork with the inference's region set, stage and counters", () => {
    const point = forkPoint(record, { turn: 1, stage: 'build' }, 'r');
    expect(forkSeed({ runId: 'r', turn: 1, stage: 'build' }, point)).toEqual({
      from: { runId: 'r', turn: 1, stage: 'build' },
      blueprintHash: 'h',
      base: 'second-try',
      ops: [],
      stage: 'build',
      inferences: 4,
      visitTurns: 1,
      answer: { format: 'text', content: 'the plan', stage: 'plan' },
    });
  });
});

describe('lev fork --turn', () => {
  it('takes a whole number from 0', () => {
    expect(parseTurn('0')).toBe(0);
    expect(parseTurn('12')).toBe(12);
    for (const bad of ['-1', '1.5', 'x', '']) expect(() => parseTurn(bad)).toThrow(InvalidArgumentError);
  });
});

describe('the blobs a forked region set refers to', () => {
  it('are every { hash, bytes } in it, however deep', () => {
    const a = 'a'.repeat(64);
    const b = 'b'.repeat(64);
    const state = {
      regions: [{ entries: [{ content: { hash: a, bytes: 3000, preview: '…' } }, { content: 'inline' }] }],
      nested: { toolCalls: [{ arguments: { content: { hash: b, bytes: 9000, preview: '' } } }] },
      notABlob: { hash: 'short', bytes: 1 },
      alsoNot: { hash: a },
    };
    expect([...blobHashes(state)].sort()).toEqual([a, b]);
  });
});
