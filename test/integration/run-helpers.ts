/**
 * Running whole agents against the real dev server: a worker with its own
 * task queue and blob folder, blueprints written to temporary directories,
 * scripted models registered in-process, and the histories kept for the
 * replay test.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ApplicationFailure, type Client, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import proto from '@temporalio/proto';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { loadBlueprint } from '../../src/blueprint/load.js';
import { renderPrompt } from '../../src/context/render.js';
import { registerScript } from '../../src/providers/index.js';
import type { ScriptInput } from '../../src/providers/scripted-script.js';
import type { InferInput } from '../../src/runtime/activity-types.js';
import { RunStore } from '../../src/runtime/node/run-store.js';
import type { RecordedOp } from '../../src/runtime/ops.js';
import {
  DEFAULT_RUN_OPTIONS,
  type Progress,
  type RunOptions,
  type RunResult,
  type StageOutcome,
} from '../../src/runtime/types.js';
import type { Blueprint } from '../../src/shapes/frozen-blueprint.js';
import { createWorker } from '../../src/worker/create-worker.js';
import { followRun, startRun } from '../../src/worker/run-client.js';
import { chatCompletion, type Reply, startWireServer, type WireServer } from '../providers/wire-server.js';
import { connectClient, temporalAddress } from './helpers.js';
import { recordWritten } from './replay-histories.js';

/** Where integration tests leave histories (binary protobuf, `.history` files) for their replay (replay-histories.ts). */
export function historiesDir(): string {
  const dir = join(inject('integrationTmp'), 'histories');
  mkdirSync(dir, { recursive: true });
  return dir;
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(inject('integrationTmp'), `${prefix}-`));
}

/** Writes `agent.toml` (and any extra files) to a fresh directory and loads it; throws on diagnostics errors. */
export function writeBlueprint(toml: string, files: Record<string, string> = {}): Blueprint {
  const dir = tempDir('bp');
  writeFileSync(join(dir, 'agent.toml'), toml);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  const loaded = loadBlueprint(dir);
  if (!loaded.blueprint)
    throw new Error(`blueprint invalid: ${loaded.diagnostics.map((d) => `${d.code}: ${d.message}`).join('\n')}`);
  return loaded.blueprint;
}

let scriptCounter = 0;

/** Registers a scripted model for this process and returns its `scripted:<name>` ref. */
export function scriptedModel(script: ScriptInput): string {
  const name = `test-script-${process.pid}-${++scriptCounter}`;
  registerScript(name, script);
  return `scripted:${name}`;
}

export interface TestRuntime {
  client: Client;
  taskQueue: string;
  blobDir: string;
  /** How many activities the worker runs right now (a call held at a gate is one). */
  activitiesInFlight(): number;
  stop(): Promise<void>;
}

/** A worker of Leviath's workflows and activities for `client`'s runs: on the lane's dev server, or at `address`. */
export async function startRuntime(
  client: Client,
  opts: { taskQueue?: string; address?: string } = {},
): Promise<TestRuntime> {
  const taskQueue = opts.taskQueue ?? `rt-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
  const blobDir = tempDir('blobs');
  const { worker, connection } = await createWorker({
    address: opts.address ?? temporalAddress(),
    taskQueue,
    bundle: { codePath: inject('workflowBundlePath') },
    runtime: { blobDir, env: process.env },
  });
  const running = worker.run();
  return {
    client,
    taskQueue,
    blobDir,
    activitiesInFlight: () => worker.getStatus().numInFlightActivities,
    stop: async () => {
      worker.shutdown();
      await running;
      await connection.close();
    },
  };
}

/**
 * A client and a worker for the tests of one `describe` block, started
 * before them and stopped after them. Read `env.conn` and `env.rt` inside
 * the tests (they are set once `beforeAll` has run).
 */
export function useRuntime(): { conn: Awaited<ReturnType<typeof connectClient>>; rt: TestRuntime } {
  const env = {} as { conn: Awaited<ReturnType<typeof connectClient>>; rt: TestRuntime };
  beforeAll(async () => {
    env.conn = await connectClient();
    env.rt = await startRuntime(env.conn.client);
  });
  afterAll(async () => {
    await env.rt?.stop();
    await env.conn?.connection.close();
  });
  return env;
}

export interface RunOutcome {
  result: RunResult;
  handle: WorkflowHandle;
  turns: Progress[];
}

export async function runAgent(
  rt: TestRuntime,
  bp: Blueprint,
  opts: {
    task?: string;
    caller?: Record<string, string>;
    workdir?: string;
    options?: Partial<RunOptions>;
    workflowId?: string;
  } = {},
): Promise<RunOutcome> {
  const handle = await startRun(
    rt.client,
    {
      blueprint: bp,
      ...(opts.task !== undefined ? { task: opts.task } : {}),
      caller: opts.caller ?? {},
      workdir: opts.workdir ?? tempDir('work'),
      options: { ...DEFAULT_RUN_OPTIONS, ...opts.options },
    },
    { taskQueue: rt.taskQueue, ...(opts.workflowId ? { workflowId: opts.workflowId } : {}) },
  );
  const turns: Progress[] = [];
  const result = await followRun(rt.client, handle, (p) => turns.push(p), 100);
  await saveHistories(rt.client, handle.workflowId);
  return { result, handle, turns };
}

/** The failure a run ended with, once it has failed, its histories kept for the replay test. */
export async function failureOf(client: Client, handle: WorkflowHandle): Promise<ApplicationFailure> {
  const err = await handle.result().then(
    () => undefined,
    (e: unknown) => e,
  );
  await saveHistories(client, handle.workflowId);
  expect(err).toBeInstanceOf(WorkflowFailedError);
  return (err as WorkflowFailedError).cause as ApplicationFailure;
}

/** Keeps the histories of the run, its stage visits and its sub-agents (`<run id>/...`) for the file's replay. */
export async function saveHistories(client: Client, runId: string): Promise<void> {
  for await (const wf of client.workflow.list({
    query: `WorkflowId = '${runId}' OR WorkflowId STARTS_WITH '${runId}.' OR WorkflowId STARTS_WITH '${runId}/'`,
  })) {
    writeHistory(wf.workflowId, wf.runId, await client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory());
  }
}

/** Keeps one history of a workflow run, which this file's replay reads once its tests are done (replay-histories.ts). */
export function writeHistory(workflowId: string, runId: string, history: proto.temporal.api.history.v1.IHistory): void {
  const dir = historiesDir();
  // A sub-agent's id holds `/`, so the file name carries the id percent-encoded; one too long for
  // a file name (255 bytes) is named by its hash, `~<hash>`, and the id is kept in `~<hash>.id`.
  let name = encodeURIComponent(workflowId);
  if (name.length > 150) {
    name = `~${createHash('sha256').update(workflowId).digest('hex').slice(0, 16)}`;
    writeFileSync(join(dir, `${name}.id`), workflowId);
  }
  const path = join(dir, `${name}--${runId}.history`);
  writeFileSync(path, proto.temporal.api.history.v1.History.encode(history).finish());
  recordWritten(path, workflowId);
}

/**
 * Every operation a finished stage visit recorded, in order, read back from
 * history: each snapshot's operations as the last `infer` or `saveSnapshot`
 * call built on it carried them, then the ones the visit handed back. The
 * inference folds the log into snapshots as it goes
 * (docs/architecture.md#event-sourcing), so the outcome alone holds only the last few.
 *
 * `workflowId` is a stage visit's, or a fan-out worker run's: a worker runs
 * its visits inside its own history (docs/reference/sub-agents.md#one-workflow-per-worker),
 * and its result is a run's, with no carried operations, so its last ones are
 * those its last inference was given.
 */
export async function visitOps(client: Client, workflowId: string): Promise<RecordedOp[]> {
  const handle = client.workflow.getHandle(workflowId);
  const { carried } = (await handle.result()) as Partial<StageOutcome>;
  const byBase = new Map<string | null, readonly RecordedOp[]>();
  for (const e of (await handle.fetchHistory()).events ?? []) {
    const a = e.activityTaskScheduledEventAttributes;
    const name = a?.activityType?.name;
    if (name !== 'infer' && name !== 'saveSnapshot') continue;
    const input = defaultPayloadConverter.fromPayload<Pick<InferInput, 'base' | 'ops'>>(a!.input!.payloads![0]!);
    if ((byBase.get(input.base)?.length ?? -1) < input.ops.length) byBase.set(input.base, input.ops);
  }
  if (carried) byBase.set(carried.snapshot, carried.ops);
  return [...byBase.values()].flat();
}

/** The ids of the patches a history recorded markers for (`patched()` calls that took the new path), in order. */
export function patchIds(history: proto.temporal.api.history.v1.IHistory): string[] {
  return (history.events ?? []).flatMap((e) => {
    const data = e.markerRecordedEventAttributes?.details?.['patch-data']?.payloads?.[0];
    return data ? [defaultPayloadConverter.fromPayload<{ id: string }>(data).id] : [];
  });
}

/**
 * Environment variables a describe block sets for its runs (a provider's base URL and key, say):
 * `set` remembers each variable's first value, `restore` puts them all back (unset where they were).
 */
export function scopedEnv(): { set(vars: Record<string, string | undefined>): void; restore(): void } {
  const saved = new Map<string, string | undefined>();
  return {
    set(vars) {
      for (const [name, value] of Object.entries(vars)) {
        if (!saved.has(name)) saved.set(name, process.env[name]);
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    },
    restore() {
      for (const [name, value] of saved) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      saved.clear();
    },
  };
}

/**
 * A local OpenAI-compatible model server for the runs of one `describe`
 * block: `serve` queues its answers (then `Done.`), `server.requests` holds
 * what the runs sent. `env` adds variables (a provider timeout, say).
 */
export function useWireModel(env: Record<string, string> = {}): {
  readonly server: WireServer;
  serve(replies: Reply[]): void;
} {
  const vars = scopedEnv();
  let server: WireServer | undefined;
  let replies: Reply[] = [];
  beforeAll(async () => {
    server = await startWireServer(() => replies.shift() ?? { json: chatCompletion({ content: 'Done.' }) });
    vars.set({ OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: 'sk-wire-model-0123456789abcdef', ...env });
  });
  afterAll(async () => {
    await server?.close();
    vars.restore();
  });
  return {
    get server() {
      if (!server) throw new Error('the wire model starts in beforeAll');
      return server;
    },
    serve(script) {
      if (server) server.requests.length = 0;
      replies = script;
    },
  };
}

type Payloads = { payloads?: Parameters<typeof defaultPayloadConverter.fromPayload>[0][] | null } | null | undefined;

function first<T>(p: Payloads): T {
  const payload = p?.payloads?.[0];
  if (!payload) throw new Error('event without a payload');
  return defaultPayloadConverter.fromPayload<T>(payload);
}

/** The inputs of every activity of the run and its stage visits, by activity type. */
export async function activityInputs(client: Client, runId: string, type: string): Promise<unknown[]> {
  const out: unknown[] = [];
  const ids = [runId];
  for (let i = 0; i < ids.length; i++) {
    for (const e of (await client.workflow.getHandle(ids[i]!).fetchHistory()).events ?? []) {
      const child = e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
      if (child) ids.push(child);
      const a = e.activityTaskScheduledEventAttributes;
      if (a?.activityType?.name === type) out.push(first(a.input));
    }
  }
  return out;
}

/** What the model was shown on each turn, as text, rebuilt from the recorded inference inputs. */
export async function promptsSeen(rt: TestRuntime, bp: Blueprint, runId: string): Promise<string[]> {
  const store = new RunStore({ blobDir: rt.blobDir, env: process.env });
  const inputs = (await activityInputs(rt.client, runId, 'infer')) as InferInput[];
  inputs.sort((a, b) => a.turn - b.turn);
  const seen: string[] = [];
  for (const input of inputs) {
    const state = await store.state(`${input.runId}-seen-${seen.length}`, bp, input.base, input.ops);
    seen.push(JSON.stringify(renderPrompt(state, bp, { now: 0 }, { iteration: input.stageTurn })));
  }
  return seen;
}
