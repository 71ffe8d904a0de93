/**
 * Guardrails for runs nobody watches (docs/reference/long-runs.md#spend-caps), against the real dev
 * server: a looping stage stops at 50 inferences when it sets no `max_iterations`, and
 * `[run] max_tokens` stops a run with `budget-exhausted` before the inference that would go past
 * it, also when the stage has an `error` edge, keeping its region set for `lev show`; and
 * `[repetition_detection]` tells a model that repeats the same call that it goes in circles.
 */
import type { WorkflowFailedError } from '@temporalio/client';
import type { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { scriptedCalls } from '../../src/providers/index.js';
import type { Progress, RunResult } from '../../src/runtime/types.js';
import { DEFAULT_RUN_OPTIONS } from '../../src/runtime/types.js';
import { startRun } from '../../src/worker/run-client.js';
import { chatCompletion, type Reply } from '../providers/wire-server.js';
import {
  failureOf,
  saveHistories,
  scriptedModel,
  tempDir,
  useRuntime,
  useWireModel,
  writeBlueprint,
} from './run-helpers.js';

function loopingModel(): string {
  return scriptedModel({
    repeat: true,
    turns: [{ text: 'Checking the time again.', tool_calls: [{ name: 'current_time', arguments: {} }] }],
  });
}

describe('guardrails', () => {
  const env = useRuntime();

  async function start(toml: string) {
    return startRun(
      env.rt.client,
      {
        blueprint: writeBlueprint(toml),
        task: 'Loop.',
        caller: {},
        workdir: tempDir('guard'),
        options: DEFAULT_RUN_OPTIONS,
      },
      { taskQueue: env.rt.taskQueue },
    );
  }

  const calls = (runId: string, stage?: string) =>
    scriptedCalls().filter((c) => c.runId === runId && c.purpose === 'turn' && (!stage || c.stage === stage)).length;

  it('ends a looping stage that sets no max_iterations after 50 inferences', async () => {
    const handle = await start(
      `[agent]\nname = "loops"\nmodel = "${loopingModel()}"\n[stages.main]\navailable_tools = ["current_time"]\n`,
    );
    const result = await handle.result().then(
      (r) => r as RunResult,
      (err: unknown) => ((err as WorkflowFailedError).cause as ApplicationFailure).details?.[0] as RunResult,
    );
    await saveHistories(env.rt.client, handle.workflowId);
    expect(calls(handle.workflowId)).toBe(50);
    expect(result.usage.calls).toBe(50);
  });

  it('stops a run at [run] max_tokens with budget-exhausted, before its error edge runs another visit', async () => {
    const handle = await start(
      `[agent]\nname = "capped"\nmodel = "${loopingModel()}"\n[run]\nmax_tokens = 3000\n[stages.main]\navailable_tools = ["current_time"]\nmax_iterations = 1000\n[stages.main.transitions.rescue]\ncondition = "error"\n[stages.rescue]\navailable_tools = ["current_time"]\n`,
    );
    const cause = await failureOf(env.rt.client, handle);
    expect(cause.type).toBe('budget-exhausted');
    expect(cause.message).toMatch(/max_tokens is 3000/);
    const partial = cause.details?.[0] as RunResult;
    const tokens = partial.usage.promptTokens + partial.usage.completionTokens;
    expect(tokens).toBeGreaterThanOrEqual(3000);
    // It stopped at the first inference past the cap: the one before was still under it.
    expect(calls(handle.workflowId)).toBeLessThan(1000);
    expect(calls(handle.workflowId, 'rescue')).toBe(0);
    expect(partial.regions.length).toBeGreaterThan(0);
    // lev show reads the regions it kept, and the memo says how it ended.
    const progress = await handle.query<Progress>('progress');
    expect(progress.regions.find((r) => r.name === 'conversation')?.entries).toBeGreaterThan(0);
    expect(await (await handle.describe()).memo).toMatchObject({ status: 'failed' });
  });
});

function timeCall(id: string): Reply {
  return {
    json: chatCompletion(
      { content: null, tool_calls: [{ id, type: 'function', function: { name: 'current_time', arguments: '{}' } }] },
      'tool_calls',
    ),
  };
}

describe('repetition detection, seen from the model', () => {
  const env = useRuntime();
  const wire = useWireModel();

  it('writes a [System] note after the third identical call, read by the next inference', async () => {
    wire.serve([timeCall('t1'), timeCall('t2'), timeCall('t3'), timeCall('t4')]);
    const handle = await startRun(
      env.rt.client,
      {
        blueprint: writeBlueprint(
          `[agent]\nname = "circles"\nmodel = "openai:gpt-4o"\n[stages.main]\navailable_tools = ["current_time"]\n`,
        ),
        task: 'Loop.',
        caller: {},
        workdir: tempDir('circles'),
        options: DEFAULT_RUN_OPTIONS,
      },
      { taskQueue: env.rt.taskQueue },
    );
    const result = (await handle.result()) as RunResult;
    await saveHistories(env.rt.client, handle.workflowId);
    expect(result.status).toBe('completed');
    const seen = wire.server.requests.map((r) => JSON.stringify(r.body?.messages ?? []).includes('going in circles'));
    // Inferences 1-3 made the same call; the fourth reads the note; the stage goes on to its answer.
    expect(seen).toEqual([false, false, false, true, true]);
  });
});
