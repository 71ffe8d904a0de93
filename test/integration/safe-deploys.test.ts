/**
 * Safe deploys with Worker Versioning (docs/reference/operating.md#safe-deploys), on the dev
 * server: two versions of one Worker Deployment serve the same task queue side by side. A run
 * started while v1 is current stays on v1's workers after v2 becomes current for new runs, its
 * stage visit too, and moves to v2 when it next continues as new. `lev run` with a deployment
 * set pins its run to its own in-process version, current or not.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import type { Worker } from '@temporalio/worker';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { DEFAULT_RUN_OPTIONS } from '../../src/runtime/types.js';
import { createWorker } from '../../src/worker/create-worker.js';
import { runProgress, sendUpdate } from '../../src/worker/operators.js';
import { runOutcome, startRun } from '../../src/worker/run-client.js';
import { lev } from '../cli/lev-in-process.js';
import { connectClient, temporalAddress } from './helpers.js';
import { saveHistories, scriptedModel, tempDir, writeBlueprint } from './run-helpers.js';

const run = promisify(execFile);

/** The `temporal` CLI against the suite's dev server, as an operator types it. */
async function temporalCli(args: string[]): Promise<string> {
  const { stdout } = await run(inject('temporalCli'), [...args, '--address', temporalAddress()], {
    timeout: 60_000,
  });
  return stdout;
}

/** Makes `buildId` current once its workers' first polls have registered it (within a minute). */
async function setCurrent(deployment: string, buildId: string): Promise<void> {
  let last: unknown;
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
    try {
      await temporalCli([
        'worker',
        'deployment',
        'set-current-version',
        '--deployment-name',
        deployment,
        '--build-id',
        buildId,
        '--yes',
      ]);
      return;
    } catch (err) {
      last = err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`version ${buildId} never became current: ${String(last)}`);
}

type Info = temporal.api.workflow.v1.IWorkflowExecutionInfo;

async function info(client: Client, workflowId: string, runId?: string): Promise<Info> {
  return (await client.workflow.getHandle(workflowId, runId).describe()).raw.workflowExecutionInfo ?? {};
}

/** The build ids of the workers that completed each workflow task of one run. */
async function taskBuilds(client: Client, workflowId: string, runId?: string): Promise<string[]> {
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const done = e.workflowTaskCompletedEventAttributes;
    return done ? [done.deploymentVersion?.buildId ?? 'unversioned'] : [];
  });
}

/** Every run of a workflow id, oldest first. */
async function runsOf(client: Client, workflowId: string): Promise<{ runId: string; start: number }[]> {
  const runs: { runId: string; start: number }[] = [];
  for await (const wf of client.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
    runs.push({ runId: wf.runId, start: wf.startTime.getTime() });
  return runs.sort((a, b) => a.start - b.start);
}

describe('two versions of a worker deployment side by side', () => {
  const deployment = `leviath-it-${process.pid}-${Date.now()}`;
  const taskQueue = `deploys-${process.pid}-${Date.now()}`;
  const blobDir = tempDir('deploy-blobs');
  const workers: { worker: Worker; running: Promise<void>; close(): Promise<void> }[] = [];
  let conn: Awaited<ReturnType<typeof connectClient>> | undefined;

  async function version(buildId: string): Promise<void> {
    const { worker, connection } = await createWorker({
      address: temporalAddress(),
      taskQueue,
      bundle: { codePath: inject('workflowBundlePath') },
      runtime: { blobDir, env: process.env },
      deployment: { deployment, buildId },
      identity: `worker-${buildId}`,
    });
    workers.push({ worker, running: worker.run(), close: () => connection.close() });
  }

  afterAll(async () => {
    for (const w of workers) w.worker.shutdown();
    for (const w of workers) {
      await w.running;
      await w.close();
    }
    await conn?.connection.close();
  });

  it('keeps a run on the version it started on until it continues as new, then moves it to the current one', async () => {
    conn = await connectClient();
    const { client } = conn;
    const model = scriptedModel({
      turns: [
        { text: 'Writing first.', tool_calls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'a' } }] },
        ...Array.from({ length: 12 }, (_, i) => ({
          text: `Pass ${i + 1}.`,
          tool_calls: [{ name: 'current_time', arguments: {} }],
        })),
        { text: 'Done.' },
      ],
    });
    const bp = writeBlueprint(
      `[agent]\nname = "deployed"\nmodel = "${model}"\n[context.regions]\ntask = { kind = "pinned", max_tokens = 500 }\n[stages.main]\navailable_tools = ["write_file", "current_time"]\nmax_iterations = 40\n[tool_permissions]\nwrite_file = "ask"\n`,
    );
    const start = (task: string): Promise<WorkflowHandle> =>
      startRun(
        client,
        {
          blueprint: bp,
          task,
          caller: {},
          workdir: tempDir('deployed'),
          // Attended, so the first call waits for approval; a short history, so the run goes on as new soon after.
          options: {
            ...DEFAULT_RUN_OPTIONS,
            unattended: false,
            toolTaskQueue: taskQueue,
            runHistoryEvents: 60,
            progressReportMs: 0,
          },
        },
        { taskQueue },
      );

    await version('v1');
    await setCurrent(deployment, 'v1');
    const old = await start('Started on v1.');
    await expect.poll(async () => (await runProgress(client, old))?.waiting, { timeout: 60_000 }).toBe('approval');
    const pinned = (await info(client, old.workflowId)).versioningInfo;
    expect(pinned?.deploymentVersion).toMatchObject({ deploymentName: deployment, buildId: 'v1' });
    expect(String(pinned?.behavior)).toMatch(/PINNED|^1$/);

    await version('v2');
    await setCurrent(deployment, 'v2');
    const listed = await temporalCli(['worker', 'deployment', 'describe', '--name', deployment, '-o', 'json']);
    expect(JSON.parse(listed)).toMatchObject({ routingConfig: { currentVersionBuildID: 'v2' } });

    // A run started now goes to v2; the one waiting stays on v1.
    const fresh = await start('Started on v2.');
    await expect
      .poll(async () => (await info(client, fresh.workflowId)).versioningInfo?.deploymentVersion?.buildId, {
        timeout: 60_000,
      })
      .toBe('v2');
    await expect.poll(async () => (await runProgress(client, fresh))?.waiting, { timeout: 60_000 }).toBe('approval');
    await sendUpdate(client, fresh.workflowId, 'deny');

    await sendUpdate(client, old.workflowId, 'approve');
    expect((await runOutcome(old)).status).toBe('completed');
    await saveHistories(client, old.workflowId);

    const runs = await runsOf(client, old.workflowId);
    expect(runs.length).toBeGreaterThanOrEqual(2);
    const [first, ...later] = runs;
    // Every task of the first run, those after v2 became current included, went to v1's worker.
    const firstTasks = await taskBuilds(client, old.workflowId, first?.runId);
    expect(firstTasks.length).toBeGreaterThan(3);
    expect(new Set(firstTasks)).toEqual(new Set(['v1']));
    // So did every task of its stage visit.
    const visit = `${old.workflowId}.1.main`;
    const visitRuns = await runsOf(client, visit);
    expect(new Set(await taskBuilds(client, visit, visitRuns[0]?.runId))).toEqual(new Set(['v1']));
    // Continued as new, it runs on v2, asked to move there.
    for (const next of later)
      expect(new Set(await taskBuilds(client, old.workflowId, next.runId))).toEqual(new Set(['v2']));
    const moved = (await info(client, old.workflowId)).versioningInfo;
    expect(moved?.deploymentVersion?.buildId).toBe('v2');

    expect((await runOutcome(fresh)).status).toBe('completed');
    await saveHistories(client, fresh.workflowId);
  });

  it('pins a run lev run starts to the version its own workers serve, current or not', async () => {
    conn ??= await connectClient();
    const dir = tempDir('deploy-bp');
    const bp = writeBlueprint(`[agent]\nname = "pinned-here"\nmodel = "scripted:script.toml"\n[stages.main]\n`, {
      'script.toml': '[[turns]]\ntext = "Served here."\n',
    });
    const runId = `pinned-here-${process.pid}-${Date.now()}`;
    // A deployment with no current version: without the pin, the run would wait for unversioned workers.
    const ran = await lev(
      ['run', bp.dir, '--task', 'Say where.', '--address', temporalAddress(), '--id', runId, '--workdir', dir],
      {
        env: {
          LEVIATH_DEPLOYMENT: `${deployment}-local`,
          LEVIATH_BUILD_ID: 'laptop',
          LEVIATH_BUNDLE: inject('workflowBundlePath'),
          LEVIATH_HOME: tempDir('deploy-home'),
          LEVIATH_BLOB_DIR: tempDir('deploy-local-blobs'),
        },
      },
    );
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toContain('Served here.');
    const pinned = (await info(conn.client, runId)).versioningInfo;
    expect(pinned?.deploymentVersion).toMatchObject({ deploymentName: `${deployment}-local`, buildId: 'laptop' });
    expect(pinned?.versioningOverride).toBeTruthy();
    await saveHistories(conn.client, runId);
  });
});
