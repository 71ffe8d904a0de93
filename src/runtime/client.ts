/**
 * Starting runs and following them from a client: `lev run` and the
 * integration tests. Progress comes from queries on the run and on the stage
 * visit running now, so following a run adds nothing to its history.
 */
import { randomUUID } from 'node:crypto';
import { type Client, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure, TypedSearchAttributes } from '@temporalio/common';
import type { Blueprint } from '../blueprint/types.js';
import { cutUnits } from '../context/truncate.js';
import { BLUEPRINT_KEY, STATUS_KEY } from './search-attributes.js';
import type { Progress, RunInput, RunResult } from './types.js';
import { DEFAULT_TASK_QUEUE } from './worker.js';

/** Every stage (and the agent default) switched to one model: `lev run --model`. */
export function withModel(bp: Blueprint, model: string): Blueprint {
  return { ...bp, agent: { ...bp.agent, model }, stages: bp.stages.map((s) => ({ ...s, model })) };
}

export function newRunId(agent: string): string {
  return `${agent}-${new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '')}-${randomUUID().slice(0, 8)}`;
}

export async function startRun(
  client: Client,
  input: RunInput,
  opts: { taskQueue?: string; workflowId?: string } = {},
): Promise<WorkflowHandle> {
  return client.workflow.start('agentRunWorkflow', {
    taskQueue: opts.taskQueue ?? DEFAULT_TASK_QUEUE,
    workflowId: opts.workflowId ?? newRunId(input.blueprint.agent.name),
    args: [input],
    typedSearchAttributes: new TypedSearchAttributes([
      { key: BLUEPRINT_KEY, value: input.blueprint.agent.name },
      { key: STATUS_KEY, value: 'running' },
    ]),
    memo: { blueprint: input.blueprint.agent.name, task: cutUnits(input.task ?? '', 200) },
    staticSummary: `${input.blueprint.agent.name}: ${cutUnits(input.task ?? '', 120)}`,
  });
}

async function latestProgress(client: Client, handle: WorkflowHandle): Promise<Progress | undefined> {
  try {
    const run = await handle.query<Progress>('progress');
    if (!run.stageWorkflowId) return run;
    try {
      const visit = await client.workflow.getHandle(run.stageWorkflowId).query<Progress>('progress');
      return { ...visit, stageWorkflowId: run.stageWorkflowId };
    } catch {
      return run;
    }
  } catch {
    return undefined;
  }
}

/** Calls `onTurn` once per new inference (and stage change) until the run ends; returns its result. */
export async function followRun(
  client: Client,
  handle: WorkflowHandle,
  onTurn: (p: Progress) => void,
  intervalMs = 200,
): Promise<RunResult> {
  let settled: { ok: true; value: RunResult } | { ok: false; error: unknown } | undefined;
  const done = handle.result().then(
    (value) => {
      settled = { ok: true, value: value as RunResult };
    },
    (error: unknown) => {
      settled = { ok: false, error };
    },
  );
  let seen = '';
  while (!settled) {
    const p = await latestProgress(client, handle);
    if (p) {
      const key = `${p.stage}:${p.inferences}`;
      if (key !== seen && p.inferences > 0) {
        seen = key;
        onTurn(p);
      }
    }
    await Promise.race([done, new Promise((r) => setTimeout(r, intervalMs))]);
  }
  if (settled.ok) return settled.value;
  return failedResult(handle.workflowId, settled.error);
}

/** A failed run still reports what it had: the workflow attaches a partial result to its failure. */
function failedResult(runId: string, error: unknown): RunResult {
  if (error instanceof WorkflowFailedError && error.cause instanceof ApplicationFailure) {
    const partial = error.cause.details?.[0] as RunResult | undefined;
    if (partial && typeof partial === 'object') return { ...partial, status: 'failed', error: error.cause.message };
    return emptyFailure(runId, error.cause.message);
  }
  return emptyFailure(
    runId,
    error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error),
  );
}

function emptyFailure(runId: string, message: string): RunResult {
  const zero = { calls: 0, promptTokens: 0, completionTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  return {
    runId,
    status: 'failed',
    output: '',
    error: message,
    regions: [],
    gatesForced: [],
    usage: { ...zero, perStage: {} },
    stages: [],
    diagnostics: [],
  };
}
