/**
 * Detached runs on the real dev server (docs/reference/cluster-runs.md#detached-runs):
 * `lev run --detach` returns with the run id while no worker serves the run
 * yet, and `lev result --wait`, started before any worker, waits until the
 * workers that come later have finished it. The commands run in this
 * process (test/cli/lev-in-process.ts): their logic is the subject.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createToolWorker } from '../../src/worker/tool-worker.js';
import { lev } from '../cli/lev-in-process.js';
import { connectClient, temporalAddress } from './helpers.js';
import { saveHistories, scriptedModel, startRuntime, type TestRuntime, tempDir } from './run-helpers.js';

describe('lev run --detach and lev result --wait', () => {
  const stops: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const stop of stops.reverse()) await stop();
  });

  it('returns the id at once; the result waits for workers started later', async () => {
    const conn = await connectClient();
    stops.push(() => conn.connection.close());
    const address = temporalAddress();
    const taskQueue = `detached-${process.pid}-${Date.now()}`;
    const name = `detached-${process.pid}`;
    const model = scriptedModel({
      turns: [
        { text: 'Noting.', tool_calls: [{ name: 'context_append', arguments: { region: 'notes', content: 'seen' } }] },
        { text: 'The answer is 42.' },
      ],
    });
    const bpDir = tempDir('detached-bp');
    writeFileSync(
      join(bpDir, 'agent.toml'),
      `[agent]\nname = "${name}"\nmodel = "${model}"\n[context.regions]\ntask = { kind = "pinned", max_tokens = 200 }\nnotes = { kind = "temporary", max_tokens = 200 }\n[stages.main]\navailable_tools = ["context_append"]\n`,
    );
    const workdir = tempDir('detached-work');
    const env = { LEVIATH_HOME: tempDir('detached-home'), TEMPORAL_ADDRESS: address };

    const run = await lev(
      ['run', bpDir, '--detach', '--json', '--task', 'what is it?', '--workdir', workdir, '--task-queue', taskQueue],
      { env },
    );
    expect(run.code).toBe(0);
    const started = JSON.parse(run.stdout) as { runId: string; taskQueue: string; toolTaskQueue: string };
    expect(started.runId).toMatch(new RegExp(`^${name}-`));
    expect(started.taskQueue).toBe(taskQueue);
    // Nothing serves it yet: it was started, not run, and the command says what is missing.
    expect(run.stderr).toContain(`no worker polls task queue ${taskQueue} yet`);
    expect(run.stderr).toContain(`no tool worker polls ${started.toolTaskQueue} yet`);
    const handle = conn.client.workflow.getHandle(started.runId);
    expect((await handle.describe()).status.name).toBe('RUNNING');

    // The plain `lev result` refuses a run still going, and names the waiting form.
    const refused = await lev(['result', started.runId], { env });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`lev result ${started.runId} --wait`);
    // Started while nothing serves the run: its answer can only come from the workers started next.
    let answered = false;
    const waiting = lev(['result', started.runId, '--wait', '--json'], { env }).finally(() => {
      answered = true;
    });
    expect((await handle.describe()).status.name).toBe('RUNNING');
    expect(answered).toBe(false);

    const rt: TestRuntime = await startRuntime(conn.client, { taskQueue });
    stops.push(() => rt.stop());
    const tools = await createToolWorker({ address, workdir, runtime: { blobDir: rt.blobDir, env: process.env } });
    const toolsRunning = tools.worker.run();
    stops.push(async () => {
      tools.worker.shutdown();
      await toolsRunning;
      await tools.connection.close();
    });
    expect(tools.taskQueue).toBe(started.toolTaskQueue);

    const answer = await waiting;
    expect(answer.code).toBe(0);
    const result = JSON.parse(answer.stdout) as { runId: string; status: string; output: { text: string } };
    expect(result).toMatchObject({ runId: started.runId, status: 'completed', output: { text: 'The answer is 42.' } });
    await saveHistories(conn.client, started.runId);
  });
});
