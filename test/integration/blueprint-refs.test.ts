/**
 * Blueprints by reference on the real dev server
 * (docs/reference/cluster-runs.md#blueprints-by-reference): `lev blueprint
 * push` stores a version, a run started the way the Web UI and `temporal
 * workflow start` start one (a small JSON input naming it) resolves it on
 * the worker, and `lev run name@version` resolves it on the client.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { RunResult } from '../../src/runtime/types.js';
import { createToolWorker } from '../../src/worker/tool-worker.js';
import { connectClient } from './helpers.js';
import { type LevProcess, startLev } from './lev-process.js';
import { saveHistories, scopedEnv, scriptedModel, startRuntime, type TestRuntime, tempDir } from './run-helpers.js';

describe('blueprints by reference', () => {
  const vars = scopedEnv();
  const stops: (() => Promise<void>)[] = [];
  const children: LevProcess[] = [];
  const home = tempDir('refs-home');
  const storeDir = join(home, 'blueprints');
  const workdir = tempDir('refs-work');
  const name = `refs-${process.pid}`;
  let conn: Awaited<ReturnType<typeof connectClient>>;
  let rt: TestRuntime;
  const env = () => ({ LEVIATH_HOME: home, TEMPORAL_ADDRESS: inject('temporalAddress') });

  beforeAll(async () => {
    // The worker's activities read the store the pushes write: a shared folder, as on a cluster.
    vars.set({ LEVIATH_BLUEPRINT_DIR: storeDir });
    conn = await connectClient();
    rt = await startRuntime(conn.client);
    const tools = await createToolWorker({
      address: inject('temporalAddress'),
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
    for (const c of children) if (c.child.exitCode === null) c.child.kill('SIGKILL');
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

  async function push(dir: string): Promise<{ ref: string; version: number; created: boolean }> {
    const p = startLev(['blueprint', 'push', dir, '--json'], env());
    children.push(p);
    expect(await p.exited).toBe(0);
    return JSON.parse(p.stdout());
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
        inject('temporalAddress'),
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
    const run = startLev(
      ['run', name, '--detach', '--task', 'latest?', '--workdir', workdir, '--task-queue', rt.taskQueue],
      env(),
    );
    children.push(run);
    expect(await run.exited).toBe(0);
    const runId = run.stdout().trim();
    const result = (await conn.client.workflow.getHandle(runId).result()) as RunResult;
    expect(result).toMatchObject({ status: 'completed', output: 'Second version.' });

    const missing = startLev(['run', `${name}@7`, '--detach', '--workdir', workdir], env());
    children.push(missing);
    expect(await missing.exited).toBe(1);
    expect(missing.stderr()).toContain('[blueprint-ref-unknown]');
  });
});
