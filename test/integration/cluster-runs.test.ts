/**
 * Runs from the cluster on the real dev server (docs/reference/cluster-runs.md):
 *
 * 1. Blueprints by reference: `lev blueprint push` stores a version, a run
 *    started the way the Web UI and `temporal workflow start` start one (a
 *    small JSON input naming it) resolves it on the worker, and `lev run
 *    name@version` resolves it on the client.
 *    A run by reference forks like any other (`lev fork`).
 * 2. Schedules: `lev schedule create` makes a Temporal Schedule that
 *    `temporal schedule list` shows and `temporal schedule trigger` runs;
 *    pause, unpause, trigger and delete steer it.
 *
 * The `lev` commands run in this process (test/cli/lev-in-process.ts); the
 * `temporal` CLI runs as the operator runs it.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { RunResult } from '../../src/runtime/types.js';
import { forkRun } from '../../src/worker/forks.js';
import { createToolWorker } from '../../src/worker/tool-worker.js';
import { type LevResult, lev as levInProcess } from '../cli/lev-in-process.js';
import { connectClient, temporalAddress } from './helpers.js';
import { until } from './lev-process.js';
import { saveHistories, scopedEnv, scriptedModel, startRuntime, type TestRuntime, tempDir } from './run-helpers.js';

describe('runs from the cluster', () => {
  const vars = scopedEnv();
  const stops: (() => Promise<void>)[] = [];
  const home = tempDir('refs-home');
  const storeDir = join(home, 'blueprints');
  const workdir = tempDir('refs-work');
  const name = `refs-${process.pid}`;
  let conn: Awaited<ReturnType<typeof connectClient>>;
  let rt: TestRuntime;
  const env = () => ({ LEVIATH_HOME: home, TEMPORAL_ADDRESS: temporalAddress() });

  beforeAll(async () => {
    // The worker's activities read the store the pushes write: a shared folder, as on a cluster.
    vars.set({ LEVIATH_BLUEPRINT_DIR: storeDir });
    conn = await connectClient();
    rt = await startRuntime(conn.client);
    const tools = await createToolWorker({
      address: temporalAddress(),
      workdir,
      runtime: { blobDir: rt.blobDir, env: process.env },
    });
    const running = tools.worker.run();
    stops.push(
      async () => {
        tools.worker.shutdown();
        await running;
        await tools.connection.close();
      },
      () => rt.stop(),
      () => conn.connection.close(),
    );
  });
  afterAll(async () => {
    for (const stop of stops) await stop();
    vars.restore();
  });

  function blueprintDir(answer: string): string {
    const dir = tempDir('refs-bp');
    const model = scriptedModel({ turns: [{ text: answer }] });
    writeFileSync(
      join(dir, 'agent.toml'),
      `[agent]\nname = "${name}"\nmodel = "${model}"\n[context.regions]\ntask = { kind = "pinned", max_tokens = 200 }\n[stages.main]\n`,
    );
    return dir;
  }

  /** `lev …` with this block's home and server. */
  function lev(args: string[]): Promise<LevResult> {
    return levInProcess(args, { env: env() });
  }

  async function push(dir: string): Promise<{ ref: string; version: number; created: boolean }> {
    const p = await lev(['blueprint', 'push', dir, '--json']);
    expect(p.code).toBe(0);
    return JSON.parse(p.stdout);
  }

  it('pushes versions and runs a start typed as the Web UI types it', async () => {
    expect(await push(blueprintDir('First version.'))).toMatchObject({ ref: `${name}@1`, created: true });
    const v2 = blueprintDir('Second version.');
    expect(await push(v2)).toMatchObject({ ref: `${name}@2`, created: true });
    expect(await push(v2)).toMatchObject({ ref: `${name}@2`, created: false });

    const runId = `${name}-by-ref`;
    const started = spawnSync(
      inject('temporalCli'),
      [
        'workflow',
        'start',
        '--address',
        temporalAddress(),
        '--type',
        'agentRunWorkflow',
        '--task-queue',
        rt.taskQueue,
        '--workflow-id',
        runId,
        '--input',
        JSON.stringify({ blueprint: `${name}@1`, task: 'which version?', workdir, inputs: { who: 'ops' } }),
      ],
      { encoding: 'utf8' },
    );
    expect(started.status, started.stderr).toBe(0);
    const result = (await conn.client.workflow.getHandle(runId).result()) as RunResult;
    expect(result).toMatchObject({ status: 'completed', output: 'First version.' });
    await saveHistories(conn.client, runId);

    // A run by reference forks like any other: the fork takes the input its start resolved to.
    const forked = await forkRun(conn.client, runId, { turn: 0 }, temporalAddress());
    expect(forked).toMatchObject({ forkOf: runId, workdir, taskQueue: rt.taskQueue });
    const again = (await conn.client.workflow.getHandle(forked.runId).result()) as RunResult;
    expect(again).toMatchObject({ status: 'completed', output: 'First version.' });
    await saveHistories(conn.client, forked.runId);

    const unknown = `${name}-unknown-ref`;
    await conn.client.workflow.start('agentRunWorkflow', {
      taskQueue: rt.taskQueue,
      workflowId: unknown,
      args: [{ blueprint: `${name}@9`, workdir }],
    });
    await expect(conn.client.workflow.getHandle(unknown).result()).rejects.toMatchObject({
      cause: { cause: { type: 'blueprint-ref-unknown' } },
    });
  });

  it('lev run takes name and name@version for the blueprint', async () => {
    const run = await lev([
      'run',
      name,
      '--detach',
      '--task',
      'latest?',
      '--workdir',
      workdir,
      '--task-queue',
      rt.taskQueue,
    ]);
    expect(run.code).toBe(0);
    const runId = run.stdout.trim();
    const result = (await conn.client.workflow.getHandle(runId).result()) as RunResult;
    expect(result).toMatchObject({ status: 'completed', output: 'Second version.' });

    const missing = await lev(['run', `${name}@7`, '--detach', '--workdir', workdir]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('[blueprint-ref-unknown]');
  });

  function temporal(args: string[]): { status: number | null; stdout: string; stderr: string } {
    const r = spawnSync(inject('temporalCli'), [...args, '--address', temporalAddress()], { encoding: 'utf8' });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  }

  /** The run a schedule started as its `n`th action, once it has. */
  async function nthRun(schedule: string, n: number): Promise<string> {
    const handle = conn.client.schedule.getHandle(schedule);
    for (let i = 0; i < 600; i++) {
      const actions = (await handle.describe()).info.recentActions;
      const id = actions[n - 1]?.action.workflow.workflowId;
      if (id) return id;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`schedule ${schedule} never took action ${n}`);
  }

  it('schedules runs that temporal schedule trigger starts, and steers the schedule', async () => {
    const schedule = `nightly-${process.pid}`;
    const createArgs = [
      'schedule',
      'create',
      schedule,
      `${name}@1`,
      '--every',
      '1d',
      '--task',
      'nightly check',
      '--workdir',
      workdir,
      '--task-queue',
      rt.taskQueue,
      '--json',
    ];
    const created = await lev(createArgs);
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({
      name: schedule,
      blueprint: `${name}@1`,
      task: 'nightly check',
      workdir,
      spec: 'every 1d',
      paused: false,
      lastRun: null,
    });
    expect((await lev(createArgs)).stderr).toContain('[schedule-exists]');

    const listed = temporal(['schedule', 'list']);
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(schedule);
    const triggered = temporal(['schedule', 'trigger', '--schedule-id', schedule]);
    expect(triggered.status, triggered.stderr).toBe(0);
    const first = await nthRun(schedule, 1);
    expect(first.startsWith(`${schedule}-`)).toBe(true);
    const result = (await conn.client.workflow.getHandle(first).result()) as RunResult;
    expect(result).toMatchObject({ status: 'completed', output: 'First version.' });
    await saveHistories(conn.client, first);

    expect((await lev(['schedule', 'pause', schedule])).code).toBe(0);
    // The listing reads visibility, which shows the pause moments after it was made.
    const shown = async () =>
      (JSON.parse((await lev(['schedule', 'list', '--json'])).stdout) as { name: string; paused: boolean }[]).find(
        (r) => r.name === schedule,
      );
    await until(async () => (await shown())?.paused === true, 20_000, 'the listing shows the pause');
    expect(await shown()).toMatchObject({ paused: true, lastRun: { runId: first } });
    expect((await lev(['schedule', 'unpause', schedule])).code).toBe(0);
    expect((await lev(['schedule', 'trigger', schedule])).stdout).toContain(`schedule ${schedule} triggered`);
    const second = await nthRun(schedule, 2);
    expect(((await conn.client.workflow.getHandle(second).result()) as RunResult).status).toBe('completed');

    expect((await lev(['schedule', 'delete', schedule])).code).toBe(0);
    const gone = await lev(['schedule', 'trigger', schedule]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('[schedule-not-found]');
  });
});
