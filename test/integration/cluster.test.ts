/**
 * Leviath as a cluster on one machine: `lev worker` processes with their own
 * LEVIATH_HOME folders sharing a PostgreSQL blob store (a throwaway server
 * from Debian's packages, or LEVIATH_TEST_PG), against the shared dev server.
 *
 * 1. The worker holding a run is SIGKILLed mid-turn (its third turn held at a
 *    scripted gate); a worker with another home folder finishes it with the
 *    regions of an undisturbed run (beside it, on a worker in the test's
 *    process), reading the blobs the dead worker wrote. `lev blobs gc` then keeps the blobs of runs Temporal knows
 *    and deletes those of a run it never knew.
 * 2. Tool calls and seeds go to the tool worker of the workdir: while none
 *    runs, the run waits and says so; once `lev worker --tools` starts, the
 *    run finishes, and every tool call and seed ran on that worker, every
 *    inference on the shared one.
 * 3. A blueprint pushed with `lev blueprint push` from one home is in the
 *    PostgreSQL store too, so a worker with another home runs it by
 *    reference (docs/reference/cluster-runs.md#the-store).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { gateReached, openGate } from '../../src/providers/index.js';
import { toolQueueName } from '../../src/runtime/node/tool-queue-name.js';
import { DEFAULT_RUN_OPTIONS, type RunResult } from '../../src/runtime/types.js';
import { followRun, startRun, type ToolWait } from '../../src/worker/run-client.js';
import { startTestPg, type TestPg } from '../blobs/pg-server.js';
import { lev } from '../cli/lev-in-process.js';
import { crashScript } from './fixtures/crash-script.js';
import { connectClient, temporalAddress } from './helpers.js';
import { saveHistories, startRuntime, tempDir, writeBlueprint } from './run-helpers.js';
import { waitFor } from './worker-processes.js';

const ROOT = join(import.meta.dirname, '..', '..');
const LEV = join(ROOT, 'bin', 'lev.mjs');

const BLUEPRINT = `
[agent]
name = "clustered"
model = "scripted:script.toml"

[models."scripted:script.toml"]
context_window = 32000

[context.regions]
task  = { kind = "pinned", max_tokens = 500 }
brief = { kind = "pinned", max_tokens = 500, seed = { files = ["brief.txt"] } }
notes = { kind = "temporary", max_tokens = 400 }
files = { kind = "compacting", max_tokens = 3000 }

[stages.main]
max_iterations = 20
[stages.main.tool_routing]
default_region = "files"
`;

let db: TestPg;
let conn: Awaited<ReturnType<typeof connectClient>>;
const children: ChildProcess[] = [];

function env(extra: Record<string, string>): NodeJS.ProcessEnv {
  const { LEVIATH_BLOB_DIR: _dir, LEVIATH_BLOBS: _blobs, ...rest } = process.env;
  return {
    ...rest,
    TEMPORAL_ADDRESS: temporalAddress(),
    LEVIATH_BUNDLE: inject('workflowBundlePath'),
    LEVIATH_BLOBS: db.url,
    LEVIATH_CONFIG: join(tempDir('no-config'), 'config.toml'),
    ...extra,
  };
}

/**
 * What a `lev` command run in this process (`lev-in-process.ts`) sees: the
 * lane's server, the shared store and a home of its own; the workers are the
 * processes here, the commands only ask and print.
 */
function levEnv(extra: Record<string, string> = {}): Record<string, string | undefined> {
  return {
    TEMPORAL_ADDRESS: temporalAddress(),
    LEVIATH_BLOB_DIR: undefined,
    LEVIATH_BLOBS: db.url,
    LEVIATH_CONFIG: join(tempDir('no-config'), 'config.toml'),
    LEVIATH_HOME: tempDir('command-home'),
    ...extra,
  };
}

/** `lev worker …` in its own process, with a LEVIATH_HOME of its own; resolves once it polls. */
function levWorker(args: string[], extra: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [LEV, 'worker', ...args], {
    cwd: ROOT,
    env: env({ LEVIATH_HOME: tempDir('home'), ...extra }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  // The worker logs every state change; keep the tail for a worker that dies before it polls.
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

function comparable(result: RunResult) {
  return result.regions.map(({ name, kind, tokens, entries }) => ({ name, kind, tokens, entries }));
}

function workdirWithData(): string {
  const workdir = tempDir('cluster-work');
  writeFileSync(join(workdir, 'data.txt'), 'line of data\n'.repeat(400));
  writeFileSync(join(workdir, 'brief.txt'), 'Keep every observation.\n');
  return workdir;
}

/** Which worker identity started each activity of the run and its stage visits. */
async function startedBy(runId: string, stageIds: string[]): Promise<{ type: string; identity: string }[]> {
  const out: { type: string; identity: string }[] = [];
  for (const id of [runId, ...stageIds]) {
    const history = await conn.client.workflow.getHandle(id).fetchHistory();
    const types = new Map<string, string>();
    for (const e of history.events ?? []) {
      const scheduled = e.activityTaskScheduledEventAttributes;
      if (scheduled) types.set(String(e.eventId), scheduled.activityType?.name ?? '');
      const started = e.activityTaskStartedEventAttributes;
      if (started)
        out.push({ type: types.get(String(started.scheduledEventId)) ?? '', identity: started.identity ?? '' });
    }
  }
  return out;
}

beforeAll(async () => {
  db = await startTestPg();
  conn = await connectClient();
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await conn?.connection.close();
  await db?.stop();
});

describe('workers with their own homes sharing the Postgres blob store', () => {
  it('finish a run whose worker was killed mid-turn, with the regions of an undisturbed run', async () => {
    const gate = `cluster-turn-3-${process.pid}`;
    const bp = writeBlueprint(BLUEPRINT, { 'script.toml': crashScript({ gate }) });
    const workdir = workdirWithData();
    const options = { ...DEFAULT_RUN_OPTIONS, heartbeatTimeoutSecs: 2, inferenceTimeoutSecs: 60 };
    const input = { blueprint: bp, task: 'note six observations', caller: {}, workdir, options };

    // The undisturbed run goes alongside on a worker in this process, where the gate is open; the
    // worker processes watch a folder of gates where it is not, yet.
    openGate(gate);
    const gates = tempDir('crash-gates');
    const queue = `cluster-crash-${Date.now()}`;
    const [calmWorker, first] = await Promise.all([
      startRuntime(conn.client),
      levWorker([], { LEVIATH_TASK_QUEUE: queue, LEVIATH_SCRIPTED_GATES: gates }),
    ]);
    const calmRun = startRun(conn.client, input, { taskQueue: calmWorker.taskQueue })
      .then((h) => followRun(conn.client, h, () => {}))
      .finally(() => calmWorker.stop());
    const handle = await startRun(conn.client, input, { taskQueue: queue });
    // The third turn's call waits at the gate on the first worker: it dies with the call in flight.
    await gateReached(gate, { dir: gates });
    first.kill('SIGKILL');

    // Another home, so nothing of the first worker's local folder is there.
    await levWorker([], { LEVIATH_TASK_QUEUE: queue, LEVIATH_SCRIPTED_GATES: gates });
    openGate(gate, gates);
    const [result, calm] = await Promise.all([followRun(conn.client, handle, () => {}), calmRun]);
    await saveHistories(conn.client, handle.workflowId);

    expect(calm.status).toBe('completed');
    expect(result.status).toBe('completed');
    expect(comparable(result)).toEqual(comparable(calm));
    expect(result.output).toBe(calm.output);
    expect(result.regions.find((r) => r.name === 'files')?.entries).toBeGreaterThan(0);

    // gc: every blob belongs to a run Temporal knows, except one of a run it never had.
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    const stray = 'f'.repeat(64);
    await c.query(`INSERT INTO leviath_blobs (hash, bytes, body) VALUES ($1, 1, 'x')`, [stray]);
    await c.query(`INSERT INTO leviath_blob_refs (run_id, hash) VALUES ('never-a-run', $1)`, [stray]);
    const before = Number((await c.query('SELECT count(*) AS n FROM leviath_blobs')).rows[0].n);
    const gc = await lev(['blobs', 'gc', '--older-than', '0s', '--json'], { env: levEnv() });
    expect(gc.code, gc.stderr).toBe(0);
    const report = JSON.parse(gc.stdout) as { blobsDeleted: number; runsForgotten: number; blobsKept: number };
    expect(report).toMatchObject({ blobsDeleted: 1, runsForgotten: 1, blobsKept: before - 1 });
    expect((await c.query('SELECT 1 FROM leviath_blobs WHERE hash = $1', [stray])).rowCount).toBe(0);
    await c.end();
  });
});

describe('tool calls on the tool queue of the workdir', () => {
  it('wait for the tool worker, then run only there, while inference runs on the shared worker', async () => {
    const bp = writeBlueprint(BLUEPRINT, { 'script.toml': crashScript() });
    const workdir = workdirWithData();
    const queue = `cluster-shared-${Date.now()}`;
    const toolQueue = toolQueueName(workdir);
    const shared = await levWorker([], { LEVIATH_TASK_QUEUE: queue });
    const handle = await startRun(
      conn.client,
      {
        blueprint: bp,
        task: 'note six observations',
        caller: {},
        workdir,
        options: { ...DEFAULT_RUN_OPTIONS, toolTaskQueue: toolQueue },
      },
      { taskQueue: queue },
    );

    const health = (queue: string) => lev(['worker', '--health', '--task-queue', queue], { env: levEnv() });
    // The server lists a poller once the worker's first poll has reached it, a moment after the worker says it polls.
    await waitFor(async () => (await health(queue)).code === 0, 30_000);
    expect(await health(queue)).toMatchObject({ code: 0, stdout: expect.stringMatching(/ok {3}poller/) });
    expect(await health(toolQueue)).toMatchObject({ code: 1, stdout: expect.stringMatching(/FAIL poller/) });

    // No tool worker yet: the seeds wait on the tool queue and following the run says so; the tool
    // worker starts then, and following says it is back.
    const waits: (ToolWait | undefined)[] = [];
    let tools: Promise<ChildProcess> | undefined;
    const result = await followRun(conn.client, handle, () => {}, {
      toolTaskQueue: toolQueue,
      onWait: (w) => {
        waits.push(w);
        if (w && !tools) tools = levWorker(['--tools', '--workdir', workdir], {});
      },
    });
    expect(waits[0]).toMatchObject({ taskQueue: toolQueue, activity: 'resolveSeeds' });
    expect(waits).toContain(undefined);
    const toolWorker = await tools;
    // The compose file's tool-worker healthcheck: the tool worker's own command with --health, which looks
    // for a poller of this host on the queue of the workdir's identity.
    expect(await lev(['worker', '--tools', '--workdir', workdir, '--health'], { env: levEnv() })).toMatchObject({
      code: 0,
      stdout: expect.stringContaining(`ok   poller: a worker on ${hostname()} polls task queue ${toolQueue}`),
    });
    await saveHistories(conn.client, handle.workflowId);
    expect(result.status).toBe('completed');
    expect(result.regions.find((r) => r.name === 'brief')?.entries).toBe(1);

    const stageIds = result.stages.map((stage, i) => `${handle.workflowId}.${i + 1}.${stage}`);
    const starts = await startedBy(handle.workflowId, stageIds);
    const host = hostname();
    const byType = (type: string) => [...new Set(starts.filter((s) => s.type === type).map((s) => s.identity))];
    expect(byType('runTool')).toEqual([`${toolWorker?.pid}@${host}`]);
    expect(byType('resolveSeeds')).toEqual([`${toolWorker?.pid}@${host}`]);
    expect(byType('infer')).toEqual([`${shared.pid}@${host}`]);
    expect(starts.filter((s) => s.type === 'runTool')).toHaveLength(6);
  });
});

describe('blueprints pushed for the cluster', () => {
  it('are resolved by a worker with another home, from the PostgreSQL store', async () => {
    const dir = tempDir('pushed-bp');
    writeFileSync(
      join(dir, 'agent.toml'),
      '[agent]\nname = "pushed"\nmodel = "scripted:script.toml"\n[context.regions]\ntask = { kind = "pinned", max_tokens = 500, seed = "task_input" }\n[stages.main]\n',
    );
    writeFileSync(join(dir, 'script.toml'), '[[turns]]\ntext = "Read from the shared store."\n');
    const name = `pushed-${process.pid}`;
    const pusherHome = tempDir('pusher-home');
    const push = await lev(['blueprint', 'push', dir, '--name', name, '--json'], {
      env: levEnv({ LEVIATH_HOME: pusherHome }),
    });
    expect(push.code, push.stderr).toBe(0);
    expect(JSON.parse(push.stdout)).toMatchObject({ ref: `${name}@1`, created: true });
    expect(existsSync(join(pusherHome, 'blueprints'))).toBe(false);

    const queue = `cluster-ref-${Date.now()}`;
    await levWorker([], { LEVIATH_TASK_QUEUE: queue });
    const handle = await conn.client.workflow.start('agentRunWorkflow', {
      taskQueue: queue,
      workflowId: `${name}-by-ref-${Date.now()}`,
      args: [
        { blueprint: `${name}@1`, task: 'Say where you came from.', workdir: tempDir('ref-work'), toolQueue: queue },
      ],
    });
    const result = (await handle.result()) as RunResult;
    await saveHistories(conn.client, handle.workflowId);
    expect(result).toMatchObject({ status: 'completed', output: 'Read from the shared store.' });

    const listed = await lev(['blueprint', 'list', '--json'], {
      env: levEnv({ LEVIATH_HOME: tempDir('reader-home') }),
    });
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as { ref: string }[]).map((v) => v.ref)).toContain(`${name}@1`);
  });
});
