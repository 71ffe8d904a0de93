/**
 * The carry a fork's run resumes from (docs/reference/cluster-runs.md#fork): the visit live at
 * the fork point goes on as the fork's first visit with the original's counters and the rebuilt
 * region set; the fork's own book starts empty.
 */
import { describe, expect, it } from 'vitest';
import { createRunState } from '../../src/context/index.js';
import { type ForkStart, forkCarry } from '../../src/runtime/index.js';
import { DEFAULT_RUN_OPTIONS, type ForkSeed, type RunInput } from '../../src/runtime/types.js';
import type { Blueprint } from '../../src/shapes/frozen-blueprint.js';

const bp = {
  agent: { name: 'demo', entryStage: 'plan', model: 'scripted:x' },
  regions: [],
  stages: [{ name: 'plan' }, { name: 'build' }],
} as unknown as Blueprint;

const seed: ForkSeed = {
  from: { runId: 'demo-1', turn: 4, stage: 'build' },
  blueprintHash: 'a'.repeat(64),
  base: 'b'.repeat(64),
  ops: [{ call: { kind: 'maintain' }, now: 1, answers: [] }],
  stage: 'build',
  inferences: 6,
  visitTurns: 4,
  answer: { format: 'json', content: '{"ok":true}', stage: 'plan' },
};

const start: ForkStart = { blueprint: bp, hash: 'c'.repeat(64), state: createRunState(bp), snapshot: 'd'.repeat(64) };

function input(extra: Partial<RunInput> = {}): RunInput & { fork: ForkSeed } {
  return { task: 't', caller: {}, workdir: '/w', options: DEFAULT_RUN_OPTIONS, ...extra, fork: seed };
}

describe('forkCarry', () => {
  it("hands the fork its first visit with the original's counters and the rebuilt region set as a snapshot", () => {
    const carry = forkCarry('demo-fork-1', input(), start, 5000);
    expect(carry.visit).toMatchObject({
      runId: 'demo-fork-1',
      blueprintHash: start.hash,
      stage: 'build',
      carried: { state: start.state, snapshot: start.snapshot, ops: [] },
      workdir: '/w',
      inferences: 6,
      visitTurns: 4,
      usage: { calls: 0 },
    });
    expect(carry.visit?.facts).toMatchObject({
      lastProgressAt: 5000,
      idleInferences: 0,
      modifyingCallSucceeded: false,
    });
    // The visit's workflow is `<fork>.1.build`: one visit started, this one.
    expect(carry).toMatchObject({ visits: 1, inferences: 6, visitTurns: 4, continued: 0, stagesVisited: ['build'] });
    expect(carry.usage.calls).toBe(0);
    expect(carry.answer).toEqual(seed.answer);
    expect(carry.operators).toEqual({ inbox: [], held: [], paused: false });
    expect(carry.visit?.lineage).toBeUndefined();
    expect(carry.visit?.spentBefore).toBeUndefined();
  });

  it("keeps a forked sub-agent under its ancestors' permissions, and a capped run counts its spend from zero", () => {
    const lineage = { maxDepth: 3, ceiling: [{ blueprintHash: 'e'.repeat(64), stage: 'split' }] };
    const ceilings = [{ permissions: { tools: {} }, safeCommands: [] }];
    const capped = { ...bp, run: { maxCostUsd: 1 } } as Blueprint;
    const carry = forkCarry(
      'f',
      input({ child: { parentRunId: 'p', stage: 'work', lineage } }),
      { ...start, blueprint: capped, ceilings },
      0,
    );
    expect(carry.visit?.lineage).toEqual(lineage);
    expect(carry.ceilings).toEqual(ceilings);
    expect(carry.visit?.ceilings).toEqual(ceilings);
    expect(carry.visit?.spentBefore?.usage.calls).toBe(0);
  });
});
