/**
 * A deployment whose payloads are encrypted, with a worker that lacks the key
 * (docs/reference/operating.md#without-the-key): the keyless worker fails the
 * one task it took retryably and stops polling, the run waits as
 * `waiting (codec-key-missing)` until a worker with the key takes over, and
 * then completes; a command without the key says `codec-key-missing` in one line.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import type { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { codecOption } from '../../src/codec/payload-codec.js';
import { DEFAULT_RUN_OPTIONS } from '../../src/runtime/types.js';
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

describe('a worker without the codec key on an encrypted deployment', () => {
  let connection: Connection;
  let client: Client;
  let keyFile: string;
  let blobDir: string;
  const started: { worker: Worker; connection: NativeConnection; running: Promise<void> }[] = [];

  /** The worker runs until it stops by itself or the file ends. */
  function host(made: { worker: Worker; connection: NativeConnection }) {
    const entry = { ...made, running: made.worker.run() };
    started.push(entry);
    return entry;
  }
  const keyed = () => ({ ...process.env, LEVIATH_CODEC_KEY_FILE: keyFile });
  const keyless = () => ({ ...process.env, LEVIATH_CODEC_KEY_FILE: '' });
  const at = () => ['--address', temporalAddress()];

  beforeAll(async () => {
    keyFile = join(tempDir('codec-keys'), 'keys');
    writeFileSync(keyFile, `k1 ${randomBytes(32).toString('base64')}\n`);
    blobDir = tempDir('codec-blobs');
    connection = await Connection.connect({ address: temporalAddress() });
    client = new Client({ connection, ...codecOption(keyed()) });
  });
  afterAll(async () => {
    for (const { worker } of started) if (worker.getState() === 'RUNNING') worker.shutdown();
    for (const { running, connection: c } of started) {
      await running.catch(() => {});
      await c.close();
    }
    await connection?.close();
  });

  it('fails no run: it steps aside, the run waits for the key, and a worker with the key completes it', async () => {
    const workdir = tempDir('codec-work');
    writeFileSync(join(workdir, 'notes.md'), 'deploy: Tuesday\n');
    const blueprint = writeBlueprint(
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
    const taskQueue = `codec-${randomUUID()}`;
    const toolTaskQueue = `codec-tools-${randomUUID()}`;
    const handle: WorkflowHandle = await startRun(
      client,
      {
        blueprint,
        task: 'When is the deploy?',
        caller: {},
        workdir,
        options: { ...DEFAULT_RUN_OPTIONS, toolTaskQueue },
      },
      { taskQueue },
    );
    const main = (env: NodeJS.ProcessEnv) =>
      createWorker({
        address: temporalAddress(),
        taskQueue,
        bundle: { codePath: inject('workflowBundlePath') },
        runtime: { blobDir, env },
      });
    const tools = (env: NodeJS.ProcessEnv) =>
      createToolWorker({ address: temporalAddress(), workdir, taskQueue: toolTaskQueue, runtime: { blobDir, env } });

    // The only worker, `lev worker` without the key: it fails the run's first workflow task (not the
    // run), stops polling and says why in its last line.
    const blind = await lev(['worker', '--task-queue', taskQueue, ...at()], {
      env: { ...keyless(), LEVIATH_BUNDLE: inject('workflowBundlePath'), LEVIATH_BLOB_DIR: blobDir },
    });
    expect(blind.code).toBe(1);
    expect(blind.stderr).toMatch(/(^|\n)error \[codec-key-missing\] [^\n]+ This worker stopped polling [^\n]+\n$/);

    // With the key, the run shows what it waits for.
    await waitFor(
      async () =>
        (await lev(['show', handle.workflowId, ...at()], { env: keyed() })).stdout.includes('codec-key-missing'),
      20_000,
    );
    const show = await lev(['show', handle.workflowId, ...at()], { env: keyed() });
    expect(show.stdout).toMatch(/Status: {3}waiting/);
    expect(show.stdout).toContain('a worker with the codec key: the workflow task of');
    const ps = await lev(['ps', '--json', ...at()], { env: keyed() });
    const row = (JSON.parse(ps.stdout) as RunRow[]).find((r) => r.runId === handle.workflowId);
    expect(row).toMatchObject({ status: 'waiting', waiting: 'codec-key-missing', executionStatus: 'RUNNING' });

    // Without the key, every command says so in one line.
    for (const args of [['show', handle.workflowId], ['ps'], ['result', handle.workflowId]]) {
      const out = await lev([...args, ...at()], { env: keyless() });
      expect(out.code, args.join(' ')).toBe(1);
      expect(out.stderr).toMatch(/^error \[codec-key-missing\] [^\n]+\n$/);
    }

    // A worker with the key takes over; the tool call goes first to a tool worker without it, which steps aside too.
    host(await main(keyed()));
    const blindTools = host(await tools(keyless()));
    await blindTools.running;
    expect(stoppedWithoutKey(blindTools.worker)).toMatchObject({ code: 'codec-key-missing' });
    host(await tools(keyed()));

    const result = await runOutcome(handle);
    expect(result.status).toBe('completed');
    expect(result.output).toContain(ANSWER);
    // The tool call's first attempt was the keyless tool worker's, failed retryably for want of the key; the second completed.
    const visit = await client.workflow.getHandle(`${handle.workflowId}.1.work`).fetchHistory();
    const starts = (visit.events ?? []).flatMap((e) =>
      e.activityTaskStartedEventAttributes ? [e.activityTaskStartedEventAttributes] : [],
    );
    expect(starts.map((s) => [s.attempt, s.lastFailure?.applicationFailureInfo?.type ?? null])).toContainEqual([
      2,
      'codec-key-missing',
    ]);
    expect((visit.events ?? []).filter((e) => e.activityTaskFailedEventAttributes)).toEqual([]);
  });
});
