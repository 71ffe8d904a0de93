/**
 * A deployment whose payloads are encrypted, with workers that lack the key
 * (docs/reference/operating.md#without-the-key): a keyless worker fails the
 * one task it took retryably and stops polling, the run waits as
 * `waiting (codec-key-missing)` until a worker with the key takes over, and
 * then completes; a command without the key says `codec-key-missing` in one
 * line. The workers with the key are made before the tests, which only run them.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { codecOption } from '../../src/codec/payload-codec.js';
import { DEFAULT_RUN_OPTIONS } from '../../src/runtime/types.js';
import type { Blueprint } from '../../src/shapes/frozen-blueprint.js';
import { createWorker } from '../../src/worker/create-worker.js';
import { stoppedWithoutKey } from '../../src/worker/key-stop.js';
import { runOutcome, startRun } from '../../src/worker/run-client.js';
import type { RunRow } from '../../src/worker/runs.js';
import { createToolWorker } from '../../src/worker/tool-worker.js';
import { lev } from '../cli/lev-in-process.js';
import { temporalAddress } from './helpers.js';
import { tempDir, writeBlueprint } from './run-helpers.js';
import { waitFor } from './worker-processes.js';

const ANSWER = 'The notes say the deploy is on Tuesday.';

describe('workers without the codec key on an encrypted deployment', () => {
  let connection: Connection;
  let client: Client;
  let keyFile: string;
  let blobDir: string;
  let workdir: string;
  let blueprint: Blueprint;
  const queues = {
    first: `codec-${randomUUID()}`,
    second: `codec-${randomUUID()}`,
    tools: `codec-tools-${randomUUID()}`,
  };
  const made: { worker: Worker; connection: NativeConnection; running?: Promise<void> }[] = [];
  const workers = {} as Record<'first' | 'second' | 'tools' | 'blindTools', (typeof made)[number]>;

  const keyed = () => ({ ...process.env, LEVIATH_CODEC_KEY_FILE: keyFile });
  const keyless = () => ({ ...process.env, LEVIATH_CODEC_KEY_FILE: '' });
  const at = () => ['--address', temporalAddress()];
  /** Runs a worker made before; resolves when it stops. */
  const run = (w: (typeof made)[number]) => {
    w.running = w.worker.run();
    return w.running;
  };
  const start = (taskQueue: string, toolTaskQueue?: string) =>
    startRun(
      client,
      {
        blueprint,
        task: 'When is the deploy?',
        caller: {},
        workdir,
        options: { ...DEFAULT_RUN_OPTIONS, ...(toolTaskQueue ? { toolTaskQueue } : {}) },
      },
      { taskQueue },
    );

  beforeAll(async () => {
    keyFile = join(tempDir('codec-keys'), 'keys');
    writeFileSync(keyFile, `k1 ${randomBytes(32).toString('base64')}\n`);
    blobDir = tempDir('codec-blobs');
    workdir = tempDir('codec-work');
    writeFileSync(join(workdir, 'notes.md'), 'deploy: Tuesday\n');
    blueprint = writeBlueprint(
      `
[agent]
name = "keyed"
model = "scripted:script.toml"
[context.regions]
task         = { kind = "pinned", max_tokens = 500 }
conversation = { kind = "sliding_window", max_tokens = 4000 }
[stages.work]
available_tools = ["read_file"]
`,
      {
        'script.toml': `[[turns]]\n[[turns.tool_calls]]\nname = "read_file"\narguments = { path = "notes.md" }\n\n[[turns]]\ntext = "${ANSWER}"\n`,
      },
    );
    connection = await Connection.connect({ address: temporalAddress() });
    client = new Client({ connection, ...codecOption(keyed()) });
    const main = (taskQueue: string) =>
      createWorker({
        address: temporalAddress(),
        taskQueue,
        bundle: { codePath: inject('workflowBundlePath') },
        runtime: { blobDir, env: keyed() },
      });
    const tools = (env: NodeJS.ProcessEnv) =>
      createToolWorker({ address: temporalAddress(), workdir, taskQueue: queues.tools, runtime: { blobDir, env } });
    workers.first = await main(queues.first);
    workers.second = await main(queues.second);
    workers.tools = await tools(keyed());
    workers.blindTools = await tools(keyless());
    made.push(...Object.values(workers));
  });
  afterAll(async () => {
    for (const w of made) if (w.worker.getState() === 'RUNNING') w.worker.shutdown();
    for (const w of made) {
      await w.running?.catch(() => {});
      await w.connection.close();
    }
    await connection?.close();
  });

  it('a keyless lev worker steps aside, the run waits for the key and says so, then a worker with it completes the run', async () => {
    const handle = await start(queues.first);
    // The only worker, `lev worker` without the key: it fails the run's first workflow task (not the
    // run), stops polling and says why in its last line.
    const blind = await lev(['worker', '--task-queue', queues.first, ...at()], {
      env: { ...keyless(), LEVIATH_BUNDLE: inject('workflowBundlePath'), LEVIATH_BLOB_DIR: blobDir },
    });
    expect(blind.code).toBe(1);
    expect(blind.stderr).toMatch(/(^|\n)error \[codec-key-missing\] [^\n]+ This worker stopped polling [^\n]+\n$/);

    // With the key, the run shows what it waits for.
    let show = '';
    await waitFor(async () => {
      show = (await lev(['show', handle.workflowId, ...at()], { env: keyed() })).stdout;
      return show.includes('codec-key-missing');
    }, 20_000);
    expect(show).toMatch(/Status: {3}waiting/);
    expect(show).toContain('a worker with the codec key (codec-key-missing): the workflow task of');
    // Only this file's runs: the lane's namespace also holds other files' runs, sealed with their own keys.
    const ps = await lev(['ps', '--json', '--blueprint', 'keyed', ...at()], { env: keyed() });
    expect(ps.stderr).toBe('');
    const row = (JSON.parse(ps.stdout) as RunRow[]).find((r) => r.runId === handle.workflowId);
    expect(row).toMatchObject({ status: 'waiting', waiting: 'codec-key-missing', executionStatus: 'RUNNING' });

    // Without the key, every command says so in one line.
    for (const args of [['show', handle.workflowId], ['ps'], ['result', handle.workflowId]]) {
      const out = await lev([...args, ...at()], { env: keyless() });
      expect(out.code, args.join(' ')).toBe(1);
      expect(out.stderr).toMatch(/^error \[codec-key-missing\] [^\n]+\n$/);
    }

    // A worker with the key takes the workflow task over and the run completes.
    void run(workers.first);
    const result = await runOutcome(handle);
    expect(result.status).toBe('completed');
    expect(result.output).toContain(ANSWER);
  });

  it('a keyless tool worker fails the call it took retryably and stops; the retry goes to the tool worker with the key', async () => {
    void run(workers.second);
    const handle = await start(queues.second, queues.tools);
    await run(workers.blindTools);
    expect(stoppedWithoutKey(workers.blindTools.worker)).toMatchObject({ code: 'codec-key-missing' });
    void run(workers.tools);
    const result = await runOutcome(handle);
    expect(result.status).toBe('completed');
    expect(result.output).toContain(ANSWER);

    // Nothing failed for good; the one attempt the keyless worker had failed for want of the key, and the next ran.
    const starts: [number | null | undefined, string | null][] = [];
    for (const id of [handle.workflowId, `${handle.workflowId}.1.work`])
      for (const e of (await client.workflow.getHandle(id).fetchHistory()).events ?? []) {
        expect(e.activityTaskFailedEventAttributes ?? null).toBeNull();
        const started = e.activityTaskStartedEventAttributes;
        if (started) starts.push([started.attempt, started.lastFailure?.applicationFailureInfo?.type ?? null]);
      }
    expect(starts).toContainEqual([2, 'codec-key-missing']);
  });
});
