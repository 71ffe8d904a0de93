/**
 * The run workflow continues as new (docs/reference/long-runs.md#the-run-continues-as-new),
 * against the real dev server, with `runHistoryEvents` shortened so a run of
 * a few dozen turns goes on as new several times: each run's history stays
 * near the limit, the walk, counters and usage come through whole with no
 * call made twice, and a run that continued as new still takes a message
 * (which reaches the model), a pause, a resume and a cancel. The steered runs
 * loop on a local model server until their test lets them answer and end.
 */

import { join } from 'node:path';
import { type Client, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { scriptedCalls } from '../../src/providers/index.js';
import type { MessageReceipt, PauseState } from '../../src/runtime/people/updates.js';
import { STATUS_KEY } from '../../src/runtime/search-attributes.js';
import { DEFAULT_RUN_OPTIONS, type RunOptions, type RunResult } from '../../src/runtime/types.js';
import { runProgress, sendUpdate } from '../../src/worker/operators.js';
import { startRun } from '../../src/worker/run-client.js';
import { lev } from '../cli/lev-in-process.js';
import { chatCompletion, type RecordedRequest, type Reply } from '../providers/wire-server.js';
import { temporalAddress } from './helpers.js';
import { startLev } from './lev-process.js';
import { saveHistories, scriptedModel, tempDir, useRuntime, useWireModel, writeBlueprint } from './run-helpers.js';

const LIMIT = 40;

async function until<T>(probe: () => Promise<T | undefined> | T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 900; i++) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`gave up waiting until ${what}`);
}

/** Every run of the run workflow so far, oldest first, with its status and event count. */
async function chain(client: Client, workflowId: string): Promise<{ status: string; events: number }[]> {
  const runs: { status: string; events: number; start: number }[] = [];
  for await (const wf of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
    const history = await client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
    runs.push({ status: wf.status.name, events: history.events?.length ?? 0, start: wf.startTime.getTime() });
  }
  return runs.sort((a, b) => a.start - b.start).map(({ status, events }) => ({ status, events }));
}

async function leviathStatus(handle: WorkflowHandle): Promise<string | undefined> {
  return (await handle.describe()).typedSearchAttributes.get(STATUS_KEY);
}

async function start(client: Client, taskQueue: string, toml: string, options: Partial<RunOptions> = {}) {
  return startRun(
    client,
    {
      blueprint: writeBlueprint(toml),
      task: 'Keep working.',
      caller: {},
      workdir: tempDir('continued'),
      // Every turn reports to the run, as a turn of 10 s or more does at the default interval.
      options: { ...DEFAULT_RUN_OPTIONS, runHistoryEvents: LIMIT, progressReportMs: 0, ...options },
    },
    { taskQueue },
  );
}

/** A scripted model that calls `current_time` for `turns` turns, then answers. */
function passesModel(turns: number, latencyMs: number): string {
  return scriptedModel({
    latency_ms: latencyMs,
    turns: [
      ...Array.from({ length: turns }, (_, i) => ({
        text: `Pass ${i + 1}.`,
        tool_calls: [{ name: 'current_time', arguments: {} }],
      })),
      { text: 'All passes done.' },
    ],
  });
}

describe('a run that continues as new', () => {
  const env = useRuntime();

  it('keeps each run of its history near the limit and completes with its whole walk and usage', async () => {
    const turns = 20;
    const model = passesModel(turns, 40);
    const toml = `[agent]\nname = "continued"\n[context.regions]\ntask = { kind = "pinned", max_tokens = 500 }\n[stages.main]\nmodel = "${model}"\navailable_tools = ["current_time"]\nmax_iterations = 100\n[stages.main.transitions.wrap]\n[stages.wrap]\nmodel = "${model}"\n`;
    const handle = await start(env.rt.client, env.rt.taskQueue, toml);
    const result = (await handle.result()) as RunResult;
    await saveHistories(env.rt.client, handle.workflowId);
    expect(result.status).toBe('completed');
    expect(result.stages).toEqual(['main', 'wrap']);
    // Every scripted turn served once: no call was made twice across the hand-overs.
    const served = scriptedCalls().filter((c) => c.runId === handle.workflowId && c.purpose === 'turn');
    expect(served.length).toBe(turns + 2);
    expect(new Set(served.map((c) => c.turn)).size).toBe(served.length);
    expect(result.usage.calls).toBe(turns + 2);
    expect(result.usage.perStage.main?.calls).toBe(turns + 1);
    const runs = await chain(env.rt.client, handle.workflowId);
    expect(runs.length).toBeGreaterThanOrEqual(3);
    expect(runs.slice(0, -1).every((r) => r.status === 'CONTINUED_AS_NEW')).toBe(true);
    expect(runs.at(-1)?.status).toBe('COMPLETED');
    // A run hands over at its visit's next turn, a few dozen events past the limit at most.
    for (const r of runs) expect(r.events).toBeLessThan(LIMIT * 2);
    expect(await leviathStatus(handle)).toBe('completed');
    // The memo written at the start (blueprint, task) came through every continue-as-new.
    expect(await (await handle.describe()).memo).toMatchObject({ blueprint: 'continued', task: 'Keep working.' });
  });

  it('hands over a visit that goes on as new by itself each turn: no hand-over is lost', async () => {
    // With `turnsPerRun = 1` the visit compacts its log and continues as new after every turn, so
    // most of its run's hand-over requests arrive while it gets ready to go on alone.
    const turns = 24;
    const model = passesModel(turns, 10);
    const toml = `[agent]\nname = "self-continued"\n[stages.main]\nmodel = "${model}"\navailable_tools = ["current_time"]\nmax_iterations = 100\n`;
    const handle = await start(env.rt.client, env.rt.taskQueue, toml, { turnsPerRun: 1 });
    const result = (await handle.result()) as RunResult;
    await saveHistories(env.rt.client, handle.workflowId);
    expect(result.status).toBe('completed');
    expect(result.usage.calls).toBe(turns + 1);
    const runs = await chain(env.rt.client, handle.workflowId);
    // Each run of the run workflow hands over within a turn or two of passing its limit: none waits
    // out the visit, which a lost request made it do (a run of 100 events and more).
    expect(runs.length).toBeGreaterThanOrEqual(3);
    for (const r of runs) expect(r.events).toBeLessThan(80);
  });
});

function toolCall(id: string): Reply {
  return {
    json: chatCompletion(
      { content: null, tool_calls: [{ id, type: 'function', function: { name: 'current_time', arguments: '{}' } }] },
      'tool_calls',
    ),
  };
}

/** Resolves once a workflow is at rest: no activity and no workflow task pending, so only a message or a timer can move it. */
async function atRest(client: Client, workflowId: string): Promise<void> {
  await until(async () => {
    const { raw } = await client.workflow.getHandle(workflowId).describe();
    return ((raw.pendingActivities?.length ?? 0) === 0 && !raw.pendingWorkflowTask) || undefined;
  }, `${workflowId} is at rest`);
}

function texts(req: RecordedRequest | undefined): string {
  return JSON.stringify(req?.body?.messages ?? []);
}

const WIRED = `
[agent]
name = "continued-wired"
model = "openai:gpt-4o"
[context.regions]
task = { kind = "pinned", max_tokens = 500 }
[stages.main]
available_tools = ["current_time"]
max_iterations = 1000
`;

describe('a run that continued as new, steered', () => {
  const env = useRuntime();
  const wire = useWireModel();

  /**
   * The model calls `current_time` at every turn until `finish()`, then answers, which ends the
   * run; a run its test never finishes stops looping after 400 turns.
   */
  function looping(): { finish(): void } {
    let finished = false;
    let turn = 0;
    wire.server.requests.length = 0;
    wire.server.respond(() =>
      finished || turn >= 400 ? { json: chatCompletion({ content: 'Done.' }) } : toolCall(`t${turn++}`),
    );
    return {
      finish() {
        finished = true;
      },
    };
  }

  /** Starts a looping run and waits until it continued as new `times` times. */
  async function continued(times: number): Promise<WorkflowHandle> {
    looping();
    const handle = await start(env.rt.client, env.rt.taskQueue, WIRED);
    await until(
      async () => (await chain(env.rt.client, handle.workflowId)).length > times || undefined,
      `the run continued as new ${times} times`,
    );
    return handle;
  }

  it('takes a message that reaches the model, a pause and a resume', async () => {
    const handle = await continued(2);
    const client = env.rt.client;
    const runId = handle.workflowId;
    const text = 'Look at the billing logs first.';
    const receipt = await sendUpdate<MessageReceipt>(client, runId, 'message', text);
    // Sent as the run goes on as new, between two visits, it is held for the next visit: either way
    // the model reads it (docs/reference/long-runs.md#the-run-continues-as-new).
    if (!receipt.held) expect(receipt).toMatchObject({ stage: 'main', held: false });
    await until(() => wire.server.requests.some((r) => texts(r).includes(text)) || undefined, 'the model reads it');
    if (!receipt.held) {
      // The message is in the conversation of the inference its receipt names, not before.
      expect(texts(wire.server.requests[(receipt.turn as number) - 1])).toContain(text);
      expect(texts(wire.server.requests[(receipt.turn as number) - 2])).not.toContain(text);
    }

    const paused = await sendUpdate<PauseState>(client, runId, 'pause');
    expect(paused).toEqual({ paused: true, stage: 'main' });
    await until(async () => (await leviathStatus(handle)) === 'paused' || undefined, 'LeviathStatus paused');
    const heldAt = wire.server.requests.length;
    // The paused visit finishes the turn in flight, if any, then waits with nothing pending: it asks
    // the model nothing more until it is resumed.
    const visit = (await runProgress(client, handle))?.stageWorkflowId;
    expect(visit).toBeDefined();
    await atRest(client, visit as string);
    expect(wire.server.requests.length - heldAt).toBeLessThanOrEqual(1);
    expect((await runProgress(client, handle))?.paused).toBe(true);
    expect(await sendUpdate<PauseState>(client, runId, 'resume')).toEqual({ paused: false, stage: 'main' });
    const before = (await chain(client, runId)).length;
    await until(
      async () => (await chain(client, runId)).length > before || undefined,
      'the run continued as new again after the resume',
    );
    expect(await leviathStatus(handle)).toBe('running');
    await handle.cancel();
    await handle.result().catch(() => {});
    await saveHistories(client, runId);
  });

  it('is followed by lev attach across continue-as-new to its end, losing no message', async () => {
    const model = looping();
    const handle = await start(env.rt.client, env.rt.taskQueue, WIRED);
    const client = env.rt.client;
    const runId = handle.workflowId;
    const address = temporalAddress();
    const levEnv = {
      TEMPORAL_ADDRESS: address,
      LEVIATH_HOME: tempDir('attach-home'),
      LEVIATH_CONFIG: join(tempDir('no-config'), 'config.toml'),
    };
    const attach = startLev(['attach', runId, '--address', address], levEnv);
    await attach.waitFor(/following run .* a worker on task queue/);

    // One message before the run goes on as new, one after, the second through `lev msg`
    // (docs/reference/long-runs.md#the-run-continues-as-new).
    const before = 'First message: look at the billing logs.';
    await sendUpdate<MessageReceipt>(client, runId, 'message', before);
    await until(async () => (await chain(client, runId)).length >= 2 || undefined, 'the run continued as new');
    const continuedAt = (await runProgress(client, handle))?.inferences ?? 0;
    const after = 'Second message: and the metrics.';
    const msg = await lev(['msg', runId, after, '--address', address], { env: levEnv });
    expect(msg.code).toBe(0);
    const goneOn = (await chain(client, runId)).length;
    await until(
      async () => (await chain(client, runId)).length > goneOn || undefined,
      'the run continued as new after the second message',
    );

    model.finish();
    const result = (await handle.result()) as RunResult;
    await saveHistories(client, runId);
    expect(result.status).toBe('completed');
    // lev attach followed every run of the chain to the end and printed the result.
    expect(await attach.exited).toBe(0);
    const printed = [...attach.stdout().matchAll(/run inference (\d+)/g)].map((m) => Number(m[1]));
    expect(Math.max(...printed)).toBeGreaterThan(continuedAt);
    expect(attach.stdout()).toContain('Run completed after stages main');
    expect(attach.stdout()).toContain(`Run id: ${runId}`);
    expect(attach.stderr()).not.toMatch(/error/i);
    // Both messages reached the model, each once: no conversation holds one twice.
    for (const text of [before, after]) {
      const counts = wire.server.requests.map((r) => texts(r).split(text).length - 1);
      expect(Math.max(...counts)).toBe(1);
    }
    expect((await chain(client, runId)).length).toBeGreaterThanOrEqual(3);
  });

  it('takes a cancel: the run ends CANCELED with its region set and status', async () => {
    const handle = await continued(2);
    await handle.cancel();
    const err = await handle.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    await saveHistories(env.rt.client, handle.workflowId);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    expect((await handle.describe()).status.name).toBe('CANCELLED');
    expect(await leviathStatus(handle)).toBe('cancelled');
    const progress = await runProgress(env.rt.client, handle);
    expect(progress?.status).toBe('cancelled');
    expect(progress?.regions.find((r) => r.name === 'conversation')?.entries).toBeGreaterThan(0);
  });
});
