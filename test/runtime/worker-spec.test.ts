/**
 * The one input shape of a sub-agent worker (docs/reference/sub-agents.md#one-input-shape):
 * what `spawn_agent`, `fan_out` and a shard of a large fan-out build from a
 * `WorkerSpec` is byte for byte what earlier versions recorded (the committed
 * fan-out histories are the reference), and every start a run may have been
 * given is still read.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_CHILD_DEPTH } from '../../src/runtime/agents/lineage.js';
import { type ShardInput, shardInput } from '../../src/runtime/agents/shards.js';
import {
  isWorkerStart,
  type SpawningVisit,
  type WorkerSpec,
  workerRunInput,
  workerShare,
  workerSpec,
  workerStartInput,
} from '../../src/runtime/agents/worker-spec.js';
import type { RunOptions } from '../../src/runtime/types.js';

const HISTORIES = join(import.meta.dirname, '..', 'histories');

/** The payloads a recorded history's events carry, as the JSON text they were recorded as. */
function recordedFanOut(label: string): { share: string; starts: string[] } {
  const dir = join(HISTORIES, label, 'reviewer');
  const file = readdirSync(dir).find((f) => /^reviewer-v[\d.]+\.1\.split--/.test(f));
  if (!file) throw new Error(`no split visit in ${dir}`);
  const history = temporal.api.history.v1.History.decode(gunzipSync(readFileSync(join(dir, file))));
  const text = (p: temporal.api.common.v1.IPayloads | null | undefined) =>
    Buffer.from(p?.payloads?.[0]?.data ?? new Uint8Array()).toString('utf8');
  const events = history.events ?? [];
  const share = events.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'storeWorkerShare');
  return {
    share: text(share?.activityTaskScheduledEventAttributes?.input),
    starts: events.flatMap((e) => {
      const start = e.startChildWorkflowExecutionInitiatedEventAttributes;
      return start ? [text(start.input)] : [];
    }),
  };
}

const OPTIONS: RunOptions = {
  noSeedCommands: false,
  unattended: true,
  turnsPerRun: 100,
  opsPerSnapshot: 24,
  inferenceTimeoutSecs: 600,
  heartbeatTimeoutSecs: 3,
};

/** The `split` visit of the committed reviewer runs, as its workers' spec sees it. */
function reviewerVisit(runId: string, workdir: string): SpawningVisit {
  const blueprintHash = 'd9f69337bffb29e482866f02efd4186815d2b52a2f90e75023bf0dcfd134f5ef';
  return {
    runId,
    blueprintHash,
    stage: 'split',
    // The first run's: depth 0 under `max_child_depth = 3`, no ancestors.
    lineage: { maxDepth: DEFAULT_MAX_CHILD_DEPTH, ceiling: [] },
    workdir,
    options: OPTIONS,
  };
}

describe('a fan-out built from the one worker spec', () => {
  for (const label of ['v0.2.0', 'v0.3.0']) {
    it(`records what ${label} recorded: the stored share, its hash and every worker's start`, () => {
      const recorded = recordedFanOut(label);
      const { runId, share } = JSON.parse(recorded.share) as { runId: string; share: { workdir: string } };
      const target = {
        blueprint: { hash: reviewerVisit(runId, '').blueprintHash },
        stage: 'review_file',
        label: 'review_file',
      };
      const spec = workerSpec(reviewerVisit(runId, share.workdir), target, false);
      expect(JSON.stringify({ runId, share: workerShare(spec) })).toBe(recorded.share);
      // The blob store names a text by its SHA-256: the workers' starts carry the same hash.
      const shared = createHash('sha256')
        .update(JSON.stringify(workerShare(spec)))
        .digest('hex');
      expect(recorded.starts.length).toBeGreaterThanOrEqual(2);
      for (const start of recorded.starts) {
        const { task } = JSON.parse(start) as { task: string };
        expect(JSON.stringify(workerStartInput({ ...spec, shared }, task))).toBe(start);
      }
    });
  }
});

const HELPER_WORKER: WorkerSpec = workerSpec(
  {
    runId: 'run-1',
    blueprintHash: 'bp-1',
    stage: 'plan',
    lineage: { maxDepth: 3, ceiling: [] },
    workdir: '/w',
    options: OPTIONS,
  },
  { blueprint: { agent: 'helper' }, label: 'helper' },
);

describe('a spawned agent', () => {
  it('starts with its whole input, its own seed and output after what it shares, in the order runs recorded', () => {
    const start = workerStartInput({ ...HELPER_WORKER, shared: 'h' }, 'do it', {
      seedContext: 'notes',
      output: { format: 'json' },
    });
    expect(JSON.stringify(start)).toBe(
      JSON.stringify({
        child: {
          parentRunId: 'run-1',
          agent: 'helper',
          lineage: { maxDepth: 3, ceiling: [{ blueprintHash: 'bp-1', stage: 'plan' }] },
          seedContext: 'notes',
          output: { format: 'json' },
        },
        task: 'do it',
        caller: {},
        workdir: '/w',
        options: OPTIONS,
      }),
    );
  });

  it('is one level below the visit that spawned it, under its ceiling', () => {
    expect(HELPER_WORKER.child).toEqual({
      parentRunId: 'run-1',
      agent: 'helper',
      lineage: { maxDepth: 3, ceiling: [{ blueprintHash: 'bp-1', stage: 'plan' }] },
    });
    expect(HELPER_WORKER.answerOwed).toBe(false);
  });
});

describe('a worker that starts with the hash of what it shares', () => {
  it('reads back the whole input it would have been started with', () => {
    const whole = workerStartInput(HELPER_WORKER, 'task 7');
    expect(isWorkerStart(whole)).toBe(false);
    const short = workerStartInput({ ...HELPER_WORKER, shared: 'abc' }, 'task 7');
    expect(short).toEqual({ shared: 'abc', task: 'task 7' });
    expect(isWorkerStart(short)).toBe(true);
    expect(workerRunInput(workerShare(HELPER_WORKER), 'task 7')).toEqual(whole);
  });

  it('is told apart from every other start a run may have recorded', () => {
    expect(isWorkerStart({ shared: 'abc', task: 't' })).toBe(true);
    expect(isWorkerStart({ blueprint: 'reviewer@2', workdir: '/w' })).toBe(false);
    expect(isWorkerStart({ child: HELPER_WORKER.child, task: 't', caller: {}, workdir: '/w', options: OPTIONS })).toBe(
      false,
    );
    expect(isWorkerStart({ blueprint: { agent: {} }, caller: {}, workdir: '/w', options: OPTIONS })).toBe(false);
    expect(isWorkerStart(null)).toBe(false);
  });
});

describe("a shard's input", () => {
  const job = {
    blueprintHash: 'bp-1',
    stage: 'plan',
    items: [{ id: 'a', task: 'A' }],
    limit: 2,
    failFast: true,
    share: 300,
  };

  it('is the spec with its job, recorded in the key order shards always had', () => {
    const keys = [
      'runId',
      'blueprintHash',
      'stage',
      'items',
      'limit',
      'failFast',
      'share',
      'label',
      'child',
      'answerOwed',
      'workdir',
      'options',
    ];
    expect(Object.keys(shardInput(HELPER_WORKER, job))).toEqual(keys);
    expect(Object.keys(shardInput({ ...HELPER_WORKER, shared: 'h' }, job))).toEqual([...keys, 'shared']);
  });

  it('recorded before workers shared a blob still starts them, each with its whole input', () => {
    // A shard input as the first sharded fan-outs recorded it: no `shared`.
    const old: ShardInput = JSON.parse(JSON.stringify(shardInput(HELPER_WORKER, job)));
    expect('shared' in old).toBe(false);
    expect(workerStartInput(old, 'A')).toEqual(workerRunInput(HELPER_WORKER, 'A'));
    expect(workerStartInput(shardInput({ ...HELPER_WORKER, shared: 'h' }, job), 'A')).toEqual({
      shared: 'h',
      task: 'A',
    });
  });
});
