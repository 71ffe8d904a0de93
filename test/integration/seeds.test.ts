/**
 * Seeds through whole runs on the real dev server (docs/reference/seeds.md): every form
 * lands in its region before the first inference, refusals stop the run
 * before anything is read or run, and a command seed runs once even when
 * a fresh worker replays the run's history.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { RunState } from '../../src/context/index.js';
import { gateReached, openGate } from '../../src/providers/index.js';
import { DEFAULT_RUN_OPTIONS, type StageOutcome } from '../../src/runtime/types.js';
import { workflowSinks } from '../../src/telemetry/tracing.js';
import { createWorker } from '../../src/worker/create-worker.js';
import { followRun, startRun } from '../../src/worker/run-client.js';
import { connectClient, temporalAddress } from './helpers.js';
import {
  runAgent,
  saveHistories,
  scriptedModel,
  startRuntime,
  tempDir,
  useRuntime,
  writeBlueprint,
} from './run-helpers.js';

/** The region set the last stage visit handed back to the run. */
async function finalState(client: Client, runId: string): Promise<RunState> {
  const history = await client.workflow.getHandle(runId).fetchHistory();
  const done = (history.events ?? []).filter((e) => e.childWorkflowExecutionCompletedEventAttributes);
  const payload = done.at(-1)?.childWorkflowExecutionCompletedEventAttributes?.result?.payloads?.[0];
  if (!payload) throw new Error('no stage visit completed');
  return defaultPayloadConverter.fromPayload<StageOutcome>(payload).carried.state;
}

function seeded(state: RunState, region: string): { key?: string; text: string }[] {
  const r = state.regions.find((x) => x.name === region);
  return (r?.entries ?? [])
    .filter((e) => e.seeded)
    .map((e) => ({
      ...(e.key !== undefined ? { key: e.key } : {}),
      text: typeof e.content === 'string' ? e.content : e.content.preview,
    }));
}

function workdirWith(files: Record<string, string>): string {
  const dir = tempDir('seed-work');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

function lines(path: string): string[] {
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : [];
}

/** Seed warnings the run keeps in its memo, where `lev show` and the Web UI find them. */
async function seedWarnings(handle: { describe(): Promise<{ memo?: Record<string, unknown> }> }): Promise<string[]> {
  return ((await handle.describe()).memo?.seedWarnings as string[] | undefined) ?? [];
}

describe('seeds on a real run', () => {
  const env = useRuntime();

  it('fills every region from its seed form before the first inference', async () => {
    const model = scriptedModel({
      turns: [
        {
          text: 'Reading one doc.',
          tool_calls: [{ name: 'context_read', arguments: { region: 'docs', key: 'docs/b.md' } }],
        },
        { text: 'Seen it all.' },
      ],
    });
    const bp = writeBlueprint(`
[agent]
name = "seeding"
model = "${model}"

[context.regions]
task    = { kind = "pinned", max_tokens = 500 }
brief   = { kind = "pinned", max_tokens = 500, seed = "input" }
ticket  = { kind = "pinned", max_tokens = 500, seed = { caller = "ticket_id" } }
docs    = { kind = "temporary", max_tokens = 2000, seed = { files = ["docs/a.md", "docs/b.md"] } }
sources = { kind = "temporary", max_tokens = 2000, seed = { glob = "src/**/*.ts" } }
rules   = { kind = "pinned", max_tokens = 500, seed = { literal = "Never push to main." } }
listing = { kind = "temporary", max_tokens = 500, seed = { command = "ls src" } }
plan    = { kind = "temporary", max_tokens = 500, seed = { rhai = "plan.rhai" } }

[stages.main]
`);
    const workdir = workdirWith({
      'docs/a.md': 'Alpha: the parser handles tabs.\n',
      'docs/b.md': 'Beta: the lexer drops comments.\n',
      'src/x.ts': 'export const x = 1;\n',
      'src/sub/y.ts': 'export const y = 2;\n',
      'plan.rhai': 'let steps = task.split(" ").len();\n"Plan for \\"" + task + "\\" in " + steps + " words"',
    });
    const run = await runAgent(env.rt, bp, {
      task: 'fix the lexer',
      caller: { brief: 'Keep the public API.', ticket_id: 'LEX-42' },
      workdir,
    });
    expect(run.result.status).toBe('completed');
    for (const name of ['task', 'brief', 'ticket', 'docs', 'sources', 'rules', 'listing', 'plan']) {
      expect(run.result.regions.find((r) => r.name === name)?.tokens, name).toBeGreaterThan(0);
    }
    const state = await finalState(env.conn.client, run.handle.workflowId);
    expect(seeded(state, 'task')).toEqual([{ text: 'fix the lexer' }]);
    expect(seeded(state, 'brief')).toEqual([{ text: 'Keep the public API.' }]);
    expect(seeded(state, 'ticket')).toEqual([{ text: 'LEX-42' }]);
    expect(seeded(state, 'docs')).toEqual([
      { key: 'docs/a.md', text: 'Alpha: the parser handles tabs.\n' },
      { key: 'docs/b.md', text: 'Beta: the lexer drops comments.\n' },
    ]);
    // Byte-wise path order: "src/sub/..." sorts before "src/x.ts".
    expect(seeded(state, 'sources').map((e) => e.key)).toEqual(['src/sub/y.ts', 'src/x.ts']);
    expect(seeded(state, 'rules')).toEqual([{ text: 'Never push to main.' }]);
    expect(seeded(state, 'listing')).toEqual([{ key: 'ls src', text: 'sub\nx.ts\n' }]);
    expect(seeded(state, 'plan')).toEqual([{ key: 'plan.rhai', text: 'Plan for "fix the lexer" in 3 words' }]);
    // The model reached a seeded entry with a context tool.
    const conversation = state.regions.find((r) => r.name === 'conversation')?.entries ?? [];
    const read = conversation.find((e) => e.kind === 'tool_result');
    expect(typeof read?.content === 'string' ? read.content : read?.content.preview).toContain(
      'Beta: the lexer drops comments.',
    );
  });

  it('re-reads an each_stage seed at the next stage entry, keeping the entries the agent added', async () => {
    const model = scriptedModel({
      turns: [
        {
          stage: 'draft',
          text: 'Revising the plan.',
          tool_calls: [
            { name: 'write_file', arguments: { path: 'plan.md', content: 'Plan v2: ship on Friday.\n' } },
            { name: 'context_append', arguments: { region: 'plan', content: 'agent remark' } },
          ],
        },
        { stage: 'draft', text: 'Drafted.' },
        { stage: 'publish', text: 'Published.' },
      ],
    });
    const bp = writeBlueprint(`
[agent]
name = "refreshing"
model = "${model}"
entry_stage = "draft"
[context.regions]
task = { kind = "pinned", max_tokens = 500 }
plan = { kind = "temporary", max_tokens = 1000, seed = { files = ["plan.md"], refresh = "each_stage" } }
[stages.draft.transitions.publish]
[stages.publish]
`);
    const workdir = workdirWith({ 'plan.md': 'Plan v1: ship on Monday.\n' });
    const run = await runAgent(env.rt, bp, { task: 'publish the plan', workdir });
    expect(run.result.status).toBe('completed');
    const state = await finalState(env.conn.client, run.handle.workflowId);
    expect(seeded(state, 'plan')).toEqual([{ key: 'plan.md', text: 'Plan v2: ship on Friday.\n' }]);
    const texts = (state.regions.find((r) => r.name === 'plan')?.entries ?? []).map((e) => e.content);
    expect(texts).toContain('agent remark');
    expect(texts).not.toContain('Plan v1: ship on Monday.\n');
  });

  it('refuses a run whose required input is missing', async () => {
    const bp = writeBlueprint(`
[agent]
name = "needsinput"
model = "${scriptedModel({ turns: [{ text: 'never asked' }] })}"
[context.regions]
task  = { kind = "pinned", max_tokens = 500 }
brief = { kind = "pinned", max_tokens = 500, required = true, seed = "input" }
[stages.main]
`);
    const run = await runAgent(env.rt, bp, { task: 'go', caller: { brief: '   ' } });
    expect(run.result.status).toBe('failed');
    expect(run.result.error).toContain('`brief`');
    expect(run.result.usage.calls).toBe(0);
  });

  it('refuses a seed path outside the workdir before any seed is read or run', async () => {
    const model = scriptedModel({ turns: [{ text: 'never asked' }] });
    const bp = writeBlueprint(`
[agent]
name = "confined"
model = "${model}"

[safe_commands]
shell = ["tee"]

[context.regions]
task    = { kind = "pinned", max_tokens = 500 }
marker  = { kind = "temporary", max_tokens = 500, seed = { command = "echo ran | tee -a ran.txt" } }
secrets = { kind = "temporary", max_tokens = 500, seed = { files = ["../secret.txt"] } }

[stages.main]
`);
    const base = tempDir('confine');
    writeFileSync(join(base, 'secret.txt'), 'hunter2');
    const workdir = join(base, 'work');
    mkdirSync(workdir);
    const run = await runAgent(env.rt, bp, { task: 'peek', workdir });
    expect(run.result.status).toBe('failed');
    expect(run.result.error).toContain('../secret.txt');
    expect(run.result.error).toContain('[read_paths]');
    expect(run.result.error).not.toContain('hunter2');
    expect(existsSync(join(workdir, 'ran.txt'))).toBe(false);
    expect(run.result.usage.calls).toBe(0);
  });

  it('skips a command seed that is not pre-approved, and refuses the run when its region is required', async () => {
    const toml = (required: boolean, model: string) => `
[agent]
name = "unapproved"
model = "${model}"
[context.regions]
task  = { kind = "pinned", max_tokens = 500 }
made  = { kind = "temporary", max_tokens = 500, required = ${required}, seed = { command = "touch made.txt" } }
[stages.main]
available_tools = ["context_read"]
`;
    const optionalDir = tempDir('unapproved');
    const optional = await runAgent(env.rt, writeBlueprint(toml(false, scriptedModel({ turns: [{ text: 'ok' }] }))), {
      task: 'go',
      workdir: optionalDir,
    });
    expect(optional.result.status).toBe('completed');
    expect(optional.result.regions.find((r) => r.name === 'made')).toMatchObject({ entries: 0, tokens: 0 });
    expect((await seedWarnings(optional.handle)).join('\n')).toMatch(/touch made\.txt.*not pre-approved/);
    expect(existsSync(join(optionalDir, 'made.txt'))).toBe(false);

    const requiredDir = tempDir('unapproved');
    const required = await runAgent(
      env.rt,
      writeBlueprint(toml(true, scriptedModel({ turns: [{ text: 'never asked' }] }))),
      { task: 'go', workdir: requiredDir },
    );
    expect(required.result.status).toBe('failed');
    expect(required.result.error).toContain('not pre-approved');
    expect(required.result.error).toContain('[safe_commands] shell');
    expect(existsSync(join(requiredDir, 'made.txt'))).toBe(false);
    expect(required.result.usage.calls).toBe(0);
  });

  it('does not run command seeds with noSeedCommands, even safe ones', async () => {
    const toml = (required: boolean, model: string) => `
[agent]
name = "nocommands"
model = "${model}"
[context.regions]
task  = { kind = "pinned", max_tokens = 500 }
probe = { kind = "temporary", max_tokens = 500, required = ${required}, seed = { command = "echo probed" } }
[stages.main]
`;
    const options = { noSeedCommands: true };
    const optional = await runAgent(env.rt, writeBlueprint(toml(false, scriptedModel({ turns: [{ text: 'ok' }] }))), {
      task: 'go',
      options,
    });
    expect(optional.result.status).toBe('completed');
    expect(optional.result.regions.find((r) => r.name === 'probe')).toMatchObject({ entries: 0, tokens: 0 });
    expect((await seedWarnings(optional.handle)).join('\n')).toContain('--no-seed-commands');

    const required = await runAgent(
      env.rt,
      writeBlueprint(toml(true, scriptedModel({ turns: [{ text: 'never asked' }] }))),
      { task: 'go', options },
    );
    expect(required.result.status).toBe('failed');
    expect(required.result.error).toContain('--no-seed-commands');
    expect(required.result.usage.calls).toBe(0);
  });

  it('refuses a task when no region reads it, listing the inputs the blueprint takes', async () => {
    const model = scriptedModel({ turns: [{ text: 'never asked' }] });
    const bp = writeBlueprint(`
[agent]
name = "taskless"
model = "${model}"
[context.regions]
rules = { kind = "pinned", max_tokens = 500, seed = { literal = "x" } }
brief = { kind = "pinned", max_tokens = 500, seed = "input" }
[stages.main]
`);
    const run = await runAgent(env.rt, bp, { task: 'please do this', caller: { brief: 'context' } });
    expect(run.result.status).toBe('failed');
    expect(run.result.error).toContain('takes no task');
    expect(run.result.error).toContain('`brief`');
    expect(run.result.usage.calls).toBe(0);

    const accepted = await runAgent(env.rt, bp, { caller: { brief: 'context' } });
    expect(accepted.result.status).toBe('completed');
  });
});

describe('seeds and replay', () => {
  let conn: Awaited<ReturnType<typeof connectClient>>;
  beforeAll(async () => {
    conn = await connectClient();
  });
  afterAll(async () => {
    await conn?.connection.close();
  });

  it('runs a command seed once although a fresh worker replays the run', async () => {
    // The third turn waits at the gate while the run's worker is taken away.
    const gate = `seed-once-${process.pid}-${Date.now()}`;
    const model = scriptedModel({
      turns: Array.from({ length: 6 }, (_, i) => ({
        text: `Step ${i + 1}.`,
        ...(i === 2 ? { gate } : {}),
        tool_calls: [{ name: 'context_append', arguments: { region: 'notes', content: `note ${i + 1}` } }],
      })),
    });
    const bp = writeBlueprint(`
[agent]
name = "seedonce"
model = "${model}"
[safe_commands]
shell = ["tee"]
[context.regions]
task  = { kind = "pinned", max_tokens = 500 }
stamp = { kind = "pinned", max_tokens = 500, seed = { command = "echo seeded | tee -a seed-runs.txt" } }
notes = { kind = "temporary", max_tokens = 2000 }
[stages.main]
`);
    const workdir = tempDir('seed-once');
    const counter = join(workdir, 'seed-runs.txt');
    const first = await startRuntime(conn.client);
    const handle = await startRun(
      conn.client,
      { blueprint: bp, task: 'take notes', caller: {}, workdir, options: DEFAULT_RUN_OPTIONS },
      { taskQueue: first.taskQueue },
    );

    // The run is past its seeds and two turns into the stage when its worker is taken away.
    await gateReached(gate);
    await first.stop();
    expect(lines(counter)).toEqual(['seeded']);
    openGate(gate);

    // A new worker has no cached workflow state: it rebuilds the run by replaying its history.
    const { worker, connection } = await createWorker({
      address: temporalAddress(),
      taskQueue: first.taskQueue,
      bundle: { codePath: inject('workflowBundlePath') },
      runtime: { blobDir: first.blobDir, env: process.env },
    });
    const running = worker.run();
    try {
      const result = await followRun(conn.client, handle, () => {}, 100);
      expect(result.status).toBe('completed');
      expect(result.regions.find((r) => r.name === 'notes')?.entries).toBe(6);
      expect(result.regions.find((r) => r.name === 'stamp')?.tokens).toBeGreaterThan(0);
    } finally {
      worker.shutdown();
      await running;
      await connection.close();
    }
    expect(lines(counter)).toEqual(['seeded']);

    // Replaying the whole recorded history again runs no activity either.
    await saveHistories(conn.client, handle.workflowId);
    await Worker.runReplayHistory(
      { workflowBundle: { codePath: inject('workflowBundlePath') }, sinks: workflowSinks() },
      await handle.fetchHistory(),
      handle.workflowId,
    );
    expect(lines(counter)).toEqual(['seeded']);
  });
});
