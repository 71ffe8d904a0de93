/**
 * Fan-out and sub-agents on the real dev server (docs/reference/sub-agents.md):
 * workers are child runs, at most `max_workers` run at once, the report
 * follows item order, a failing worker is reported (`continue`) or fails the
 * stage (`fail`), fan-outs nest, and `spawn_agent` works with and without
 * waiting.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalBlobStore } from '../../src/blobs/index.js';
import { loadBlueprint } from '../../src/blueprint/load.js';
import { printRunResult } from '../../src/cli/result-action.js';
import { gateReached, openGate } from '../../src/providers/index.js';
import { idSegment, type RunResult, type StageOutcome } from '../../src/runtime/index.js';
import { RUN_PATCHES_AT_ONCE } from '../../src/runtime/patches.js';
import { runProgress, sendUpdate } from '../../src/worker/operators.js';
import { temporalAddress } from './helpers.js';
import {
  patchIds,
  runAgent,
  scopedEnv,
  scriptedModel,
  type TestRuntime,
  tempDir,
  useRuntime,
  visitOps,
  writeBlueprint,
} from './run-helpers.js';

const EVENT = proto.temporal.api.enums.v1.EventType;

/** A fan-out blueprint: `split` hands items to the `work` stage, `merge` goes on with the report. */
function fanOutBlueprint(model: string, extra = ''): string {
  return `
[agent]
name = "fanner"
model = "${model}"

[models."${model}"]
context_window = 64000

[context.regions]
task    = { kind = "pinned", max_tokens = 2000, seed = "task_input" }
results = { kind = "temporary", max_tokens = 20000 }

[stages.split]
mode = "fan_out"
worker_stage = "work"
results_region = "results"
merge_stage = "merge"
${extra}

[stages.work]
allow_as_worker = true

[stages.merge]
`;
}

function items(n: number): { id: string; context: string }[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `file-${String(i + 1).padStart(2, '0')}.ts`,
    context: `review file ${i + 1}`,
  }));
}

/** The most children a workflow had open at once, read from its history: starts initiated minus children closed. */
async function peakChildren(
  client: Client,
  workflowId: string,
  type = 'agentRunWorkflow',
): Promise<{ peak: number; started: number }> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  let open = 0;
  let peak = 0;
  let started = 0;
  const closing = [
    EVENT.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED,
    EVENT.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_FAILED,
    EVENT.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_CANCELED,
    EVENT.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_TERMINATED,
    EVENT.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_FAILED,
  ];
  for (const e of history.events ?? []) {
    if (
      e.eventType === EVENT.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED &&
      e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowType?.name === type
    ) {
      open++;
      started++;
      peak = Math.max(peak, open);
    }
    if (e.eventType !== null && e.eventType !== undefined && closing.includes(e.eventType)) open--;
  }
  return { peak, started };
}

/** The text of each tool result a stage visit (or a fan-out worker's run) routed, by tool name, in call order (blobs read back). */
async function toolResults(rt: TestRuntime, visitId: string, tool: string): Promise<string[]> {
  const blobs = new LocalBlobStore(rt.blobDir);
  const out: string[] = [];
  for (const op of await visitOps(rt.client, visitId)) {
    if (op.call.kind !== 'route' || op.call.call.name !== tool) continue;
    const content = op.call.result.content;
    out.push(typeof content === 'string' ? content : await blobs.get(content.hash));
  }
  return out;
}

/** Ids of the workflows a visibility query lists, sorted. */
async function workflowIds(client: Client, query: string): Promise<string[]> {
  const out: string[] = [];
  for await (const wf of client.workflow.list({ query })) out.push(wf.workflowId);
  return out.sort();
}

/** The ids of the patches a workflow's history recorded markers for, in order. */
async function patchesOf(client: Client, workflowId: string): Promise<string[]> {
  return patchIds(await client.workflow.getHandle(workflowId).fetchHistory());
}

/** The types of the activities a workflow's history scheduled, in order (local activities are markers). */
async function activitiesOf(client: Client, workflowId: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? []) {
    const name = e.activityTaskScheduledEventAttributes?.activityType?.name;
    if (name) out.push(name);
  }
  return out;
}

/** The texts a run (or a worker) seeded each region with, by region (blobs read back). */
async function seedTexts(rt: TestRuntime, workflowId: string): Promise<Record<string, string[]>> {
  const blobs = new LocalBlobStore(rt.blobDir);
  const out: Record<string, string[]> = {};
  for (const op of await visitOps(rt.client, workflowId)) {
    if (op.call.kind !== 'seed') continue;
    const texts: string[] = [];
    for (const t of op.call.texts)
      texts.push(typeof t.content === 'string' ? t.content : await blobs.get(t.content.hash));
    out[op.call.region] = texts;
  }
  return out;
}

/** Workers of a run, as the Web UI lists them: `LeviathParent = "<run id>"`. */
async function workersOf(client: Client, runId: string): Promise<{ id: string; status: string }[]> {
  const out: { id: string; status: string }[] = [];
  for await (const wf of client.workflow.list({ query: `LeviathParent = '${runId}'` }))
    out.push({ id: wf.workflowId, status: wf.status.name });
  return out.sort((a, b) => a.id.localeCompare(b.id));
}

describe('fan-out', () => {
  const env = useRuntime();

  it('runs 25 items with at most 4 workers at once and reports all of them in item order', async () => {
    const work = items(25);
    const model = scriptedModel({
      turns: [
        { stage: 'split', text: 'Splitting.', tool_calls: [{ name: 'fan_out', arguments: { items: work } }] },
        ...work.map((w, i) => ({ stage: 'work', item: w.id, text: `finding ${i + 1}: fine` })),
        { stage: 'merge', text: 'All files reviewed.' },
      ],
    });
    const bp = writeBlueprint(fanOutBlueprint(model, 'max_workers = 4'));
    const run = await runAgent(env.rt, bp, { task: 'Review the 25 files.' });
    expect(run.result.status).toBe('completed');
    expect(run.result.stages).toEqual(['split', 'merge']);

    const runId = run.handle.workflowId;
    const visit = `${runId}.1.split`;
    expect(await peakChildren(env.rt.client, visit)).toEqual({ peak: 4, started: 25 });
    const workers = await workersOf(env.rt.client, runId);
    expect(workers.map((w) => w.id)).toEqual(work.map((w) => `${runId}/${idSegment(w.id)}`).sort());
    expect(workers.every((w) => w.status === 'COMPLETED')).toBe(true);
    // Each worker is one workflow: its stage visit ran inside its run, whose one marker stands for its every patch.
    const first = `${runId}/${idSegment(work[0]!.id)}`;
    expect(await workflowIds(env.rt.client, `WorkflowId STARTS_WITH '${first}.'`)).toEqual([]);
    expect(await patchesOf(env.rt.client, first)).toEqual([RUN_PATCHES_AT_ONCE]);
    expect(await patchesOf(env.rt.client, runId)).toEqual([RUN_PATCHES_AT_ONCE]);

    const [report] = await toolResults(env.rt, visit, 'fan_out');
    expect(report?.split('\n')[0]).toBe('[fan_out results: 25 succeeded, 0 failed]');
    const order = [...(report ?? '').matchAll(/^## worker (\S+)$/gm)].map((m) => m[1]);
    expect(order).toEqual(work.map((w) => w.id));
    expect(report).toContain('## worker file-07.ts\nfinding 7: fine');
  });

  it('splits a fan-out too large for one history into shards, and still reports every item in order', async () => {
    const work = items(10);
    const model = scriptedModel({
      turns: [
        { stage: 'split', tool_calls: [{ name: 'fan_out', arguments: { items: work } }] },
        ...work.map((w, i) => ({ stage: 'work', item: w.id, text: `part ${i + 1} done` })),
        { stage: 'merge', text: 'Merged.' },
      ],
    });
    const bp = writeBlueprint(fanOutBlueprint(model, 'max_workers = 3'));
    const run = await runAgent(env.rt, bp, {
      task: 'Ten parts.',
      options: { fanOutShardItems: 4 },
    });
    expect(run.result.status).toBe('completed');
    // The shards hand back what their workers spent: one call each, beside the split's and the merge's.
    expect(run.result.usage.agents?.calls).toBe(10);
    expect(run.result.usage.calls).toBe(12);
    const runId = run.handle.workflowId;
    const visit = `${runId}.1.split`;
    // Three shards of 4, 4 and 2 items run at once, one worker each: never more than 3 workers.
    expect(await peakChildren(env.rt.client, visit, 'fanOutShardWorkflow')).toEqual({ peak: 3, started: 3 });
    expect(await peakChildren(env.rt.client, visit)).toEqual({ peak: 0, started: 0 });
    for (const k of [1, 2, 3]) expect((await peakChildren(env.rt.client, `${runId}/~shard-${k}`)).peak).toBe(1);
    const workers = await workersOf(env.rt.client, runId);
    expect(workers.map((w) => w.id)).toEqual(work.map((w) => `${runId}/${idSegment(w.id)}`).sort());
    const [report] = await toolResults(env.rt, visit, 'fan_out');
    expect(report?.split('\n')[0]).toBe('[fan_out results: 10 succeeded, 0 failed]');
    expect([...(report ?? '').matchAll(/^## worker (\S+)$/gm)].map((m) => m[1])).toEqual(work.map((w) => w.id));
    expect(report).toContain('## worker file-10.ts\npart 10 done');
  });

  it("resolves a worker's input seeds as it starts, and its file seeds in an activity of their own", async () => {
    const work = items(1);
    const guide = 'guide = { kind = "pinned", max_tokens = 500, seed = { files = ["guide.md"] } }\n';
    const workdir = tempDir('work');
    writeFileSync(join(workdir, 'guide.md'), 'Be brief.');
    for (const [regions, expected] of [
      ['', []],
      [guide, ['resolveSeeds']],
    ] as const) {
      const model = scriptedModel({
        turns: [
          { stage: 'split', tool_calls: [{ name: 'fan_out', arguments: { items: work } }] },
          { stage: 'work', text: 'read it' },
          { stage: 'merge', text: 'Merged.' },
        ],
      });
      const bp = writeBlueprint(fanOutBlueprint(model).replace('[stages.split]', `${regions}\n[stages.split]`));
      const run = await runAgent(env.rt, bp, { task: 'One file.', workdir });
      expect(run.result.status).toBe('completed');
      const worker = `${run.handle.workflowId}/${idSegment(work[0]!.id)}`;
      // The worker starts with a local activity; only seeds that read the host take one of their own.
      expect((await activitiesOf(env.rt.client, worker)).filter((a) => a !== 'infer')).toEqual(expected);
      const seeded = await seedTexts(env.rt, worker);
      expect(seeded.task).toEqual(['review file 1']);
      if (regions) expect(seeded.guide).toEqual(['Be brief.']);
    }
  });

  it('goes on with a long worker visit as a child stage workflow, and reports what it ended with', async () => {
    const work = items(1);
    const note = (k: number) => ({ name: 'context_append', arguments: { region: 'results', content: `note ${k}` } });
    const model = scriptedModel({
      turns: [
        { stage: 'split', tool_calls: [{ name: 'fan_out', arguments: { items: work } }] },
        { stage: 'work', tool_calls: [note(1)] },
        { stage: 'work', tool_calls: [note(2)] },
        { stage: 'work', tool_calls: [note(3)] },
        { stage: 'work', text: 'three notes taken' },
        { stage: 'merge', text: 'Merged.' },
      ],
    });
    const bp = writeBlueprint(fanOutBlueprint(model));
    const run = await runAgent(env.rt, bp, { task: 'One long item.', options: { turnsPerRun: 2 } });
    expect(run.result.status).toBe('completed');
    const runId = run.handle.workflowId;
    const worker = `${runId}/${idSegment(work[0]!.id)}`;
    // Two turns inside the worker's run, then the visit went on as new under its visit id.
    expect((await activitiesOf(env.rt.client, worker)).filter((a) => a === 'infer')).toHaveLength(2);
    const visit = await env.rt.client.workflow.getHandle(`${worker}.1.work`).describe();
    expect(visit.status.name).toBe('COMPLETED');
    expect(await workflowIds(env.rt.client, `WorkflowId STARTS_WITH '${worker}.'`)).toEqual([`${worker}.1.work`]);
    const [report] = await toolResults(env.rt, `${runId}.1.split`, 'fan_out');
    expect(report).toContain(`## worker ${work[0]!.id}\nthree notes taken`);
    expect(run.result.usage.agents?.calls).toBe(4);
  });

  it("shows a running worker's live turn in its progress, and takes a person's message through its update", async () => {
    const runId = `steered-fan-${Date.now()}`;
    const secondLook = `second-look-${process.pid}-${Date.now()}`;
    const work = items(1);
    const worker = `${runId}/${idSegment(work[0]!.id)}`;
    const model = scriptedModel({
      turns: [
        { stage: 'split', tool_calls: [{ name: 'fan_out', arguments: { items: work } }] },
        {
          stage: 'work',
          tool_calls: [{ name: 'context_append', arguments: { region: 'results', content: 'first look' } }],
        },
        {
          stage: 'work',
          gate: secondLook,
          tool_calls: [{ name: 'context_append', arguments: { region: 'results', content: 'second look' } }],
        },
        { stage: 'work', text: 'looked twice' },
        { stage: 'merge', text: 'Merged.' },
      ],
    });
    const bp = writeBlueprint(fanOutBlueprint(model));
    const running = runAgent(env.rt, bp, { task: 'One item.', workflowId: runId });
    // The worker's second inference is held in flight while the test looks at it and steers it.
    await gateReached(secondLook);
    // The worker's progress is its visit's: its turn and the entry its first turn wrote.
    const live = await runProgress(env.rt.client, env.rt.client.workflow.getHandle(worker));
    expect(live).toMatchObject({ status: 'running', stage: 'work', visitTurns: 1 });
    expect(live?.regions.find((r) => r.name === 'results')?.entries).toBe(1);
    expect(live?.stageWorkflowId).toBeUndefined();
    // Delivered to the visit running inside the worker's run, not held for a later one.
    expect(await sendUpdate(env.rt.client, worker, 'message', 'Mind the dates.')).toMatchObject({
      held: false,
      stage: 'work',
    });
    openGate(secondLook);

    const run = await running;
    expect(run.result.status).toBe('completed');
    // The message was written into the worker's conversation before its next inference.
    const ops = await visitOps(env.rt.client, worker);
    expect(ops.some((op) => JSON.stringify(op.call).includes('Mind the dates.'))).toBe(true);
  });

  it('reports a failed worker and goes on with on_worker_failure = "continue"', async () => {
    const work = items(3);
    const model = scriptedModel({
      turns: [
        { stage: 'split', tool_calls: [{ name: 'fan_out', arguments: { items: work } }] },
        { stage: 'work', item: 'file-02.ts', fail: { kind: 'bad-request' } },
        { stage: 'work', text: 'looks fine' },
        { stage: 'merge', text: 'Merged what came back.' },
      ],
    });
    const bp = writeBlueprint(fanOutBlueprint(model, 'on_worker_failure = "continue"'));
    const run = await runAgent(env.rt, bp, { task: 'Review three files.' });
    expect(run.result.status).toBe('completed');
    expect(run.result.stages).toEqual(['split', 'merge']);
    const [report] = await toolResults(env.rt, `${run.handle.workflowId}.1.split`, 'fan_out');
    expect(report?.split('\n')[0]).toBe('[fan_out results: 2 succeeded, 1 failed]');
    expect(report).toMatch(/## worker file-02\.ts FAILED\n.*provider-bad-request/);
    expect(report).toContain('## worker file-03.ts\nlooks fine');
  });

  it('fails the stage and stops the other workers with on_worker_failure = "fail"', async () => {
    const work = items(4);
    const model = scriptedModel({
      turns: [
        { stage: 'split', tool_calls: [{ name: 'fan_out', arguments: { items: work } }] },
        { stage: 'work', item: 'file-02.ts', fail: { kind: 'bad-request' } },
        { stage: 'work', text: 'looks fine' },
        { stage: 'merge', text: 'never reached' },
      ],
    });
    const bp = writeBlueprint(fanOutBlueprint(model, 'on_worker_failure = "fail"\nmax_workers = 1'));
    const run = await runAgent(env.rt, bp, { task: 'Review four files.' });
    expect(run.result.status).toBe('failed');
    expect(run.result.error).toMatch(/stage "split" ended with error/);
    expect(run.result.stages).toEqual(['split']);
    expect(run.result.diagnostics.map((d) => d.code)).toContain('fan-out-failed');
    const runId = run.handle.workflowId;
    expect((await workersOf(env.rt.client, runId)).map((w) => w.id)).toEqual([
      `${runId}/file-01%2Ets`,
      `${runId}/file-02%2Ets`,
    ]);
  });

  it('nests two levels deep: each worker fans out to workers of its own', async () => {
    const model = scriptedModel({
      turns: [
        {
          stage: 'split',
          tool_calls: [
            {
              name: 'fan_out',
              arguments: {
                items: [
                  { id: 'left', context: 'the left half' },
                  { id: 'right', context: 'the right half' },
                ],
              },
            },
          ],
        },
        {
          stage: 'halve',
          tool_calls: [
            {
              name: 'fan_out',
              arguments: {
                items: [
                  { id: 'a', context: 'quarter a' },
                  { id: 'b', context: 'quarter b' },
                ],
              },
            },
          ],
        },
        { stage: 'leaf', text: 'leaf done' },
        { stage: 'merge', text: 'Both halves done.' },
      ],
    });
    const bp = writeBlueprint(`
[agent]
name = "nested"
model = "${model}"
[context.regions]
task = { kind = "pinned", max_tokens = 2000, seed = "task_input" }
[stages.split]
mode = "fan_out"
worker_stage = "halve"
merge_stage = "merge"
[stages.halve]
allow_as_worker = true
mode = "fan_out"
worker_stage = "leaf"
[stages.leaf]
allow_as_worker = true
[stages.merge]
`);
    const run = await runAgent(env.rt, bp, { task: 'Split in four.' });
    expect(run.result.status).toBe('completed');
    const runId = run.handle.workflowId;
    expect((await workersOf(env.rt.client, runId)).map((w) => w.id)).toEqual([`${runId}/left`, `${runId}/right`]);
    for (const half of ['left', 'right']) {
      const leaves = await workersOf(env.rt.client, `${runId}/${half}`);
      expect(leaves).toEqual([
        { id: `${runId}/${half}/a`, status: 'COMPLETED' },
        { id: `${runId}/${half}/b`, status: 'COMPLETED' },
      ]);
      // A half's visit runs inside its run, so the half's own history starts its two leaves.
      expect(await peakChildren(env.rt.client, `${runId}/${half}`)).toEqual({ peak: 2, started: 2 });
    }
    const [top] = await toolResults(env.rt, `${runId}.1.split`, 'fan_out');
    expect(top).toContain('[fan_out results: 2 succeeded, 0 failed]');

    // Usage rolls up the tree: each half made 1 call and its 2 leaves 1 each; the top run made 2 of its own.
    const half = (await env.rt.client.workflow.getHandle(`${runId}/left`).result()) as RunResult;
    expect(half.usage.calls).toBe(3);
    expect(run.result.usage.calls).toBe(8);
    expect(run.result.usage.agents?.calls).toBe(6);
    expect(run.result.usage.perStage.split?.calls).toBe(1);
    expect(run.result.cost?.unpriced).toEqual([model]);
    const memo = (await run.handle.describe()).memo as { usage: { calls: number } };
    expect(memo.usage.calls).toBe(8);
    const printed: string[] = [];
    const write = process.stdout.write;
    process.stdout.write = ((chunk: string) => printed.push(String(chunk)) > 0) as typeof process.stdout.write;
    try {
      await printRunResult(runId, { address: temporalAddress(), namespace: 'default', json: true });
    } finally {
      process.stdout.write = write;
    }
    expect(JSON.parse(printed.join('')).usage.calls).toBe(8);
  });
});

describe('blueprints/reviewer', () => {
  const env = useRuntime();

  it('reviews each file in a worker of its own and writes one report from the merged findings', async () => {
    const loaded = loadBlueprint('blueprints/reviewer');
    if (!loaded.blueprint) throw new Error(loaded.diagnostics.map((d) => d.message).join('\n'));
    const run = await runAgent(env.rt, loaded.blueprint, {
      task: 'Review the change in src/ and report every problem by file.',
      workdir: join(process.cwd(), 'blueprints/reviewer/workspace'),
    });
    expect(run.result.status).toBe('completed');
    expect(run.result.stages).toEqual(['split', 'report']);
    expect(run.result.outputFormat).toBe('markdown');
    expect(run.result.output).toMatch(/^# Review\n/);
    const runId = run.handle.workflowId;
    const files = ['src/billing.ts', 'src/gateway.ts', 'src/ledger.ts', 'src/report.ts'];
    expect(await workersOf(env.rt.client, runId)).toEqual(
      files.map((f) => ({ id: `${runId}/${idSegment(f)}`, status: 'COMPLETED' })),
    );
    const [report] = await toolResults(env.rt, `${runId}.1.split`, 'fan_out');
    expect(report?.split('\n')[0]).toBe('[fan_out results: 4 succeeded, 0 failed]');
    expect(report).toContain('## worker src/gateway.ts\nline 1: a live API key is committed');
    expect(report).toContain('## worker src/ledger.ts\nno problems found');
    expect(run.result.regions.find((r) => r.name === 'reviews')?.entries).toBe(1);
  });
});

describe('spawn_agent', () => {
  const env = useRuntime();

  it('returns the answer when it waits, and an id to check and wait on when it does not', async () => {
    const runId = `spawner-${Date.now()}`;
    const later = `${runId}/call_1_0`;
    const model = scriptedModel({
      turns: [
        {
          stage: 'main',
          tool_calls: [{ name: 'spawn_agent', arguments: { stage: 'helper', task: 'count the files', wait: true } }],
        },
        {
          stage: 'main',
          tool_calls: [{ name: 'spawn_agent', arguments: { blueprint: 'sidekick', task: 'write notes', wait: false } }],
        },
        { stage: 'main', tool_calls: [{ name: 'wait_for_agent', arguments: { id: later } }] },
        { stage: 'main', tool_calls: [{ name: 'check_agent', arguments: { id: later } }] },
        { stage: 'main', tool_calls: [{ name: 'check_agent', arguments: { id: 'nobody' } }] },
        { stage: 'main', text: 'Both helpers answered.' },
        { stage: 'helper', text: 'There are 3 files.' },
        { stage: 'side', text: 'Notes written.' },
      ],
    });
    const bp = writeBlueprint(
      `
[agent]
name = "spawner"
model = "${model}"
sub_agents = ["./sidekick"]
[stages.main]
available_tools = ["spawn_agent", "check_agent", "wait_for_agent"]
[stages.helper]
allow_as_worker = true
`,
      { 'sidekick/agent.toml': `[agent]\nname = "sidekick"\nmodel = "${model}"\n[stages.side]\n` },
    );
    const run = await runAgent(env.rt, bp, { task: 'Get help.', workflowId: runId });
    expect(run.result.status).toBe('completed');
    const visit = `${runId}.1.main`;
    const spawned = await toolResults(env.rt, visit, 'spawn_agent');
    expect(spawned[0]).toBe('There are 3 files.');
    expect(spawned[1]).toMatch(new RegExp(`^Started agent ${later} \\(sidekick\\)`));
    expect(await toolResults(env.rt, visit, 'wait_for_agent')).toEqual(['Notes written.']);
    const checks = await toolResults(env.rt, visit, 'check_agent');
    expect(checks[0]).toBe('Notes written.');
    expect(checks[1]).toMatch(/^\[agent-not-found\] /);
    expect(await workersOf(env.rt.client, runId)).toEqual([
      { id: `${runId}/call_0_0`, status: 'COMPLETED' },
      { id: later, status: 'COMPLETED' },
    ]);
  });
});

describe("a sub-agent's large answer", () => {
  const env = useRuntime();
  const vars = scopedEnv();
  afterAll(() => vars.restore());

  it('travels as a blob reference, reaches the parent cut to its room, and lev result prints all of it', async () => {
    const answer = `${'finding '.repeat(500)}end`;
    const model = scriptedModel({
      turns: [
        { stage: 'main', tool_calls: [{ name: 'spawn_agent', arguments: { stage: 'long', task: 'write a lot' } }] },
        { stage: 'main', text: 'Read it.' },
        { stage: 'long', tool_calls: [{ name: 'submit_output', arguments: { content: answer } }] },
        { stage: 'long', text: 'Submitted.' },
      ],
    });
    const runId = `long-answer-${Date.now()}`;
    const bp = writeBlueprint(`
[agent]
name = "long-answer"
model = "${model}"
[context.regions]
task  = { kind = "pinned", max_tokens = 500 }
found = { kind = "temporary", max_tokens = 300 }
[stages.main]
available_tools = ["spawn_agent"]
[stages.main.tool_routing]
default_region = "found"
[stages.long]
allow_as_worker = true
require_output = true
`);
    const run = await runAgent(env.rt, bp, { task: 'Get a long answer.', workflowId: runId });
    expect(run.result.status).toBe('completed');
    const child = `${runId}/call_0_0`;
    const result = (await env.rt.client.workflow.getHandle(child).result()) as RunResult;
    expect(result.outputRef?.bytes).toBe(answer.length);
    expect(result.output).toBe(answer.slice(0, 200));
    const [got] = await toolResults(env.rt, `${runId}.1.main`, 'spawn_agent');
    expect(got).toMatch(/^finding finding/);
    expect(got).toMatch(/agent .*call_0_0's run holds all of it/);

    vars.set({ LEVIATH_BLOB_DIR: env.rt.blobDir });
    const printed: string[] = [];
    const write = process.stdout.write;
    process.stdout.write = ((chunk: string) => printed.push(String(chunk)) > 0) as typeof process.stdout.write;
    try {
      await printRunResult(child, { address: temporalAddress(), namespace: 'default', json: true });
    } finally {
      process.stdout.write = write;
    }
    expect(JSON.parse(printed.join('')).output).toEqual({ format: 'text', text: answer });
  });
});

describe('send_to_agent and kill_agent', () => {
  const env = useRuntime();

  it("send a message into a running agent's conversation through its message update, and stop another", async () => {
    const runId = `steerer-${Date.now()}`;
    const listener = `${runId}/call_0_0`;
    const sleeper = `${runId}/call_3_0`;
    // The listener's first turn is held in flight from before the message is sent until after it
    // was delivered; the sleeper's turn is never answered, so only kill_agent ends it.
    const gate = (what: string) => `${what}-${process.pid}-${Date.now()}`;
    const [listening, send, sent, asleep] = ['listening', 'send', 'sent', 'asleep'].map(gate) as [
      string,
      string,
      string,
      string,
    ];
    const model = scriptedModel({
      turns: [
        {
          stage: 'main',
          tool_calls: [{ name: 'spawn_agent', arguments: { stage: 'listen', task: 'listen', wait: false } }],
        },
        {
          stage: 'main',
          gate: send,
          tool_calls: [{ name: 'send_to_agent', arguments: { id: listener, message: 'Use British spelling.' } }],
        },
        { stage: 'main', gate: sent, tool_calls: [{ name: 'wait_for_agent', arguments: { id: listener } }] },
        {
          stage: 'main',
          tool_calls: [{ name: 'spawn_agent', arguments: { stage: 'sleep', task: 'sleep', wait: false } }],
        },
        { stage: 'main', tool_calls: [{ name: 'kill_agent', arguments: { id: sleeper } }] },
        { stage: 'main', tool_calls: [{ name: 'send_to_agent', arguments: { id: sleeper, message: 'too late' } }] },
        { stage: 'main', text: 'Done.' },
        {
          stage: 'listen',
          gate: listening,
          tool_calls: [{ name: 'context_append', arguments: { region: 'notes', content: 'listening' } }],
        },
        { stage: 'listen', text: 'Noted: British spelling.' },
        { stage: 'sleep', gate: asleep, text: 'never answered' },
      ],
    });
    const bp = writeBlueprint(`
[agent]
name = "steerer"
model = "${model}"
[context.regions]
task  = { kind = "pinned", max_tokens = 500 }
notes = { kind = "temporary", max_tokens = 500 }
[stages.main]
available_tools = ["spawn_agent", "send_to_agent", "wait_for_agent", "kill_agent"]
[stages.listen]
allow_as_worker = true
[stages.sleep]
allow_as_worker = true
`);
    const running = runAgent(env.rt, bp, { task: 'Steer helpers.', workflowId: runId });
    await gateReached(listening);
    openGate(send);
    // The main stage asks for its next turn once send_to_agent has answered: the message was delivered.
    await gateReached(sent);
    openGate(listening);
    openGate(sent);
    const run = await running;
    expect(run.result.status).toBe('completed');
    const visit = `${runId}.1.main`;
    expect(await toolResults(env.rt, visit, 'send_to_agent')).toEqual([
      `Sent the message to agent ${listener}.`,
      `agent ${sleeper} has already ended (cancelled).`,
    ]);
    expect(await toolResults(env.rt, visit, 'wait_for_agent')).toEqual(['Noted: British spelling.']);
    expect(await toolResults(env.rt, visit, 'kill_agent')).toEqual([`agent ${sleeper} was stopped.`]);
    const heard = (await env.rt.client.workflow.getHandle(`${listener}.1.listen`).result()) as StageOutcome;
    const written = heard.carried.state.regions.find((r) => r.name === 'conversation')?.entries.map((e) => e.content);
    expect(written).toContain('Use British spelling.');
    expect(await workersOf(env.rt.client, runId)).toEqual([
      { id: listener, status: 'COMPLETED' },
      { id: sleeper, status: 'CANCELLED' },
    ]);
  });
});

describe('fan-out and sub-agents given bad input', () => {
  const env = useRuntime();

  it('a fan-out stage that never fans out is asked again, then goes on with fan-out-empty', async () => {
    const model = scriptedModel({
      turns: [
        { stage: 'split', text: 'There is nothing to split.' },
        { stage: 'split', text: 'Still nothing.' },
        { stage: 'merge', text: 'Merged nothing.' },
      ],
    });
    const bp = writeBlueprint(fanOutBlueprint(model, 'max_attempts = 1'));
    const run = await runAgent(env.rt, bp, { task: 'Nothing to do.' });
    expect(run.result.status).toBe('completed');
    expect(run.result.stages).toEqual(['split', 'merge']);
    const empty = run.result.diagnostics.find((d) => d.code === 'fan-out-empty');
    expect(empty?.detail).toMatch(/without a fan_out call after being asked 1 time/);
    expect(await workersOf(env.rt.client, run.handle.workflowId)).toEqual([]);
  });

  it("refuses an agent tool its stage's permissions deny, and one a worker's ancestor denies", async () => {
    const model = scriptedModel({
      turns: [
        { stage: 'split', tool_calls: [{ name: 'fan_out', arguments: { items: [{ id: 'only', context: 'x' }] } }] },
        { stage: 'work', tool_calls: [{ name: 'spawn_agent', arguments: { stage: 'work', task: 'deeper' } }] },
        { stage: 'work', text: 'gave up on helpers' },
        { stage: 'merge', tool_calls: [{ name: 'spawn_agent', arguments: { stage: 'work', task: 'again' } }] },
        { stage: 'merge', text: 'Done.' },
      ],
    });
    const bp = writeBlueprint(`
[agent]
name = "guarded"
model = "${model}"
[tool_permissions]
spawn_agent = "allow"
[stages.split]
mode = "fan_out"
worker_stage = "work"
merge_stage = "merge"
[stages.split.tool_permissions]
spawn_agent = "deny"
[stages.work]
allow_as_worker = true
available_tools = ["spawn_agent"]
[stages.merge]
available_tools = ["spawn_agent"]
[stages.merge.tool_permissions]
spawn_agent = "deny"
`);
    const run = await runAgent(env.rt, bp, { task: 'Try to nest.' });
    expect(run.result.status).toBe('completed');
    const runId = run.handle.workflowId;
    // The worker's own stage allows spawn_agent; the stage that started it does not.
    const [deeper] = await toolResults(env.rt, `${runId}/only`, 'spawn_agent');
    expect(deeper).toMatch(/^\[permission-denied\] `spawn_agent` is denied/);
    const [again] = await toolResults(env.rt, `${runId}.2.merge`, 'spawn_agent');
    expect(again).toMatch(/^\[permission-denied\] /);
    expect(await workersOf(env.rt.client, `${runId}/only`)).toEqual([]);
  });

  it('refuses fan_out next to another call, accepts an empty fan-out, and reports a failed agent', async () => {
    const model = scriptedModel({
      turns: [
        {
          stage: 'main',
          tool_calls: [
            { name: 'fan_out', arguments: { stage: 'helper', items: [{ id: 'a', context: 'x' }] } },
            { name: 'current_time', arguments: {} },
          ],
        },
        { stage: 'main', tool_calls: [{ name: 'fan_out', arguments: { stage: 'helper', items: [] } }] },
        { stage: 'main', tool_calls: [{ name: 'spawn_agent', arguments: { stage: 'helper', task: 'fail' } }] },
        { stage: 'main', tool_calls: [{ name: 'spawn_agent', arguments: { stage: 'main', task: 'me' } }] },
        { stage: 'main', text: 'Done.' },
        { stage: 'helper', fail: { kind: 'bad-request' } },
      ],
    });
    const bp = writeBlueprint(`
[agent]
name = "picky"
model = "${model}"
[stages.main]
available_tools = ["fan_out", "spawn_agent", "current_time"]
[stages.helper]
allow_as_worker = true
`);
    const run = await runAgent(env.rt, bp, { task: 'Try things.' });
    expect(run.result.status).toBe('completed');
    const visit = `${run.handle.workflowId}.1.main`;
    const fans = await toolResults(env.rt, visit, 'fan_out');
    expect(fans[0]).toMatch(/^\[fan-out-not-alone\] fan_out waits for all its workers/);
    expect(fans[1]).toBe('[fan_out results: no items, so no worker ran]');
    const spawns = await toolResults(env.rt, visit, 'spawn_agent');
    expect(spawns[0]).toMatch(/^\[agent-failed\] agent .*\/call_2_0 failed: .*provider-bad-request/);
    expect(spawns[1]).toMatch(/^\[worker-stage-not-allowed\] stage "main" does not run as a worker/);
    expect(await toolResults(env.rt, visit, 'current_time')).toHaveLength(1);
  });
});
