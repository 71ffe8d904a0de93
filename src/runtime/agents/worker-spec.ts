/**
 * The one input shape of a sub-agent worker (docs/reference/sub-agents.md#one-input-shape):
 * `WorkerSpec` says who starts the workers of one agent-tool call, what they
 * run and where; `spawn_agent`, `fan_out` (in any stage or a fan-out stage)
 * and each shard of a large fan-out start their workers from it. What
 * reaches history is built from it here and only here, in the key order runs
 * already recorded: what a fan-out's workers share (`WorkerShare`, stored as a
 * blob whose hash their starts carry), a worker's start, and a shard's input
 * (`shards.ts`). Pure: imported by workflow code.
 */
import type { ChildRun, HandoffPart, Lineage, RunInput, RunOptions } from '../types.js';
import type { WorkerTarget } from './agent-tool-args.js';
import { childLineage } from './lineage.js';

/** What every worker of one call runs: its blueprint, start stage and lineage (a `spawn_agent` adds its own seed and output). */
export type WorkerChild = Omit<ChildRun, 'seedContext' | 'output'>;

export interface WorkerSpec {
  /** The run that starts the workers; each worker's workflow id begins with it. */
  runId: string;
  /** The name of what runs, for the report and the Web UI's summary. */
  label: string;
  child: WorkerChild;
  /** The fan-out stage requires an answer of every worker (`require_output`). */
  answerOwed: boolean;
  workdir: string;
  options: RunOptions;
  /** The hash of the stored `WorkerShare`, once stored: a worker then starts with it and its task alone. */
  shared?: string;
}

/** What the workers of one fan-out share, stored once as a blob (docs/reference/sub-agents.md#history). */
export type WorkerShare = Pick<WorkerSpec, 'child' | 'workdir' | 'options'>;

/** A fan-out worker's start: the hash of its `WorkerShare` and its task. */
export interface WorkerInput {
  shared: string;
  task: string;
}

/** The visit that starts workers, as their spec needs it. */
export interface SpawningVisit {
  runId: string;
  blueprintHash: string;
  /** The stage that starts them: their lineage's newest ceiling. */
  stage: string;
  lineage: Lineage;
  workdir: string;
  options: RunOptions;
}

/**
 * The spec of the workers a visit starts for `target`, one level below it in the tree,
 * with the context it hands them (`[[transforms]]`) when there is any.
 */
export function workerSpec(
  visit: SpawningVisit,
  target: WorkerTarget,
  answerOwed = false,
  handoff: HandoffPart[] = [],
): WorkerSpec {
  return {
    runId: visit.runId,
    label: target.label,
    child: {
      parentRunId: visit.runId,
      ...('agent' in target.blueprint ? { agent: target.blueprint.agent } : {}),
      ...(target.stage ? { stage: target.stage } : {}),
      lineage: childLineage(visit.lineage, visit.blueprintHash, visit.stage),
      ...(handoff.length > 0 ? { handoff } : {}),
    },
    answerOwed,
    workdir: visit.workdir,
    options: visit.options,
  };
}

/** What the spec's workers share, as `storeWorkerShare` records and stores it (its bytes make the hash). */
export function workerShare(spec: WorkerShare): WorkerShare {
  return { child: spec.child, workdir: spec.workdir, options: spec.options };
}

/** A worker's whole run input: what it shares with its siblings, its task, and a `spawn_agent`'s own seed and output. */
export function workerRunInput(
  share: WorkerShare,
  task: string,
  own: Pick<ChildRun, 'seedContext' | 'output'> = {},
): RunInput {
  return { child: { ...share.child, ...own }, task, caller: {}, workdir: share.workdir, options: share.options };
}

/**
 * What a worker's child workflow starts with: the share's hash and its task
 * when the share is stored and the worker has nothing of its own, else its
 * whole input.
 */
export function workerStartInput(
  spec: WorkerSpec,
  task: string,
  own: Pick<ChildRun, 'seedContext' | 'output'> = {},
): RunInput | WorkerInput {
  const alone = own.seedContext === undefined && own.output === undefined;
  return spec.shared && alone ? { shared: spec.shared, task } : workerRunInput(spec, task, own);
}

/** True for a fan-out worker's start (`WorkerInput`), whatever else a run's recorded start may be. */
export function isWorkerStart(start: unknown): start is WorkerInput {
  return typeof start === 'object' && start !== null && typeof (start as { shared?: unknown }).shared === 'string';
}
