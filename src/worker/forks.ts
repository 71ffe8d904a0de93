/**
 * Forking a run (docs/reference/cluster-runs.md#fork): a new run that starts
 * from the region set the original had after turn N. The original's
 * histories say what its inference N+1 read (a snapshot and the operations
 * since) and where it was; the fork is started with that as its seed, and
 * its `forkStart` activity rebuilds the region set on a worker. Reading the
 * original adds nothing to its histories.
 */
import type { Client } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { DEFAULT_ASK_TIMEOUT_SECS } from '../blueprint/duration.js';
import { withModel } from '../blueprint/model-switch.js';
import { LevError } from '../errors.js';
import { isWorkerStart } from '../runtime/agents/worker-spec.js';
import { staticDetails, staticSummary } from '../runtime/details.js';
import { isRefInput } from '../runtime/ref-input.js';
import { BLUEPRINT_KEY, FORK_KEY, STAGE_KEY, STATUS_KEY } from '../runtime/search-attributes.js';
import type { ForkOrigin, ForkSeed, RunInput, SubmittedOutput } from '../runtime/types.js';
import type { Blueprint } from '../shapes/frozen-blueprint.js';
import { cutUnits } from '../truncate.js';
import { newRunId } from './run-client.js';
import { type RunInference, type RunRecord, readRun } from './run-history.js';
import { describeRun } from './runs.js';

/** What `lev fork` was asked: after which turn, of the run or of one stage, and with which model. */
export interface ForkWanted {
  turn: number;
  stage?: string;
  model?: string;
}

/** The fork point: the inference the fork starts before, and the answer the run had submitted by then. */
export interface ForkPoint {
  at: RunInference;
  answer?: SubmittedOutput;
}

/**
 * The inference after turn N (docs/reference/cluster-runs.md#fork): the run's inference N+1
 * counting every inference (turns and edge choices, as `lev ps` counts them), or with a stage,
 * the stage's turn N+1 counting its turns across its visits in order. It must be a stage's turn:
 * an edge choice is made between visits, where no visit goes on.
 */
export function forkPoint(
  record: Pick<RunRecord, 'inferences' | 'visits'>,
  want: ForkWanted,
  runId: string,
): ForkPoint {
  // A model chain that moved on made the same inference again; the last try is the one that counted.
  const byTurn = new Map<number, RunInference>();
  for (const i of record.inferences) byTurn.set(i.input.turn, i);
  const all = [...byTurn.values()].sort((a, b) => a.input.turn - b.input.turn);
  let at: RunInference | undefined;
  if (want.stage === undefined) {
    at = byTurn.get(want.turn);
    if (!at)
      throw new LevError(
        'fork-turn-unknown',
        `Run "${runId}" made ${all.length} turn${all.length === 1 ? '' : 's'}; --turn takes 0 to ${Math.max(0, all.length - 1)}, the turn after which the fork starts.`,
      );
    if (at.input.purpose !== 'turn')
      throw new LevError(
        'fork-turn-unknown',
        `Turn ${want.turn + 1} of run "${runId}" chose the edge out of stage "${at.input.stage}", between two visits; fork after turn ${want.turn + 1} to start with the stage it chose.`,
      );
  } else {
    const stage = want.stage;
    const turns = all.filter((i) => i.input.purpose === 'turn' && i.input.stage === stage);
    if (turns.length === 0) {
      const stages = [...new Set(all.filter((i) => i.input.purpose === 'turn').map((i) => i.input.stage))];
      throw new LevError(
        'fork-stage-unknown',
        `Run "${runId}" made no turn in stage "${stage}"; ${stages.length > 0 ? `it made turns in ${stages.map((s) => `"${s}"`).join(', ')}` : 'it made no turn at all'}.`,
      );
    }
    at = turns[want.turn];
    if (!at)
      throw new LevError(
        'fork-turn-unknown',
        `Stage "${stage}" of run "${runId}" made ${turns.length} turn${turns.length === 1 ? '' : 's'} in all its visits; with --stage ${stage}, --turn takes 0 to ${turns.length - 1}.`,
      );
  }
  const answer = record.visits
    .slice(0, at.visit)
    .map((v) => v.answer)
    .filter((a) => a !== undefined)
    .at(-1);
  return { at, ...(answer ? { answer } : {}) };
}

/** The original's whole input and blueprint, however it was started. */
function originalStart(record: RunRecord, runId: string): { input: RunInput; blueprint: Blueprint } {
  const start = record.start;
  if (!isWorkerStart(start) && !isRefInput(start) && start.blueprint) {
    const { blueprint, resume: _resume, fork: _fork, ...input } = start;
    return { input, blueprint };
  }
  if (record.resolved) return record.resolved;
  throw new LevError(
    'fork-turn-unknown',
    `Run "${runId}" has not resolved its blueprint yet, so it made no turn to fork after.`,
  );
}

/** The seed of the fork's input: where it was forked and what its first inference reads. */
export function forkSeed(from: ForkOrigin, point: ForkPoint): ForkSeed {
  const { blueprintHash, base, ops, stage, turn, stageTurn } = point.at.input;
  return {
    from,
    blueprintHash,
    base,
    ops,
    stage,
    inferences: turn,
    visitTurns: stageTurn,
    ...(point.answer ? { answer: point.answer } : {}),
  };
}

/** What `lev fork` prints with `--json`. */
export interface Forked {
  runId: string;
  forkOf: string;
  turn: number;
  stage: string | null;
  model: string | null;
  /** The stage the fork goes on in. */
  startsIn: string;
  taskQueue: string;
  toolTaskQueue: string | null;
  workdir: string;
}

/** Starts a fork of `runId` on the original's task queue; the original is read, never changed. */
export async function forkRun(client: Client, runId: string, want: ForkWanted, address: string): Promise<Forked> {
  const info = await describeRun(client, runId, address);
  if (info.type !== 'agentRunWorkflow')
    throw new LevError(
      'run-not-found',
      `"${runId}" is a ${info.type} of a run, not a run; fork the run itself (\`lev ps\` lists the runs).`,
    );
  const record = await readRun(client, runId);
  const point = forkPoint(record, want, runId);
  const original = originalStart(record, runId);
  const from: ForkOrigin = {
    runId,
    turn: want.turn,
    ...(want.stage !== undefined ? { stage: want.stage } : {}),
    ...(want.model !== undefined ? { model: want.model } : {}),
  };
  const seed = forkSeed(from, point);
  const input: RunInput = { ...original.input, fork: seed };
  const bp = want.model ? withModel(original.blueprint, want.model) : original.blueprint;
  const name = bp.agent.name;
  const handle = await client.workflow.start('agentRunWorkflow', {
    taskQueue: info.taskQueue,
    workflowId: newRunId(`${name}-fork`),
    args: [input],
    typedSearchAttributes: new TypedSearchAttributes([
      { key: BLUEPRINT_KEY, value: name },
      { key: STATUS_KEY, value: 'running' },
      { key: STAGE_KEY, value: seed.stage },
      { key: FORK_KEY, value: runId },
    ]),
    memo: {
      blueprint: name,
      task: cutUnits(input.task ?? '', 200),
      attended: !input.options.unattended,
      forkedFrom: from,
    },
    staticSummary: staticSummary(name, input.task),
    staticDetails: staticDetails({
      blueprint: bp,
      ...(input.task !== undefined ? { task: input.task } : {}),
      workdir: input.workdir,
      unattended: input.options.unattended,
      askTimeoutSecs: bp.run?.askTimeoutSecs ?? DEFAULT_ASK_TIMEOUT_SECS,
      forkedFrom: from,
    }),
  });
  return {
    runId: handle.workflowId,
    forkOf: runId,
    turn: want.turn,
    stage: want.stage ?? null,
    model: want.model ?? null,
    startsIn: seed.stage,
    taskQueue: info.taskQueue,
    toolTaskQueue: input.options.toolTaskQueue ?? null,
    workdir: input.workdir,
  };
}
