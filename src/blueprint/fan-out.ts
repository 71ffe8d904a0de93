/**
 * The keys of a `mode = "fan_out"` stage (docs/reference/sub-agents.md#the-fan-out-stage).
 * They sit on the stage next to `mode`, or in the original's table form
 * `mode = { fan_out = { ... } }`. Checks that need every stage (the worker
 * stage exists and allows it, the merge stage exists) run in `checkFanOuts`.
 */

import type { Blueprint, FanOutDef, WorkerRef } from '../shapes/frozen-blueprint.js';
import { isTable, TableReader } from './fields.js';
import type { Findings } from './findings.js';

export const FAN_OUT_KEYS = [
  'worker_agent',
  'worker_stage',
  'worker_query',
  'split_prompt',
  'max_workers',
  'max_items',
  'results_region',
  'on_worker_failure',
  'merge_stage',
  'max_attempts',
] as const;

export const DEFAULT_MAX_WORKERS = 30;
export const DEFAULT_FAN_OUT_ATTEMPTS = 3;

/** What the stage parser needs back: the definition, plus the split prompt it appends to the stage's prompt. */
export interface ParsedFanOut {
  def: FanOutDef;
  splitPrompt?: string;
}

/**
 * The fan-out keys of stage `stage`: from the stage table `s`, with those of
 * the `{ fan_out = {...} }` mode table (when written) underneath. Undefined
 * when no worker can be named; the finding says why. `findWorker` is the
 * installed agent a `worker_query` chooses (src/blueprint/worker-query.ts).
 */
export function parseFanOut(
  s: TableReader,
  stage: string,
  findWorker: (query: string) => string | undefined,
): ParsedFanOut | undefined {
  const modeTable = isTable(s.raw('mode')) ? (s.raw('mode') as Record<string, unknown>) : undefined;
  const inner = modeTable?.fan_out;
  const sources: TableReader[] = [s];
  if (isTable(inner)) {
    const t = new TableReader(inner, [...s.at('mode'), 'fan_out'], s.findings);
    t.unknownKeys(FAN_OUT_KEYS, 'unknown-key', `The fan_out table of stage "${stage}"`);
    sources.push(t);
  }
  // A key on the stage wins over the same key in the mode table.
  const from = (key: string) => sources.find((t) => t.has(key));

  const agent = from('worker_agent')?.string('worker_agent')?.trim();
  const workerStage = from('worker_stage')?.string('worker_stage')?.trim();
  const queryTable = from('worker_query');
  const query = queryTable?.string('worker_query')?.trim();
  const named = [
    agent && `worker_agent "${agent}"`,
    workerStage && `worker_stage "${workerStage}"`,
    query && `worker_query "${query}"`,
  ].filter((x): x is string => Boolean(x));
  let worker: WorkerRef | undefined;
  if (named.length > 1) {
    // The original refuses this too: exactly one of the three names the worker.
    s.findings.add(
      'bad-fan-out-worker',
      `Stage "${stage}" names ${named.join(' and ')}; keep the one that should do each item's work.`,
      s.at('mode'),
    );
  } else if (agent) worker = { agent };
  else if (workerStage) worker = { stage: workerStage };
  else if (query && queryTable) {
    const dir = findWorker(query);
    if (dir) worker = { agent: dir };
    else
      queryTable.findings.add(
        'worker-query-unmatched',
        `worker_query "${query}" of stage "${stage}" matches no installed agent: none has it in its directory name or [agent] description. Install the worker with lev add, or name it with worker_agent = "<blueprint>".`,
        queryTable.at('worker_query'),
      );
  } else if (!queryTable) {
    s.findings.add(
      'bad-fan-out-worker',
      `Fan-out stage "${stage}" names no worker; add worker_stage = "<a stage with allow_as_worker = true>", worker_agent = "<another blueprint>" or worker_query = "<words of an installed agent's description>".`,
      s.at('mode'),
    );
  }

  const maxWorkers = from('max_workers')?.integer('max_workers', 0);
  const maxItems = from('max_items')?.integer('max_items', 0);
  const maxAttempts = from('max_attempts')?.integer('max_attempts', 0);
  const onFailure = from('on_worker_failure')?.enumeration(
    'on_worker_failure',
    ['continue', 'fail'] as const,
    'bad-value',
    {
      fail_all: 'fail',
    },
  );
  const resultsRegion = from('results_region')?.string('results_region')?.trim();
  const mergeStage = from('merge_stage')?.string('merge_stage')?.trim();
  const splitPrompt = from('split_prompt')?.string('split_prompt')?.trim();
  if (!worker) return undefined;
  const def: FanOutDef = {
    worker,
    maxWorkers: maxWorkers ?? DEFAULT_MAX_WORKERS,
    onWorkerFailure: onFailure ?? 'continue',
    maxAttempts: maxAttempts ?? DEFAULT_FAN_OUT_ATTEMPTS,
  };
  if (maxItems) def.maxItems = maxItems;
  if (resultsRegion) def.resultsRegion = resultsRegion;
  if (mergeStage) def.mergeStage = mergeStage;
  return { def, ...(splitPrompt ? { splitPrompt } : {}) };
}

/** Fan-out keys written on a stage that does not fan out: they do nothing, so say so. */
export function reportUnusedFanOutKeys(s: TableReader, stage: string): void {
  for (const key of FAN_OUT_KEYS) {
    if (!s.has(key)) continue;
    s.findings.add(
      'fan-out-key-unused',
      `Stage "${stage}" sets ${key}, which only a fan-out stage reads; add mode = "fan_out" or remove the key.`,
      s.at(key),
    );
  }
}

/**
 * The checks that need every stage: a worker stage exists and opted in with
 * `allow_as_worker`, a merge stage exists. A fan-out stage leaves by its
 * merge stage: an edge to it is added first when the stage declares none.
 */
export function checkFanOuts(bp: Blueprint, findings: Findings): void {
  const names = bp.stages.map((s) => s.name);
  const choices = names.map((n) => `"${n}"`).join(', ');
  for (const stage of bp.stages) {
    const fan = stage.fanOut;
    if (!fan) continue;
    const at = ['stages', stage.name];
    if ('stage' in fan.worker) {
      const target = bp.stages.find((s) => s.name === (fan.worker as { stage: string }).stage);
      if (!target)
        findings.add(
          'worker-stage-unknown',
          `worker_stage "${fan.worker.stage}" of stage "${stage.name}" is not a stage; write one of ${choices}.`,
          [...at, 'worker_stage'],
        );
      else if (!target.allowAsWorker)
        findings.add(
          'worker-stage-not-allowed',
          `worker_stage "${target.name}" of stage "${stage.name}" does not allow it; set allow_as_worker = true on [stages.${target.name}] if it was written to do one item's work.`,
          [...at, 'worker_stage'],
        );
    }
    if (fan.mergeStage !== undefined) {
      const merge = fan.mergeStage;
      if (!names.includes(merge))
        findings.add(
          'merge-stage-unknown',
          `merge_stage "${merge}" of stage "${stage.name}" is not a stage; write one of ${choices}.`,
          [...at, 'merge_stage'],
        );
      else if (!stage.transitions.some((e) => e.target === merge))
        stage.transitions.unshift({ target: merge, condition: 'always', transform: 'direct' });
    }
  }
}
