/**
 * Leviath on the real Temporal server, not the dev server: `temporal-server`
 * v1.32 built from the Go module go.temporal.io/server, on PostgreSQL
 * (test/integration/real-server.ts, docs/cluster.md#the-real-server-from-source),
 * with `lev worker` processes sharing the Postgres blob store on the same
 * database server, as the compose file runs them.
 *
 * 1. The worker holding a run's turn (held at a scripted gate) is SIGKILLed
 *    mid-turn; the other worker finishes it.
 * 2. The server is stopped while a turn is in flight and started again; the
 *    run completes.
 * 3. A nested fan-out whose item ids make its workers' ids pass the 255
 *    characters the SQL store keeps completes, every id within them
 *    (docs/reference/sub-agents.md#ids); the server itself refuses a longer one.
 *
 * Never skipped: without Go or PostgreSQL the set-up fails and says how to get them.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { gateReached, openGate } from '../../src/providers/index.js';
import { childRunId, MAX_WORKFLOW_ID } from '../../src/runtime/index.js';
import { DEFAULT_RUN_OPTIONS, type RunResult } from '../../src/runtime/types.js';
import { followRun, startRun } from '../../src/worker/run-client.js';
import { crashScript } from './fixtures/crash-script.js';
import { type RealServer, startRealServer } from './real-server.js';
import { saveHistories, tempDir, writeBlueprint } from './run-helpers.js';

const ROOT = join(import.meta.dirname, '..', '..');
const LEV = join(ROOT, 'bin', 'lev.mjs');

const CLUSTERED = `
[agent]
name = "clustered"
model = "scripted:script.toml"

[models."scripted:script.toml"]
context_window = 32000

[context.regions]
task  = { kind = "pinned", max_tokens = 500 }
notes = { kind = "temporary", max_tokens = 400 }
files = { kind = "compacting", max_tokens = 3000 }

[stages.main]
max_iterations = 20
[stages.main.tool_routing]
default_region = "files"
`;

let server: RealServer;
let connection: Connection;
let client: Client;
const children: ChildProcess[] = [];

beforeAll(async () => {
  server = await startRealServer();
  connection = await Connection.connect({ address: server.address });
  client = new Client({ connection });
  // Building the server from source the first time takes minutes; later runs find it cached.
}, 1_800_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await connection?.close();
  await server?.close();
});

/** `lev worker` in its own process on the real server, with a home of its own; resolves once it polls. */
function levWorker(queue: string, extra: Record<string, string> = {}): Promise<ChildProcess> {
  const { LEVIATH_BLOB_DIR: _dir, ...rest } = process.env;
  const child = spawn(process.execPath, [LEV, 'worker'], {
    cwd: ROOT,
    env: {
      ...rest,
      TEMPORAL_ADDRESS: server.address,
      LEVIATH_TASK_QUEUE: queue,
      LEVIATH_BUNDLE: inject('workflowBundlePath'),
      LEVIATH_BLOBS: server.blobsUrl,
      LEVIATH_HOME: tempDir('home'),
      LEVIATH_CONFIG: join(tempDir('no-config'), 'config.toml'),
      ...extra,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let log = '';
  child.stderr?.on('data', (d) => {
    log = (log + String(d)).slice(-4000);
  });
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (d) => {
      if (String(d).includes('polling task queue')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`lev worker exited early with ${code}:\n${log}`)));
  });
}

/** How many turns the scripted model served the run, from its log. */
function turnsServed(log: string, runId: string): number {
  if (!existsSync(log)) return 0;
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { runId: string; purpose: string })
    .filter((s) => s.runId === runId && s.purpose === 'turn').length;
}

/** Which worker identities started the activities of a workflow, in order. */
async function activityWorkers(workflowId: string): Promise<string[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((e) => e.activityTaskStartedEventAttributes?.identity ?? []);
}

/** Which worker identity holds the run's call in flight now, from the pending activities of its first visit. */
async function holderOf(runId: string): Promise<string | undefined> {
  const { raw } = await client.workflow.getHandle(`${runId}.1.main`).describe();
  return raw.pendingActivities?.find((a) => a.lastWorkerIdentity)?.lastWorkerIdentity ?? undefined;
}

/** The crash tests' run, its third turn held at `gate` until the test opens it. */
function crashRun(workdir: string, gate: string) {
  const bp = writeBlueprint(CLUSTERED, { 'script.toml': crashScript({ gate }) });
  writeFileSync(join(workdir, 'data.txt'), 'line of data\n'.repeat(400));
  const options = { ...DEFAULT_RUN_OPTIONS, heartbeatTimeoutSecs: 2, inferenceTimeoutSecs: 60 };
  return { blueprint: bp, task: 'note six observations', caller: {}, workdir, options };
}

describe('the real Temporal server on PostgreSQL', () => {
  it('finishes a run on the other lev worker after the one holding its turn is SIGKILLed mid-turn', async () => {
    const gate = `real-crash-${process.pid}`;
    const gates = tempDir('gates');
    const queue = `real-crash-${Date.now()}`;
    const workers = await Promise.all([
      levWorker(queue, { LEVIATH_SCRIPTED_GATES: gates }),
      levWorker(queue, { LEVIATH_SCRIPTED_GATES: gates }),
    ]);
    const handle = await startRun(client, crashRun(tempDir('work'), gate), { taskQueue: queue });
    // The third turn waits at the gate on one of the two: that one dies with the call in flight.
    await gateReached(gate, { dir: gates });
    const holder = await holderOf(handle.workflowId);
    const dead = workers.find((w) => holder === `${w.pid}@${hostname()}`);
    const survivor = workers.find((w) => w !== dead);
    expect(dead, `the call is held by ${holder}`).toBeDefined();
    dead?.kill('SIGKILL');
    openGate(gate, gates);

    const result = await followRun(client, handle, () => {});
    await saveHistories(client, handle.workflowId);
    expect(result.status).toBe('completed');
    expect(result.output).toBe('All steps done.');
    expect(result.regions.find((r) => r.name === 'notes')?.entries).toBeGreaterThan(0);
    // The last activities of the visit ran on the worker that lived.
    const visit = await activityWorkers(`${handle.workflowId}.1.main`);
    expect(visit.at(-1)).toBe(`${survivor?.pid}@${hostname()}`);
    expect(visit).toContain(`${survivor?.pid}@${hostname()}`);
  });

  it('completes a run whose server was stopped and started again mid-run', async () => {
    const gate = `real-restart-${process.pid}`;
    const gates = tempDir('gates');
    const log = join(tempDir('served'), 'served.jsonl');
    const queue = `real-restart-${Date.now()}`;
    const worker = await levWorker(queue, { LEVIATH_SCRIPTED_LOG: log, LEVIATH_SCRIPTED_GATES: gates });
    const handle = await startRun(client, crashRun(tempDir('work'), gate), { taskQueue: queue });
    // The third turn is in flight, held at the gate, while the server goes down and comes back.
    await gateReached(gate, { dir: gates });
    await server.stop();
    const servedWhileDown = turnsServed(log, handle.workflowId);
    await server.start();
    openGate(gate, gates);

    const result = await followRun(client, handle, () => {});
    expect(result.status, server.log()).toBe('completed');
    expect(result.output).toBe('All steps done.');
    // The same worker process went on once the server was back, and served the turns left.
    expect(worker.exitCode).toBeNull();
    expect(turnsServed(log, handle.workflowId)).toBeGreaterThan(servedWhileDown);
    await saveHistories(client, handle.workflowId);
  });

  it('runs a nested fan-out whose long item ids pass the id length the SQL store keeps, within it', async () => {
    // Item ids as a model writes them, paths of about 130 characters (150 encoded): a worker's id
    // is its parent's id, `/` and the encoded item id, so the second level passes 255 characters.
    const path = (name: string) =>
      `services/billing/reconciliation/monthly-statements/2026/december/${name}/ledger-discrepancies-summary-of-findings.md`;
    const halves = ['north-region', 'south-region'].map((n) => ({ id: path(n), context: `the ${n} half` }));
    const quarters = ['east-quarter', 'west-quarter'].map((n) => ({ id: path(n), context: `the ${n}` }));
    const script = `
[[turns]]
stage = "split"
[[turns.tool_calls]]
name = "fan_out"
arguments = { items = ${JSON.stringify(halves).replace(/"(id|context)":/g, '$1 = ')} }

[[turns]]
stage = "halve"
[[turns.tool_calls]]
name = "fan_out"
arguments = { items = ${JSON.stringify(quarters).replace(/"(id|context)":/g, '$1 = ')} }

[[turns]]
stage = "leaf"
text = "leaf done"

[[turns]]
stage = "merge"
text = "All four quarters done."
`;
    const bp = writeBlueprint(
      `
[agent]
name = "nested"
model = "scripted:script.toml"
[context.regions]
task = { kind = "pinned", max_tokens = 2000, seed = "task_input" }
[stages.split]
mode = "fan_out"
worker_stage = "halve"
merge_stage = "merge"
[stages.halve]
allow_as_worker = true
mode = "fan_out"
worker_stage = "leaf"
[stages.leaf]
allow_as_worker = true
[stages.merge]
`,
      { 'script.toml': script },
    );
    const queue = `real-nested-${Date.now()}`;
    await levWorker(queue);
    const handle = await startRun(
      client,
      { blueprint: bp, task: 'Split in four.', caller: {}, workdir: tempDir('work'), options: DEFAULT_RUN_OPTIONS },
      { taskQueue: queue },
    );
    const result = (await followRun(client, handle, () => {})) as RunResult;
    expect(result.status, server.log()).toBe('completed');
    expect(result.output).toBe('All four quarters done.');

    const runId = handle.workflowId;
    const ids: string[] = [];
    for await (const wf of client.workflow.list({ query: `WorkflowId STARTS_WITH '${runId}'` }))
      ids.push(wf.workflowId);
    // The run, its two visits, two halves and four quarters, each within the limit.
    expect(ids).toHaveLength(9);
    for (const id of ids) expect(id.length).toBeLessThanOrEqual(MAX_WORKFLOW_ID);
    const shortened = ids.filter((id) => /~[0-9a-f]{16}$/.test(id));
    expect(shortened).toHaveLength(4);
    for (const id of shortened) expect(id).toHaveLength(MAX_WORKFLOW_ID);
    // Whole, a quarter's id would not have fitted.
    const half = childRunId(runId, halves[0]!.id);
    expect(ids).toContain(half);
    expect(childRunId(half, quarters[0]!.id).length).toBeGreaterThan(MAX_WORKFLOW_ID);
    await saveHistories(client, runId);
  });

  it('refuses a workflow id one character past 255, so the limit is the SQL store’s', async () => {
    const start = (id: string, by = client) =>
      by.workflow.start('pingWorkflow', { taskQueue: `real-limit-${Date.now()}`, workflowId: id, args: ['limit'] });
    const fits = await start(`limit-${'x'.repeat(MAX_WORKFLOW_ID - 6)}`);
    expect(fits.workflowId).toHaveLength(MAX_WORKFLOW_ID);
    await fits.terminate('only its start mattered');
    // The frontend's own check (limit.maxIDLength, 1,000) lets it through; PostgreSQL refuses it,
    // which the server answers as UNAVAILABLE. A client retries that for about 20 s before it
    // fails; this one asks once, since the refusal is the subject, not the client's patience.
    const once = await Connection.connect({
      address: server.address,
      interceptors: [makeGrpcRetryInterceptor(defaultGrpcRetryOptions({ maxAttempts: 1 }))],
    });
    try {
      const refused = await start(`limit-${'y'.repeat(MAX_WORKFLOW_ID - 5)}`, new Client({ connection: once })).then(
        () => undefined,
        (err: Error & { cause?: { code?: number; details?: string } }) => err.cause ?? { details: err.message },
      );
      expect(refused?.details).toMatch(/value too long for type character varying\(255\)/);
      // UNAVAILABLE is gRPC's status 14.
      expect(refused?.code).toBe(14);
    } finally {
      await once.close();
    }
  });
});
