/**
 * The operator's shell commands against the real dev server
 * (docs/reference/operators.md#watching-from-the-shell):
 *
 * 1. `lev ps` and `lev show` for a finished run, a run no worker serves and
 *    a terminated one: their table, JSON shapes and statuses.
 * 2. `lev attach` resumes a run whose worker process was SIGKILLed, serving
 *    its workdir's tool queue too.
 * 3. Ctrl-C on `lev run`: once detaches, and the run finishes in a
 *    background `lev attach`; twice within 2 s cancels the run.
 * 4. With the embedded server, the detached run lives in the SQLite file
 *    under LEVIATH_HOME/data: the background attach starts the server on it
 *    again, and so does a later `lev attach`.
 *
 * The commands whose logic is under test run in this process; `lev` runs in
 * a process of its own where a signal, a process left in the background or
 * its output while it follows a run is the subject. The runs' scripted
 * models hold a call at a gate (docs/scripted.md#gates) where the test must
 * act while the run is live.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it, vi } from 'vitest';
import { printRuns } from '../../src/cli/ps-action.js';
import { formatRun, printRun } from '../../src/cli/show-action.js';
import { freePort, portAnswers } from '../../src/devserver/net.js';
import { isLevError } from '../../src/errors.js';
import { gateReached, openGate } from '../../src/providers/index.js';
import { toolQueueName } from '../../src/runtime/node/tool-queue-name.js';
import { DEFAULT_RUN_OPTIONS } from '../../src/runtime/types.js';
import { startRun } from '../../src/worker/run-client.js';
import type { RunFilter } from '../../src/worker/run-list.js';
import { listRuns, type RunRow, type RunView, viewRun } from '../../src/worker/runs.js';
import { lev } from '../cli/lev-in-process.js';
import { crashBlueprint } from './fixtures/crash-script.js';
import { connectClient, temporalAddress } from './helpers.js';
import { alive, startLev, until } from './lev-process.js';
import { runAgent, saveHistories, scriptedModel, tempDir, useRuntime, writeBlueprint } from './run-helpers.js';

/** What a call printed on stdout. */
async function stdoutOf(work: () => Promise<void>): Promise<string> {
  const out: string[] = [];
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out.push(String(chunk));
    return true;
  });
  try {
    await work();
  } finally {
    write.mockRestore();
  }
  return out.join('');
}

const address = () => temporalAddress();
const flags = () => ({ address: address(), namespace: 'default' });
const ps = async (filter: { blueprint?: string; status?: string }) =>
  JSON.parse(await stdoutOf(() => printRuns({ ...flags(), ...filter, limit: 50, json: true }))) as RunRow[];
const show = async (runId: string) =>
  JSON.parse(await stdoutOf(() => printRun(runId, { ...flags(), json: true }))) as RunView;

/**
 * How long `lev ps` and `lev show` wait for the `progress` query of a run no worker serves: what
 * they print is the same for any wait (2 s by default), and nothing would answer in any.
 */
const NOBODY_ANSWERS_MS = 200;

const ROW_KEYS = [
  'ageSeconds',
  'blueprint',
  'closedAt',
  'costUsd',
  'executionStatus',
  'live',
  'runId',
  'stage',
  'startedAt',
  'status',
  'title',
  'tokens',
  'turns',
  'waiting',
];

describe('lev ps and lev show', () => {
  const env = useRuntime();

  it('list a finished run with its numbers and show its stages, regions and output', async () => {
    const name = `ops-done-${process.pid}`;
    const model = scriptedModel({
      turns: [
        {
          stage: 'look',
          text: 'Looking.',
          tool_calls: [{ name: 'context_append', arguments: { region: 'notes', content: 'seen it' } }],
        },
        { stage: 'look', text: 'Seen enough.' },
        { stage: 'tell', text: 'The answer is 42.' },
      ],
    });
    const bp = writeBlueprint(`
[agent]
name = "${name}"
model = "${model}"
entry_stage = "look"
[context.regions]
task = { kind = "pinned", max_tokens = 200 }
notes = { kind = "temporary", max_tokens = 400 }
[stages.look]
available_tools = ["context_append"]
[stages.look.transitions.tell]
[stages.tell]
`);
    const run = await runAgent(env.rt, bp, { task: 'find the answer' });
    expect(run.result.status).toBe('completed');

    const rows = await ps({ blueprint: name });
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    expect(Object.keys(row).sort()).toEqual(ROW_KEYS);
    expect(row).toMatchObject({
      runId: run.result.runId,
      blueprint: name,
      title: null,
      stage: 'tell',
      status: 'completed',
      executionStatus: 'COMPLETED',
      live: false,
    });
    expect(row.turns).toBeGreaterThanOrEqual(3);
    expect(row.tokens).toBe(run.result.usage.promptTokens + run.result.usage.completionTokens);
    expect(row.closedAt).not.toBeNull();

    const table = await stdoutOf(() => printRuns({ ...flags(), blueprint: name, limit: 50 }));
    expect(table.split('\n')[0]).toMatch(/^RUN ID\s+BLUEPRINT\s+STAGE\s+STATUS\s+TURNS\s+TOKENS\s+COST\s+AGE$/);
    expect(table).toMatch(
      new RegExp(`${run.result.runId}\\s+${name}\\s+tell\\s+completed\\s+\\d+\\s+${row.tokens}\\s`),
    );

    const view = await show(run.result.runId);
    expect(view).toMatchObject({
      runId: run.result.runId,
      status: 'completed',
      task: 'find the answer',
      stages: ['look', 'tell'],
      waitingFor: [],
      output: { format: 'text', text: 'The answer is 42.' },
      error: null,
      window: null,
    });
    expect(view.regions.find((r) => r.name === 'notes')).toMatchObject({ kind: 'temporary', entries: 1 });
    expect(view.usage?.calls).toBe(run.result.usage.calls);
    const report = await stdoutOf(() => printRun(run.result.runId, flags()));
    expect(report).toContain('Stages:   look → tell\n');
    expect(report).toMatch(/notes\s+temporary\s+/);
  });

  it('list a run no worker serves with what visibility knows, say what it waits for, and show it terminated', async () => {
    // What `lev ps --json` and `lev show` print of a run open on the server, asking its workers briefly.
    const rows = (filter: RunFilter) => listRuns(env.rt.client, filter, { limit: 50, deadlineMs: NOBODY_ANSWERS_MS });
    const view = (runId: string) => viewRun(env.rt.client, runId, address(), { deadlineMs: NOBODY_ANSWERS_MS });
    const name = `ops-orphan-${process.pid}`;
    const bp = writeBlueprint(
      `[agent]\nname = "${name}"\nmodel = "${scriptedModel({ turns: [{ text: 'never asked' }] })}"\n[stages.main]\n`,
    );
    const handle = await startRun(
      env.rt.client,
      { blueprint: bp, task: 'wait', caller: {}, workdir: tempDir('orphan'), options: DEFAULT_RUN_OPTIONS },
      { taskQueue: `nobody-polls-${process.pid}` },
    );
    await until(async () => (await rows({ blueprint: name })).length === 1, 20_000, 'the run to be listed');
    const [row] = await rows({ blueprint: name });
    expect(row).toMatchObject({
      runId: handle.workflowId,
      status: 'running',
      live: false,
      turns: null,
      closedAt: null,
    });

    const shown = await view(handle.workflowId);
    expect(shown.waitingFor.map((w) => w.kind)).toEqual(['worker']);
    expect(shown.waitingFor[0]?.detail).toContain(`lev attach ${handle.workflowId}`);
    expect(formatRun(shown)).toContain('no worker answered');

    await handle.terminate('operator test');
    await until(
      async () => (await ps({ blueprint: name, status: 'terminated' })).length === 1,
      20_000,
      'the run to be listed as terminated',
    );
    // Its LeviathStatus still says running, since a terminated workflow runs no code; the listing says what happened.
    expect((await ps({ blueprint: name }))[0]).toMatchObject({ status: 'terminated', executionStatus: 'TERMINATED' });
    expect(await ps({ blueprint: name, status: 'running' })).toEqual([]);
  });

  it('refuse an unknown status before asking the server, and an unknown run', async () => {
    const codeOf = async (work: () => Promise<void>) => {
      try {
        await work();
      } catch (err) {
        if (isLevError(err)) return err.code;
        throw err;
      }
      throw new Error('expected a refusal');
    };
    expect(await codeOf(() => printRuns({ ...flags(), status: 'done', limit: 5 }))).toBe('unknown-status');
    expect(await codeOf(() => printRun(`no-such-run-${process.pid}`, flags()))).toBe('run-not-found');
  });
});

/**
 * An agent that notes and reads a file every turn, so its tool calls need the workdir's tool
 * worker. Its third inference waits at `gate` in the folder of gates `LEVIATH_SCRIPTED_GATES` names
 * (the process that serves the call may be any), so the run is live until the test opens it.
 */
function gatedScript(gate: string): string {
  return `${Array.from(
    { length: 4 },
    (_, i) => `
[[turns]]
text = "Step ${i + 1}."
${i === 2 ? `gate = "${gate}"` : ''}
[[turns.tool_calls]]
name = "context_append"
arguments = { region = "notes", content = "observation ${i + 1}" }
[[turns.tool_calls]]
name = "read_file"
arguments = { path = "data.txt" }
`,
  ).join('')}
[[turns]]
text = "All four steps done."
`;
}

let gates = 0;

/** A gate of its own, and the folder of gates the processes serving the run watch. */
function newGate(what: string): { gate: string; dir: string } {
  return { gate: `${what}-${process.pid}-${++gates}`, dir: tempDir('gates') };
}

function agentBlueprint(name: string, script: string) {
  return writeBlueprint(crashBlueprint(name, 30), { 'script.toml': script });
}

function workdirWithData(prefix: string): string {
  const workdir = tempDir(prefix);
  writeFileSync(join(workdir, 'data.txt'), 'line of data\n'.repeat(40));
  return workdir;
}

describe('lev attach', () => {
  const env = useRuntime();
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  });

  it('resumes a run whose worker was killed, serving its workdir as well, and prints its result', async () => {
    const { gate, dir } = newGate('attach');
    const bp = agentBlueprint('attached', gatedScript(gate));
    const workdir = workdirWithData('attach-work');
    const queue = `attach-${process.pid}-${Date.now()}`;
    const processEnv = {
      TEMPORAL_ADDRESS: address(),
      LEVIATH_TASK_QUEUE: queue,
      LEVIATH_BUNDLE: inject('workflowBundlePath'),
      LEVIATH_BLOB_DIR: tempDir('attach-blobs'),
      LEVIATH_SCRIPTED_GATES: dir,
      LEVIATH_HOME: tempDir('attach-home'),
    };
    // The run's worker and its workdir's tool worker, as a machine runs them (`lev worker`), to be killed.
    const workers = [
      startLev(['worker', '--log-level', 'ERROR'], processEnv),
      startLev(
        ['worker', '--tools', '--workdir', workdir, '--task-queue', toolQueueName(workdir), '--log-level', 'ERROR'],
        processEnv,
      ),
    ];
    children.push(...workers.map((w) => w.child));
    await Promise.all(workers.map((w) => w.waitFor(/polling task queue/)));
    const handle = await startRun(
      env.rt.client,
      {
        blueprint: bp,
        task: 'note four observations',
        caller: {},
        workdir,
        options: { ...DEFAULT_RUN_OPTIONS, heartbeatTimeoutSecs: 2, toolTaskQueue: toolQueueName(workdir) },
      },
      { taskQueue: queue },
    );
    // Two turns served, the third in flight when the workers die.
    await gateReached(gate, { dir });
    for (const w of workers) w.child.kill('SIGKILL');
    openGate(gate, dir);

    const attach = await lev(['attach', handle.workflowId, '--address', address(), '--json'], { env: processEnv });
    expect(attach.code, attach.stderr).toBe(0);
    await saveHistories(env.rt.client, handle.workflowId);

    expect(attach.stderr).toContain(`no worker serves run ${handle.workflowId}; starting one on task queue "${queue}"`);
    expect(attach.stderr).toContain(`starting a tool worker for ${workdir}`);
    const result = JSON.parse(attach.stdout);
    expect(result).toMatchObject({
      runId: handle.workflowId,
      status: 'completed',
      output: { text: 'All four steps done.' },
    });
    expect((await handle.describe()).status.name).toBe('COMPLETED');
  });

  it('follows a run a worker serves without starting one, and prints a finished run at once', async () => {
    const model = scriptedModel({ turns: [{ text: 'Which region should I look at?' }] });
    const bp = writeBlueprint(`[stages.ask]\nmode = "interactive"\nmodel = "${model}"\n`);
    const handle = await startRun(
      env.rt.client,
      { blueprint: bp, caller: {}, workdir: tempDir('attach-live'), options: DEFAULT_RUN_OPTIONS },
      { taskQueue: env.rt.taskQueue },
    );
    // A process of its own: what it prints while it follows the run is the subject.
    const attach = startLev(['attach', handle.workflowId, '--address', address()], {});
    children.push(attach.child);
    await attach.waitFor(/a worker on task queue "[^"]+" serves it/);
    // Without a terminal it says how to reply instead of asking.
    await attach.waitFor(
      new RegExp(`waits for a person; reply with: lev msg ${handle.workflowId} "your reply" --address ${address()} `),
    );
    // Meanwhile the listing says the run waits for a person, and what answers it.
    expect((await ps({ blueprint: bp.agent.name })).find((r) => r.runId === handle.workflowId)).toMatchObject({
      status: 'waiting',
      live: true,
    });
    expect((await show(handle.workflowId)).waitingFor).toEqual([
      {
        kind: 'reply',
        detail: `a reply to the interactive stage "ask": lev msg ${handle.workflowId} "…" --address ${address()}`,
      },
    ]);
    await handle.executeUpdate('message', { args: ['/done'] });
    expect(await attach.exited).toBe(0);
    expect(attach.stdout()).toContain('Run completed after stages ask');
    expect(attach.stderr()).not.toContain('starting one');
    await saveHistories(env.rt.client, handle.workflowId);

    const again = await lev(['attach', handle.workflowId, '--address', address()]);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain(`run ${handle.workflowId} has already ended (completed)`);
    expect(again.stdout).toContain(`Run id: ${handle.workflowId}`);
  });
});

describe('Ctrl-C on lev run', () => {
  const children: ChildProcess[] = [];
  const background: number[] = [];
  afterAll(() => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    for (const pid of background) if (alive(pid)) process.kill(pid, 'SIGKILL');
  });

  /** `lev run` of the gated agent; the `lev attach` it leaves in the background inherits the folder of gates. */
  function levRun(name: string, home: string, gates: { gate: string; dir: string }) {
    const bp = agentBlueprint(name, gatedScript(gates.gate));
    const workdir = workdirWithData(`${name}-work`);
    const run = startLev(['run', bp.dir, '--task', 'read four times', '--workdir', workdir, '--address', address()], {
      LEVIATH_HOME: home,
      LEVIATH_BUNDLE: inject('workflowBundlePath'),
      LEVIATH_BLOB_DIR: join(home, 'blobs'),
      LEVIATH_SCRIPTED_GATES: gates.dir,
    });
    children.push(run.child);
    return run;
  }

  it('detaches on the first press; the run finishes in the background and can be followed again', async () => {
    const home = tempDir('detach-home');
    const gates = newGate('detach');
    const run = levRun('detached', home, gates);
    const [, runId] = (await run.waitFor(/run (\S+) started on/)) as RegExpMatchArray;
    await run.waitFor(/\[main\] turn 2 /);
    const turnsShown = () => run.stdout().split('[main] turn').length - 1;
    const shownAtPress = turnsShown();
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(130);
    const said = run.stderr();
    expect(said).toContain(`detaching from run ${runId}; press Ctrl-C again within 2 s to cancel it`);
    const m = said.match(
      /goes on in the background \(pid (\d+), log (\S+)\); `lev attach (\S+) --address (\S+)` follows it again/,
    );
    expect(m?.[3]).toBe(runId);
    const pid = Number(m?.[1]);
    background.push(pid);
    // Turns stop printing at the press (one may have been on its way).
    expect(turnsShown()).toBeLessThanOrEqual(shownAtPress + 1);

    // The third inference, held until now, goes on in the background attach.
    openGate(gates.gate, gates.dir);
    const { client } = await connectClient();
    const handle = client.workflow.getHandle(runId!);
    const result = (await handle.result()) as { status: string; output: string };
    expect(result).toMatchObject({ status: 'completed', output: 'All four steps done.' });
    await until(() => !alive(pid), 30_000, 'the background lev attach to end');
    expect(readFileSync(m?.[2] ?? '', 'utf8')).toContain('"status":"completed"');
    await saveHistories(client, runId!);
    await client.connection.close();
  });

  it('cancels the run on a second press within 2 s', async () => {
    const home = tempDir('cancel-home');
    // The gate is never opened: the run is live until the cancel ends it.
    const run = levRun('cancelled', home, newGate('cancel'));
    const [, runId] = (await run.waitFor(/run (\S+) started on/)) as RegExpMatchArray;
    await run.waitFor(/\[main\] turn 2 /);
    run.child.kill('SIGINT');
    await run.waitFor(/press Ctrl-C again within 2 s/);
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(130);
    expect(run.stderr()).toContain(`cancelling run ${runId} ...`);
    expect(run.stderr()).toContain(`run ${runId} ended after the cancel: cancelled`);
    expect(run.stderr()).not.toContain('in the background');

    const { client, connection } = await connectClient();
    const description = await client.workflow.getHandle(runId!).describe();
    expect(description.status.name).toBe('CANCELLED');
    expect(description.searchAttributes.LeviathStatus).toEqual(['cancelled']);
    await saveHistories(client, runId!);
    await connection.close();
  });
});

describe('the embedded server of lev run', () => {
  const children: ChildProcess[] = [];
  const background: number[] = [];
  afterAll(() => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    for (const pid of background) if (alive(pid)) process.kill(pid, 'SIGKILL');
  });

  it('keeps a detached run in .leviath/data, where the background attach and a later one find it', async () => {
    // The Web UI of the embedded server listens 1000 ports above its frontend.
    let port = await freePort();
    while (port > 64_000 || (await portAnswers(port + 1000))) port = await freePort();
    const embedded = `127.0.0.1:${port}`;
    const home = tempDir('embedded-home');
    const env = {
      LEVIATH_HOME: home,
      LEVIATH_BUNDLE: inject('workflowBundlePath'),
      TEMPORAL_CLI: inject('temporalCli'),
    };
    const gates = newGate('embedded');
    const bp = agentBlueprint('embedded', gatedScript(gates.gate));
    const workdir = workdirWithData('embedded-work');

    const run = startLev(['run', bp.dir, '--task', 'read four times', '--workdir', workdir, '--address', embedded], {
      ...env,
      LEVIATH_SCRIPTED_GATES: gates.dir,
    });
    children.push(run.child);
    await run.waitFor(new RegExp(`started the Temporal dev server at ${embedded} on ${home}/data/temporal\\.sqlite`));
    const [, runId] = (await run.waitFor(/run (\S+) started on/)) as RegExpMatchArray;
    await run.waitFor(/\[main\] turn 2 /);
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(130);
    const pid = Number(run.stderr().match(/in the background \(pid (\d+),/)?.[1]);
    background.push(pid);
    openGate(gates.gate, gates.dir);

    // The background attach starts the server again on the same file, finishes the run, and stops.
    await until(() => !alive(pid), 120_000, 'the background lev attach to finish the run');
    const log = readFileSync(join(home, 'logs', `${runId}.log`), 'utf8');
    expect(log).toContain(`started the Temporal dev server at ${embedded} on ${home}/data/temporal.sqlite`);
    expect(log).toContain(`no worker serves run ${runId}`);
    expect(JSON.parse(log.slice(log.indexOf('{"runId"')))).toMatchObject({
      runId,
      status: 'completed',
      output: { text: 'All four steps done.' },
    });

    // With no server up, the reading commands say how to get one instead of starting it.
    const listing = await lev(['ps', '--address', embedded], { env });
    expect(listing.code).toBe(1);
    expect(listing.stderr).toContain(
      `error [server-unreachable] No Temporal server answers at ${embedded}; nothing listens there (connection refused): \`lev server\``,
    );

    // A later attach opens the same database: the run is there, finished.
    const later = await lev(['attach', runId!, '--address', embedded, '--json'], { env });
    expect(later.code, later.stderr).toBe(0);
    expect(JSON.parse(later.stdout)).toMatchObject({ runId, status: 'completed' });
  });
});
