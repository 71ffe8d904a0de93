/**
 * A run's tool worker on the real dev server, as real `lev worker --tools`
 * processes (docs/reference/long-runs.md#a-tool-worker-that-outlives-its-process):
 *
 * 1. No tool worker serves the workdir: the run waits with reason
 *    `tool-worker-missing` (its `LeviathStatus`, its progress, `lev show`,
 *    `lev ps`), its webhook is told once with the workdir and the command,
 *    and once `lev worker --tools --workdir DIR` starts the run goes back to
 *    `running` by itself and completes.
 * 2. With a short `[run] tool_worker_patience` it fails `tool-worker-missing`.
 * 3. The tool worker is SIGKILLed between two tool calls of a visit; the
 *    next call waits, the run shows the worker missing once the server's
 *    listing of its last poll is older than `pollerFreshMs`, and another
 *    `lev worker --tools` serving the same files through another path (a
 *    symlink) takes over: the run completes.
 *
 * The tool workers are processes, as the subject is; `lev show` and `lev
 * ps` run in this process (test/cli/lev-in-process.ts), and scripted gates
 * hold the model's turns where the test looks at the run.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Client, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gateReached, openGate } from '../../src/providers/index.js';
import { toolQueueName } from '../../src/runtime/node/tool-queue-name.js';
import { STATUS_KEY } from '../../src/runtime/search-attributes.js';
import { DEFAULT_RUN_OPTIONS, type RunOptions, type RunResult } from '../../src/runtime/types.js';
import type { Notice } from '../../src/shapes/webhooks.js';
import { runProgress } from '../../src/worker/operators.js';
import { startRun } from '../../src/worker/run-client.js';
import type { RunRow, RunView } from '../../src/worker/runs.js';
import { lev } from '../cli/lev-in-process.js';
import { startNoticeReceiver, temporalAddress } from './helpers.js';
import { saveHistories, scriptedModel, tempDir, useRuntime, writeBlueprint } from './run-helpers.js';

const LEV = join(import.meta.dirname, '..', '..', 'bin', 'lev.mjs');

async function until<T>(probe: () => Promise<T | undefined> | T | undefined, what: string, ms = 120_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function leviathStatus(handle: WorkflowHandle): Promise<string | undefined> {
  return (await handle.describe()).typedSearchAttributes.get(STATUS_KEY);
}

/** Which worker identity started each `runTool` of the run's visits, in order. */
async function toolStarts(client: Client, runId: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const wf of client.workflow.list({ query: `WorkflowId STARTS_WITH '${runId}.'` })) ids.push(wf.workflowId);
  const out: string[] = [];
  for (const id of ids.sort()) {
    const history = await client.workflow.getHandle(id).fetchHistory();
    const types = new Map<string, string>();
    for (const e of history.events ?? []) {
      const scheduled = e.activityTaskScheduledEventAttributes;
      if (scheduled) types.set(String(e.eventId), scheduled.activityType?.name ?? '');
      const started = e.activityTaskStartedEventAttributes;
      if (started && types.get(String(started.scheduledEventId)) === 'runTool') out.push(started.identity ?? '');
    }
  }
  return out;
}

describe("a run's tool worker", () => {
  const env = useRuntime();
  const children: ChildProcess[] = [];
  const notices: Notice[] = [];
  let hooks: Awaited<ReturnType<typeof startNoticeReceiver>>;
  let url = '';

  beforeAll(async () => {
    hooks = await startNoticeReceiver(notices);
    url = hooks.url;
  });
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    await hooks.close();
  });

  /** The environment of a `lev` process of this test: the test server, and the blob folder the worker shares. */
  function levEnv(): Record<string, string> {
    return {
      TEMPORAL_ADDRESS: temporalAddress(),
      LEVIATH_BLOB_DIR: env.rt.blobDir,
      LEVIATH_HOME: tempDir('tool-home'),
      LEVIATH_CONFIG: join(tempDir('no-config'), 'config.toml'),
    };
  }

  /** `lev worker --tools --workdir DIR` in a process of its own; resolves once it polls. */
  async function toolWorker(workdir: string): Promise<ChildProcess> {
    const child = spawn(process.execPath, [LEV, 'worker', '--tools', '--workdir', workdir], {
      env: { ...process.env, ...levEnv() },
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
      child.once('exit', (code) => reject(new Error(`lev worker --tools exited early with ${code}:\n${log}`)));
    });
  }

  /** What `lev <args> --json` prints about the run: the command's logic, run in this process. */
  async function levJson<T>(args: string[]): Promise<T> {
    const out = await lev([...args, '--json', '--address', temporalAddress()], { env: levEnv() });
    expect(out.code, out.stderr).toBe(0);
    return JSON.parse(out.stdout) as T;
  }

  function start(toml: string, workdir: string, options: Partial<RunOptions> = {}): Promise<WorkflowHandle> {
    return startRun(
      env.rt.client,
      {
        blueprint: writeBlueprint(toml),
        task: 'Look at the files.',
        caller: {},
        workdir,
        options: { ...DEFAULT_RUN_OPTIONS, toolTaskQueue: toolQueueName(workdir), toolProbeMs: 1000, ...options },
      },
      { taskQueue: env.rt.taskQueue },
    );
  }

  it('waits, saying the tool worker is missing, and goes on by itself once one starts', async () => {
    const workdir = tempDir('absent-tools');
    writeFileSync(join(workdir, 'a.txt'), 'alpha\n');
    // The answer after the tool's result waits at a gate, so the run is seen running again before it ends.
    const back = `tool-worker-back-${process.pid}`;
    const model = scriptedModel({
      turns: [
        { text: 'Reading.', tool_calls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
        { text: 'Done.', gate: back },
      ],
    });
    const name = `absent-tools-${process.pid}`;
    const toml = `[agent]\nname = "${name}"\nmodel = "${model}"\n[stages.main]\navailable_tools = ["read_file"]\n`;
    const handle = await start(toml, workdir, { notify: [{ url, events: ['waiting'] }] });
    const runId = handle.workflowId;

    // Nothing polls the workdir's queue: the run's seeds wait, and it says so (docs/reference/long-runs.md#tool_worker_patience).
    await until(async () => (await leviathStatus(handle)) === 'waiting', 'LeviathStatus waiting');
    const progress = await runProgress(env.rt.client, handle);
    expect(progress).toMatchObject({
      status: 'waiting',
      waiting: 'tool-worker-missing',
      toolWorker: { taskQueue: toolQueueName(workdir), workdir },
    });
    const command = `lev worker --tools --workdir ${workdir}`;
    const shown = await levJson<RunView>(['show', runId]);
    expect(shown.status).toBe('waiting');
    const missing = shown.waitingFor.find((w) => w.kind === 'tool-worker-missing');
    expect(missing?.detail).toContain(command);
    expect(missing?.detail).toContain('tool_worker_patience');
    const [row] = await levJson<RunRow[]>(['ps', '--blueprint', name]);
    expect(row).toMatchObject({ runId, status: 'waiting', waiting: 'tool-worker-missing' });
    // The webhook is told, with the workdir and the command that answers (docs/reference/cluster-runs.md#notifications).
    const told = await until(
      () => notices.find((n) => n.runId === runId && n.waiting?.kind === 'tool-worker-missing'),
      'the webhook is told',
    );
    expect(told).toMatchObject({ event: 'waiting', workdir, command });

    const tools = await toolWorker(workdir);
    await gateReached(back);
    await until(async () => (await leviathStatus(handle)) === 'running', 'LeviathStatus running again');
    openGate(back);
    const result = (await handle.result()) as RunResult;
    await saveHistories(env.rt.client, runId);
    tools.kill('SIGTERM');
    expect(result.status).toBe('completed');
    expect(result.output).toBe('Done.');
    expect(await leviathStatus(handle)).toBe('completed');
    // Told once, though the run looked for its tool worker several times.
    expect(notices.filter((n) => n.runId === runId && n.waiting?.kind === 'tool-worker-missing')).toHaveLength(1);
  });

  it('fails tool-worker-missing once its tool_worker_patience has passed', async () => {
    const workdir = tempDir('never-tools');
    const model = scriptedModel({ turns: [{ text: 'Done.' }] });
    const toml = `[agent]\nname = "never-tools"\nmodel = "${model}"\n[run]\ntool_worker_patience = "2s"\n[stages.main]\n`;
    const handle = await start(toml, workdir);
    const err = await handle.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    await saveHistories(env.rt.client, handle.workflowId);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const cause = (err as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect((cause as ApplicationFailure).type).toBe('tool-worker-missing');
    expect(cause?.message).toContain(`start \`lev worker --tools --workdir ${workdir}\``);
    expect(cause?.message).toContain('[run] tool_worker_patience');
    expect(await leviathStatus(handle)).toBe('failed');
  });

  it('is replaced by another serving the same files at another path after it was killed', async () => {
    const workdir = tempDir('replaced-tools');
    const elsewhere = join(tempDir('mounts'), 'same-files');
    symlinkSync(workdir, elsewhere);
    // The turn after the first tool call waits at a gate: the first tool worker is killed while it is idle.
    const idle = `tool-worker-idle-${process.pid}`;
    const model = scriptedModel({
      turns: [
        { text: 'First.', tool_calls: [{ name: 'write_file', arguments: { path: 'one.txt', content: 'one\n' } }] },
        { text: 'Second.', gate: idle, tool_calls: [{ name: 'read_file', arguments: { path: 'one.txt' } }] },
        { text: 'Third.', tool_calls: [{ name: 'write_file', arguments: { path: 'two.txt', content: 'two\n' } }] },
        { text: 'Done.' },
      ],
    });
    const toml = `[agent]\nname = "replaced-tools"\nmodel = "${model}"\n[stages.main]\navailable_tools = ["read_file", "write_file"]\n`;
    const first = await toolWorker(workdir);
    // A poll the server saw more than a second ago is a dead worker's: the call waits two seconds before the run looks.
    const handle = await start(toml, workdir, { toolProbeMs: 2000, pollerFreshMs: 1000 });
    await gateReached(idle);
    expect(existsSync(join(workdir, 'one.txt'))).toBe(true);
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    openGate(idle);

    // The next call waits on the queue; once the server has not seen the dead worker poll for
    // `pollerFreshMs`, the visit tells its run, which shows the worker missing.
    await until(
      async () => (await runProgress(env.rt.client, handle))?.waiting === 'tool-worker-missing',
      'the run shows its tool worker missing',
    );
    expect(await leviathStatus(handle)).toBe('waiting');

    const second = await toolWorker(elsewhere);
    const result = (await handle.result()) as RunResult;
    await saveHistories(env.rt.client, handle.workflowId);
    second.kill('SIGTERM');
    expect(result.status).toBe('completed');
    expect(readFileSync(join(workdir, 'two.txt'), 'utf8')).toBe('two\n');
    // History records the start of a call's last attempt: the first call is the killed worker's (it
    // had answered it before it was killed), the others the second's.
    const starts = await toolStarts(env.rt.client, handle.workflowId);
    expect(starts).toHaveLength(3);
    expect(starts.every((s) => s.startsWith(`${first.pid}@`) || s.startsWith(`${second.pid}@`))).toBe(true);
    expect(starts[0]?.startsWith(`${first.pid}@`)).toBe(true);
    expect(starts.slice(1).every((s) => s.startsWith(`${second.pid}@`))).toBe(true);
  });
});
