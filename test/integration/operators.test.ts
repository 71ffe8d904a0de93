/**
 * People in the loop against the real dev server (docs/reference/operators.md):
 * updates on the run reach the live stage visit and come back with its
 * answer, cancellation reaches the visit before and after continue-as-new
 * and ends the run CANCELED, an error fails the run with its code,
 * `LeviathStatus` follows (its whole sequence read back from history), and
 * the run's own progress follows its live visit. Models are the scripted
 * provider, or a local OpenAI-compatible server when the test reads what
 * the model was sent.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { type Client, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure, ChildWorkflowFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { terminalAnswers } from '../../src/cli/reply-prompt.js';
import { LevError } from '../../src/errors.js';
import { gateReached, openGate, scriptedCalls } from '../../src/providers/index.js';
import type { MessageReceipt, PauseState } from '../../src/runtime/people/updates.js';
import { STATUS_KEY } from '../../src/runtime/search-attributes.js';
import { DEFAULT_RUN_OPTIONS, type Progress, type RunOptions, type RunResult } from '../../src/runtime/types.js';
import { runProgress, sendUpdate } from '../../src/worker/operators.js';
import { followRun, startRun } from '../../src/worker/run-client.js';
import { lev as levInProcess } from '../cli/lev-in-process.js';
import { chatCompletion, type RecordedRequest, type Reply } from '../providers/wire-server.js';
import { temporalAddress } from './helpers.js';
import { saveHistories, scriptedModel, tempDir, useRuntime, useWireModel, writeBlueprint } from './run-helpers.js';

async function until<T>(probe: () => Promise<T | undefined> | T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`gave up waiting until ${what}`);
}

async function leviathStatus(handle: WorkflowHandle): Promise<string | undefined> {
  return (await handle.describe()).typedSearchAttributes.get(STATUS_KEY);
}

/** How the run ended: its Temporal status and, when it failed or was cancelled, the error its result threw. */
async function ending(handle: WorkflowHandle): Promise<{ status: string; error?: unknown }> {
  let error: unknown;
  await handle.result().catch((err: unknown) => {
    error = err;
  });
  return { status: (await handle.describe()).status.name, ...(error ? { error } : {}) };
}

async function refusalCode(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (err) {
    if (err instanceof LevError) return err.code;
    throw err;
  }
  throw new Error('expected the update to be refused');
}

function callsOf(runId: string): number {
  return scriptedCalls().filter((c) => c.runId === runId && c.purpose === 'turn').length;
}

async function start(client: Client, taskQueue: string, toml: string, options: Partial<RunOptions> = {}) {
  return startRun(
    client,
    {
      blueprint: writeBlueprint(toml),
      task: 'Keep working.',
      caller: {},
      workdir: tempDir('operated'),
      options: { ...DEFAULT_RUN_OPTIONS, ...options },
    },
    { taskQueue },
  );
}

let gates = 0;

/** A gate of its own for each use: gates are latches of this process (docs/scripted.md#gates). */
function newGate(what: string): string {
  return `${what}-${process.pid}-${++gates}`;
}

/**
 * A scripted agent that calls `current_time` on every turn until its iteration cap. Its inference
 * after the first `before` ones waits at `gate`, so the test acts while that call is in flight and
 * the run cannot end meanwhile; once the gate is open every turn goes through.
 */
function looping(gate: string, before = 1, maxIterations = 200): string {
  const turn = { text: 'Checking the time again.', tool_calls: [{ name: 'current_time', arguments: {} }] };
  const model = scriptedModel({
    repeat: true,
    turns: [...Array.from({ length: before }, () => turn), { ...turn, gate }],
  });
  return `[agent]\nname = "looping"\n[context.regions]\ntask = { kind = "pinned", max_tokens = 500 }\n[stages.main]\nmodel = "${model}"\navailable_tools = ["current_time"]\nmax_iterations = ${maxIterations}\n`;
}

describe('cancellation', () => {
  const env = useRuntime();

  /**
   * The gates the cancelled runs wait at stay shut: the call held there is aborted with its run
   * (docs/reference/long-runs.md#never-billed-twice) once a heartbeat finds the attempt gone
   * (`heartbeatTimeoutSecs: 1`: a heartbeat every half second).
   */
  async function callEnds(): Promise<void> {
    await until(() => env.rt.activitiesInFlight() === 0 || undefined, 'the call held at the gate ended with its run');
  }

  async function cancelAndCheck(handle: WorkflowHandle, stageWorkflowId: string) {
    const runId = handle.workflowId;
    await handle.cancel();
    const requestedAt = callsOf(runId);
    const end = await ending(handle);
    await saveHistories(env.rt.client, runId);
    expect(end.status).toBe('CANCELLED');
    expect(end.error).toBeInstanceOf(WorkflowFailedError);
    expect((end.error as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    // The model is not called again once the cancellation reached the visit: at most the call in flight.
    expect(callsOf(runId) - requestedAt).toBeLessThanOrEqual(1);
    expect(await leviathStatus(handle)).toBe('cancelled');
    expect((await env.rt.client.workflow.getHandle(stageWorkflowId).describe()).status.name).toBe('CANCELLED');
    const desc = await handle.describe();
    expect(await desc.memo).toMatchObject({ status: 'cancelled' });
    // The run kept the region set the visit had when it stopped.
    const progress = await handle.query<Progress>('progress');
    expect(progress.status).toBe('cancelled');
    expect(progress.inferences).toBeGreaterThanOrEqual(requestedAt - 1);
    expect(progress.regions.find((r) => r.name === 'conversation')?.entries).toBeGreaterThan(0);
    await callEnds();
  }

  it('ends the run CANCELED before any continue-as-new, and the model calls stop', async () => {
    const gate = newGate('cancel');
    const handle = await start(env.rt.client, env.rt.taskQueue, looping(gate, 3), { heartbeatTimeoutSecs: 1 });
    // Three inferences made, the fourth in flight.
    await gateReached(gate);
    const p = await until(async () => {
      const now = await runProgress(env.rt.client, handle);
      return now && now.inferences >= 3 ? now : undefined;
    }, 'three inferences');
    await cancelAndCheck(handle, p.stageWorkflowId as string);
  });

  it('fails the run with stage-cancelled when only its stage visit is cancelled', async () => {
    const gate = newGate('cancel-visit');
    const handle = await start(env.rt.client, env.rt.taskQueue, looping(gate), { heartbeatTimeoutSecs: 1 });
    await gateReached(gate);
    const p = await until(async () => {
      const now = await runProgress(env.rt.client, handle);
      return now && now.inferences >= 1 ? now : undefined;
    }, 'one inference');
    await env.rt.client.workflow.getHandle(p.stageWorkflowId as string).cancel();
    const end = await ending(handle);
    await saveHistories(env.rt.client, handle.workflowId);
    expect(end.status).toBe('FAILED');
    expect((end.error as WorkflowFailedError).cause).toMatchObject({ type: 'stage-cancelled' });
    expect(await leviathStatus(handle)).toBe('failed');
    await callEnds();
  });

  it('reaches the live visit after three continue-as-new', async () => {
    // Two turns per run of the visit: the eighth inference is its fourth run's, held at the gate.
    const gate = newGate('cancel-after-can');
    const handle = await start(env.rt.client, env.rt.taskQueue, looping(gate, 7), {
      turnsPerRun: 2,
      heartbeatTimeoutSecs: 1,
    });
    const stageId = `${handle.workflowId}.1.main`;
    await gateReached(gate);
    await until(async () => {
      let runs = 0;
      for await (const _ of env.rt.client.workflow.list({ query: `WorkflowId = '${stageId}'` })) runs++;
      return runs >= 4 || undefined;
    }, 'the stage visit continued as new three times');
    await cancelAndCheck(handle, stageId);
  });
});

describe('a visit that ends in error', () => {
  const env = useRuntime();

  it('fails its workflow and the run with the error code as the failure type, the cause kept', async () => {
    const model = scriptedModel({ turns: [{ text: 'never', fail: { kind: 'auth', attempts: 99 } }] });
    const handle = await start(
      env.rt.client,
      env.rt.taskQueue,
      `[agent]\nname = "denied-key"\n[stages.main]\nmodel = "${model}"\n`,
    );
    const end = await ending(handle);
    await saveHistories(env.rt.client, handle.workflowId);
    expect(end.status).toBe('FAILED');
    const failure = (end.error as WorkflowFailedError).cause as ApplicationFailure;
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure.type).toBe('provider-auth');
    expect(failure.message).toContain('stage "main" ended with error');
    // The chain the Web UI shows: the run's failure, the visit's, and the provider's under it.
    expect(failure.cause).toBeInstanceOf(ChildWorkflowFailure);
    expect((failure.cause as ChildWorkflowFailure).cause).toMatchObject({ type: 'provider-auth' });
    const visit = await env.rt.client.workflow.getHandle(`${handle.workflowId}.1.main`).describe();
    expect(visit.status.name).toBe('FAILED');
    expect(await leviathStatus(handle)).toBe('failed');
  });
});

describe('pause, resume and refusals', () => {
  const env = useRuntime();

  it('pauses before the next inference, refuses bad updates, and resumes', async () => {
    const gate = newGate('pause');
    const handle = await start(env.rt.client, env.rt.taskQueue, looping(gate, 2, 12));
    const runId = handle.workflowId;
    const client = env.rt.client;
    // Two turns made, the third inference in flight.
    await gateReached(gate);

    expect(await leviathStatus(handle)).toBe('running');
    // Refused before anything changes.
    expect(await refusalCode(sendUpdate(client, runId, 'message', '   '))).toBe('text-empty');
    expect(await refusalCode(sendUpdate(client, runId, 'message', 'x'.repeat(70_000)))).toBe('text-too-large');
    expect(await refusalCode(sendUpdate(client, runId, 'message', 42))).toBe('bad-update');
    expect(await refusalCode(sendUpdate(client, runId, 'approve', {}))).toBe('nothing-pending');
    expect(await refusalCode(sendUpdate(client, runId, 'answer', 'yes'))).toBe('nothing-pending');
    expect(await refusalCode(sendUpdate(client, runId, 'resume'))).toBe('not-paused');

    const paused = await sendUpdate<PauseState>(client, runId, 'pause');
    expect(paused).toEqual({ paused: true, stage: 'main' });
    expect(await refusalCode(sendUpdate(client, runId, 'pause'))).toBe('already-paused');
    await until(async () => (await leviathStatus(handle)) === 'paused' || undefined, 'LeviathStatus paused');
    const atPause = callsOf(runId);
    const details = await client.workflow
      .getHandle(`${runId}.1.main`)
      .query<{ currentDetails: string }>('__temporal_workflow_metadata');
    expect(details.currentDetails).toContain('**Paused**');
    expect(details.currentDetails).toContain('| Region | Kind | Tokens / budget | Fill | Entries |');
    // While paused, a message waits for the inference after the resume.
    const receipt = await sendUpdate<MessageReceipt>(client, runId, 'message', 'Stop checking the time.');
    expect(receipt).toMatchObject({ stage: 'main', held: false });
    openGate(gate);
    await until(() => callsOf(runId) === atPause + 1 || undefined, 'the inference in flight at the pause ends');
    for (let i = 0; i < 10; i++) {
      await new Promise((r) => setTimeout(r, 100));
      // An inference that was already running may finish; no new one starts.
      expect(callsOf(runId)).toBeLessThanOrEqual(atPause + 1);
    }
    expect(await sendUpdate<PauseState>(client, runId, 'resume')).toEqual({ paused: false, stage: 'main' });
    const end = await ending(handle);
    await saveHistories(client, runId);
    expect(end.status).toBe('COMPLETED');
    expect(callsOf(runId)).toBe(12);
    expect(await leviathStatus(handle)).toBe('completed');
    const desc = await handle.describe();
    expect(await desc.staticSummary()).toBe('looping: Keep working.');
    expect(await desc.staticDetails()).toContain('**Unattended**');
    expect(await refusalCode(sendUpdate(client, runId, 'message', 'too late'))).toBe('run-finished');
    expect(await refusalCode(sendUpdate(client, `no-such-run-${process.pid}`, 'pause'))).toBe('run-not-found');
  });
});

describe("the run's own progress", () => {
  const env = useRuntime();

  it('shows the turns of the live visit to someone who queries only the run, with one report per 10 s at most', async () => {
    const gate = newGate('progress');
    const handle = await start(env.rt.client, env.rt.taskQueue, looping(gate, 1, 12));
    const visitId = `${handle.workflowId}.1.main`;
    // Only the run is asked: no merge with the visit's own answer.
    const p = await until(async () => {
      const now = await handle.query<Progress>('progress').catch(() => undefined);
      return now && now.inferences > 0 ? now : undefined;
    }, 'the run reports a turn');
    expect((await env.rt.client.workflow.getHandle(visitId).describe()).status.name).toBe('RUNNING');
    expect(p).toMatchObject({ stage: 'main', stageWorkflowId: visitId, status: 'running' });
    expect(p.visitTurns).toBeGreaterThan(0);
    expect(p.usage.calls).toBeGreaterThan(0);
    expect(p.reportedAt).toBeTypeOf('number');
    expect(p.regions.find((r) => r.name === 'conversation')?.entries).toBeGreaterThan(0);
    const meta = await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata');
    expect(meta.currentDetails).toMatch(/^\*\*Run\*\* `[^`]+` · running · [1-9]\d* inferences?/);
    expect(meta.currentDetails).toContain('of the live visit (its last report)');

    openGate(gate);
    expect((await ending(handle)).status).toBe('COMPLETED');
    await saveHistories(env.rt.client, handle.workflowId);
    // History stays O(change): the visit's reports to the run are throttled by workflow time.
    const events = (await env.rt.client.workflow.getHandle(visitId).fetchHistory()).events ?? [];
    const reports = events.filter((e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes).length;
    const ms = (e: (typeof events)[number]) => Number(e.eventTime?.seconds ?? 0) * 1000;
    const span = ms(events.at(-1)!) - ms(events[0]!);
    expect(reports).toBeGreaterThanOrEqual(1);
    expect(reports).toBeLessThanOrEqual(1 + Math.ceil(span / 10_000));
  });
});

describe('a pause between visits', () => {
  const env = useRuntime();

  it("holds the run's edge choice until resume", async () => {
    const gate = newGate('triage');
    const model = scriptedModel({
      choices: { triage: 'docs' },
      turns: [
        { stage: 'triage', text: 'It is a documentation problem.', gate },
        { stage: 'docs', text: 'Docs updated.' },
        { stage: 'fix', text: 'Code fixed.' },
      ],
    });
    const handle = await start(
      env.rt.client,
      env.rt.taskQueue,
      `[agent]\nname = "choosing"\nmodel = "${model}"\nentry_stage = "triage"\n[stages.triage.transitions.fix]\ncondition = "llm_choice"\n[stages.triage.transitions.docs]\ncondition = "llm_choice"\n[stages.fix]\n[stages.docs]\n`,
    );
    const runId = handle.workflowId;
    const calls = (purpose: string) => scriptedCalls().filter((c) => c.runId === runId && c.purpose === purpose).length;
    // The triage visit's only inference is in flight: the pause is in force when the visit ends.
    const progress = () => handle.query<Progress>('progress').catch(() => undefined);
    await gateReached(gate);
    expect(await sendUpdate<PauseState>(env.rt.client, runId, 'pause')).toEqual({ paused: true, stage: 'triage' });
    openGate(gate);
    const triage = env.rt.client.workflow.getHandle(`${runId}.1.triage`);
    await until(async () => (await triage.describe()).status.name === 'COMPLETED', 'the triage visit ended');
    expect(await progress()).toMatchObject({ stage: 'triage', inferences: 1, paused: true, waiting: 'resume' });
    expect(await leviathStatus(handle)).toBe('paused');
    for (let i = 0; i < 10; i++) {
      await new Promise((r) => setTimeout(r, 100));
      expect(calls('edge-choice')).toBe(0);
    }
    expect(await sendUpdate<PauseState>(env.rt.client, runId, 'resume')).toEqual({ paused: false, stage: null });
    const result = (await handle.result()) as RunResult;
    await saveHistories(env.rt.client, runId);
    expect(result.stages).toEqual(['triage', 'docs']);
    expect(calls('edge-choice')).toBe(1);
  });
});

describe('messages the run ends holding', () => {
  const env = useRuntime();

  it('are reported in the result, the memo and by lev result, not dropped silently', async () => {
    const gate = newGate('report');
    const model = scriptedModel({
      turns: [
        { stage: 'main', text: 'Over to the report.' },
        { stage: 'report', text: 'Writing.', tool_calls: [{ name: 'current_time', arguments: {} }], gate },
        { stage: 'report', text: 'Report written.' },
      ],
    });
    const handle = await start(
      env.rt.client,
      env.rt.taskQueue,
      `[agent]\nname = "held-end"\nmodel = "${model}"\n[stages.main]\n[stages.main.transitions.report]\n[stages.report]\navailable_tools = ["current_time"]\naccepts_messages = false\n`,
    );
    // The report stage's first inference is in flight.
    await gateReached(gate);
    const receipt = await sendUpdate<MessageReceipt>(env.rt.client, handle.workflowId, 'message', 'Add a timeline.');
    expect(receipt.held).toBe(true);
    openGate(gate);
    const result = (await handle.result()) as RunResult;
    await saveHistories(env.rt.client, handle.workflowId);
    expect(result.status).toBe('completed');
    expect(result.undeliveredMessages).toBe(1);
    const sentence =
      '1 message was never delivered: no later stage accepts messages (`accepts_messages = false`); send them while a stage that accepts messages runs.';
    expect(result.diagnostics).toContainEqual(
      expect.objectContaining({ code: 'messages-undelivered', detail: sentence }),
    );
    expect(await (await handle.describe()).memo).toMatchObject({ undeliveredMessages: 1 });
    const shown = await lev(['result', handle.workflowId]);
    expect(shown).toMatchObject({ code: 0, stdout: 'Report written.\n' });
    expect(shown.stderr).toContain(sentence);
    expect(JSON.parse((await lev(['result', handle.workflowId, '--json'])).stdout)).toMatchObject({
      undeliveredMessages: 1,
    });
  });
});

/** Every value the run wrote to `LeviathStatus`, in order, read back from its history. */
async function statusSequence(handle: WorkflowHandle): Promise<string[]> {
  const events = (await handle.fetchHistory()).events ?? [];
  return events.flatMap((e) => {
    const field = e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.[STATUS_KEY.name];
    return field?.data ? [JSON.parse(Buffer.from(field.data).toString('utf8')) as string] : [];
  });
}

describe('LeviathStatus', () => {
  const env = useRuntime();

  it('goes running → waiting → running → paused → running → completed through an approval and a pause', async () => {
    const gate = newGate('status');
    const model = scriptedModel({
      turns: [
        { text: 'Writing.', tool_calls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'a\n' } }] },
        { text: 'Checking.', tool_calls: [{ name: 'current_time', arguments: {} }], gate },
        { text: 'Checking.', tool_calls: [{ name: 'current_time', arguments: {} }] },
        { text: 'Checking.', tool_calls: [{ name: 'current_time', arguments: {} }] },
        { text: 'Done.' },
      ],
    });
    const handle = await start(
      env.rt.client,
      env.rt.taskQueue,
      `[agent]\nname = "statuses"\nmodel = "${model}"\n[stages.main]\navailable_tools = ["write_file", "current_time"]\n[tool_permissions]\nwrite_file = "ask"\n`,
      { unattended: false },
    );
    const runId = handle.workflowId;
    await until(async () => (await leviathStatus(handle)) === 'waiting' || undefined, 'the write waits');
    await sendUpdate(env.rt.client, runId, 'approve');
    // The inference after the approval is in flight: running until the pause.
    await gateReached(gate);
    await until(async () => (await leviathStatus(handle)) === 'running' || undefined, 'running again');
    await sendUpdate(env.rt.client, runId, 'pause');
    openGate(gate);
    await until(async () => (await leviathStatus(handle)) === 'paused' || undefined, 'paused');
    await sendUpdate(env.rt.client, runId, 'resume');
    expect((await ending(handle)).status).toBe('COMPLETED');
    await saveHistories(env.rt.client, runId);
    expect(await statusSequence(handle)).toEqual(['running', 'waiting', 'running', 'paused', 'running', 'completed']);
  });

  it('goes running → cancelled when the run is cancelled, and running → failed when it fails', async () => {
    const gate = newGate('status-cancel');
    const looped = await start(env.rt.client, env.rt.taskQueue, looping(gate));
    await gateReached(gate);
    await looped.cancel();
    expect((await ending(looped)).status).toBe('CANCELLED');
    // Its gate stays shut: the call held there ends with the run.
    expect(await statusSequence(looped)).toEqual(['running', 'cancelled']);

    const model = scriptedModel({ turns: [{ text: 'never', fail: { kind: 'auth', attempts: 99 } }] });
    const failing = await start(
      env.rt.client,
      env.rt.taskQueue,
      `[agent]\nname = "failing"\n[stages.main]\nmodel = "${model}"\n`,
    );
    expect((await ending(failing)).status).toBe('FAILED');
    await saveHistories(env.rt.client, looped.workflowId);
    await saveHistories(env.rt.client, failing.workflowId);
    expect(await statusSequence(failing)).toEqual(['running', 'failed']);
  });

  it('is stuck while the stage a stuck edge leads to runs, then completed', async () => {
    const gate = newGate('rethink');
    const model = scriptedModel({
      turns: [
        { stage: 'work', text: 'Looking.', tool_calls: [{ name: 'context_list', arguments: {} }] },
        { stage: 'work', text: 'Looking again.', tool_calls: [{ name: 'context_list', arguments: {} }] },
        { stage: 'work', text: 'Still looking.', tool_calls: [{ name: 'context_list', arguments: {} }] },
        { stage: 'rethink', text: 'A new approach.', gate },
      ],
    });
    const handle = await start(
      env.rt.client,
      env.rt.taskQueue,
      `[agent]\nname = "stuck"\nmodel = "${model}"\n[stages.work]\navailable_tools = ["context_list"]\n[stages.work.transitions.rethink]\ncondition = "stuck"\nstuck_after_iterations = 2\n[stages.rethink]\n`,
    );
    await until(async () => (await leviathStatus(handle)) === 'stuck' || undefined, 'LeviathStatus stuck');
    openGate(gate);
    const end = await ending(handle);
    await saveHistories(env.rt.client, handle.workflowId);
    expect(end.status).toBe('COMPLETED');
    expect(await leviathStatus(handle)).toBe('completed');
    // Back to running once the rethink visit ended otherwise than stuck.
    expect(await statusSequence(handle)).toEqual(['running', 'stuck', 'running', 'completed']);
  });
});

/** A reply calling one tool; with `gate`, sent only once the test opens it (the call stays in flight). */
function toolCall(id: string, name: string, args: Record<string, unknown>, gate?: string): Reply {
  return {
    json: chatCompletion(
      { content: null, tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] },
      'tool_calls',
    ),
    ...(gate ? { gate } : {}),
  };
}

/** Every message text of a recorded request, tool results included. */
function texts(req: RecordedRequest | undefined): string {
  return JSON.stringify(req?.body?.messages ?? []);
}

const WIRED = `
[agent]
name = "operated"
model = "openai:gpt-4o"
[context.regions]
task = { kind = "pinned", max_tokens = 500 }
[stages.main]
available_tools = ["current_time", "write_file", "ask_user"]
allow_blocking_tools = true
[tool_permissions]
write_file = "ask"
[run]
ask_timeout = "30m"
`;

/** WIRED where nobody has long to decide: the asks of its runs go unanswered on purpose. */
const WIRED_BRIEFLY = WIRED.replace('ask_timeout = "30m"', 'ask_timeout = "1s"');

const HELD = `
[agent]
name = "held"
model = "openai:gpt-4o"
[context.regions]
task = { kind = "pinned", max_tokens = 500 }
[stages.report]
available_tools = ["current_time"]
accepts_messages = false
[stages.report.transitions.main]
[stages.main]
available_tools = ["current_time"]
`;

describe('people in the loop, seen from the model', () => {
  const env = useRuntime();
  const wire = useWireModel();
  const serve = (script: Reply[]) => wire.serve(script);

  it('writes a message into the conversation right before the inference its receipt names', async () => {
    const gate = newGate('wired-second');
    serve([1, 2, 3, 4].map((i) => toolCall(`t${i}`, 'current_time', {}, i === 2 ? gate : undefined)));
    const handle = await start(env.rt.client, env.rt.taskQueue, WIRED);
    // The second inference is in flight.
    await gateReached(gate);
    const text = 'Look at the billing logs first.';
    const receipt = await sendUpdate<MessageReceipt>(env.rt.client, handle.workflowId, 'message', text);
    expect(receipt).toMatchObject({ stage: 'main', held: false });
    // The same as a signal: nothing comes back, and a later inference reads it.
    await handle.signal('message', 'And the deploy log.');
    openGate(gate);
    const end = await ending(handle);
    await saveHistories(env.rt.client, handle.workflowId);
    expect(end.status).toBe('COMPLETED');
    const turn = receipt.turn as number;
    expect(texts(wire.server.requests[turn - 1])).toContain(text);
    expect(texts(wire.server.requests[turn - 2])).not.toContain(text);
    expect(receipt.stageTurn).toBe(turn);
    expect(texts(wire.server.requests.at(-1))).toContain('And the deploy log.');
  });

  it('holds a message sent to a stage that does not accept messages for the next stage', async () => {
    const gate = newGate('wired-report');
    serve([toolCall('r1', 'current_time', {}, gate), { json: chatCompletion({ content: 'Report written.' }) }]);
    const handle = await start(env.rt.client, env.rt.taskQueue, HELD);
    // The report stage's first inference is in flight.
    await gateReached(gate);
    const receipt = await sendUpdate<MessageReceipt>(env.rt.client, handle.workflowId, 'message', 'Add the timeline.');
    expect(receipt).toEqual({ stage: null, turn: null, stageTurn: null, held: true });
    openGate(gate);
    const end = await ending(handle);
    await saveHistories(env.rt.client, handle.workflowId);
    expect(end.status).toBe('COMPLETED');
    // Neither inference of the report stage saw it; the first one of main did.
    expect(texts(wire.server.requests[1])).not.toContain('Add the timeline.');
    expect(texts(wire.server.requests[2])).toContain('Add the timeline.');
  });

  it('runs an approved call, tells the model about a denied one and one nobody answered', async () => {
    serve([
      toolCall('w1', 'write_file', { path: 'a.txt', content: 'approved\n' }),
      toolCall('w2', 'write_file', { path: 'b.txt', content: 'denied\n' }),
    ]);
    const workdir = tempDir('asks');
    const handle = await startRun(
      env.rt.client,
      {
        blueprint: writeBlueprint(WIRED),
        task: 'Write two files.',
        caller: {},
        workdir,
        options: { ...DEFAULT_RUN_OPTIONS, unattended: false },
      },
      { taskQueue: env.rt.taskQueue },
    );
    const client = env.rt.client;
    const runId = handle.workflowId;
    const waitingFor = (call: string) =>
      until(async () => {
        const p = await runProgress(client, handle);
        return p?.asks.find((a) => a.call === call);
      }, `call ${call} waits`);

    const first = await waitingFor('w1');
    expect(first).toMatchObject({ kind: 'approval', tool: 'write_file', subject: 'write_file a.txt' });
    await until(async () => (await leviathStatus(handle)) === 'waiting' || undefined, 'LeviathStatus waiting');
    expect(await refusalCode(sendUpdate(client, runId, 'approve', { call: 'w9' }))).toBe('call-not-waiting');
    expect(await sendUpdate(client, runId, 'approve', { call: 'w1' })).toEqual({
      call: 'w1',
      tool: 'write_file',
      decision: 'approved',
    });
    await waitingFor('w2');
    expect(await sendUpdate(client, runId, 'deny', { note: 'keep b.txt as it is' })).toMatchObject({
      call: 'w2',
      decision: 'denied',
    });
    const end = await ending(handle);
    await saveHistories(client, runId);
    expect(end.status).toBe('COMPLETED');
    expect(readFileSync(join(workdir, 'a.txt'), 'utf8')).toBe('approved\n');
    expect(existsSync(join(workdir, 'b.txt'))).toBe(false);
    expect(texts(wire.server.requests[2])).toContain(
      '[call-denied] The operator denied write_file b.txt: keep b.txt as it is. The call was not run.',
    );
    expect(await leviathStatus(handle)).toBe('completed');

    // A run of its own for the call nobody answers, whose ask_timeout (1s) is all it waits for: the
    // decisions above have half an hour, so a slow machine never times them out.
    serve([toolCall('w3', 'write_file', { path: 'c.txt', content: 'unanswered\n' })]);
    const unanswered = await startRun(
      client,
      {
        blueprint: writeBlueprint(WIRED_BRIEFLY),
        task: 'Write one file.',
        caller: {},
        workdir,
        options: { ...DEFAULT_RUN_OPTIONS, unattended: false },
      },
      { taskQueue: env.rt.taskQueue },
    );
    expect((await ending(unanswered)).status).toBe('COMPLETED');
    await saveHistories(client, unanswered.workflowId);
    expect(existsSync(join(workdir, 'c.txt'))).toBe(false);
    expect(texts(wire.server.requests[1])).toContain(
      '[ask-timed-out] Nobody approved write_file within 1s; the call was not run.',
    );
    expect(await leviathStatus(unanswered)).toBe('completed');
  });

  it('asks inline at the terminal, and closes the question there when it is answered elsewhere', async () => {
    serve([
      toolCall('w1', 'write_file', { path: 'a.txt', content: 'yes\n' }),
      toolCall('w2', 'write_file', { path: 'b.txt', content: 'no\n' }),
    ]);
    const workdir = tempDir('inline');
    const client = env.rt.client;
    const handle = await startRun(
      client,
      {
        blueprint: writeBlueprint(WIRED),
        task: 'Write two files.',
        caller: {},
        workdir,
        options: { ...DEFAULT_RUN_OPTIONS, unattended: false },
      },
      { taskQueue: env.rt.taskQueue },
    );
    const input = new PassThrough();
    const output = new PassThrough();
    let shown = '';
    output.on('data', (d) => {
      shown += String(d);
    });
    const following = followRun(client, handle, () => {}, {
      intervalMs: 100,
      onWaiting: terminalAnswers(client, handle.workflowId, { input, output }),
    });
    await until(() => shown.includes('approve `write_file a.txt` (call w1)? [y/N/note]') || undefined, 'the w1 prompt');
    input.write('y\n');
    await until(() => shown.includes('(call w2)') || undefined, 'the w2 prompt');
    // The same question answered in the Web UI (here: the update it sends) closes the prompt.
    await sendUpdate(client, handle.workflowId, 'deny', { call: 'w2', note: 'decided in the UI' });
    await until(() => shown.includes('(answered elsewhere)') || undefined, 'the prompt closes');
    expect((await following).status).toBe('completed');
    await saveHistories(client, handle.workflowId);
    expect(readFileSync(join(workdir, 'a.txt'), 'utf8')).toBe('yes\n');
    expect(existsSync(join(workdir, 'b.txt'))).toBe(false);
    expect(texts(wire.server.requests[2])).toContain('decided in the UI');
  });

  it('answers an ask_user question with the answer update, and refuses it when nobody attends', async () => {
    serve([toolCall('q1', 'ask_user', { question: 'Which branch should I use?' })]);
    const attended = await start(env.rt.client, env.rt.taskQueue, WIRED, { unattended: false });
    const ask = await until(async () => (await runProgress(env.rt.client, attended))?.asks[0], 'the question waits');
    expect(ask).toMatchObject({ kind: 'answer', call: 'q1', subject: 'Which branch should I use?' });
    expect(await sendUpdate(env.rt.client, attended.workflowId, 'answer', 'the release branch')).toEqual({
      call: 'q1',
      question: 'Which branch should I use?',
    });
    expect((await ending(attended)).status).toBe('COMPLETED');
    await saveHistories(env.rt.client, attended.workflowId);
    expect(texts(wire.server.requests[1])).toContain('the release branch');

    serve([toolCall('q2', 'ask_user', { question: 'Anyone there?' })]);
    const alone = await start(env.rt.client, env.rt.taskQueue, WIRED);
    expect((await ending(alone)).status).toBe('COMPLETED');
    await saveHistories(env.rt.client, alone.workflowId);
    expect(texts(wire.server.requests[1])).toContain('[ask-user-unattended]');
  });
});

/** `lev …` as a person runs it against this lane's server, in this process (test/cli/lev-in-process.ts). */
function lev(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return levInProcess([...args, '--address', temporalAddress()]);
}

describe('the operator commands', () => {
  const env = useRuntime();

  it('pause, msg, resume and cancel a run, and print refusals as coded errors', async () => {
    // The gate opens only after the cancel: the run is live until then.
    const gate = newGate('commands');
    const handle = await start(env.rt.client, env.rt.taskQueue, looping(gate));
    const runId = handle.workflowId;
    await gateReached(gate);
    const paused = await lev(['pause', runId]);
    expect(paused).toMatchObject({ code: 0 });
    expect(paused.stdout).toContain(`run ${runId} paused: stage main stops before its next inference`);
    const msg = await lev(['msg', runId, 'Wrap up soon.', '--json']);
    expect(JSON.parse(msg.stdout)).toMatchObject({ stage: 'main', held: false });
    const approve = await lev(['approve', runId]);
    expect(approve.code).toBe(1);
    expect(approve.stderr).toMatch(/^error \[nothing-pending\] No tool call waits for a decision/);
    expect((await lev(['resume', runId])).stdout).toContain(`run ${runId} resumed`);
    const cancelled = await lev(['cancel', runId, '--wait']);
    expect(cancelled.stdout).toContain(`run ${runId} ended: CANCELLED`);
    await saveHistories(env.rt.client, runId);
    // A cancelled run has no result: what it had comes from its memo.
    const result = await lev(['result', runId, '--json']);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'cancelled', stages: ['main'] });
    const again = await lev(['msg', runId, 'hello?']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^error \[run-finished\]/);
  });
});
