/**
 * `lev worker --metrics` (docs/reference/operating.md#metrics): a worker process serves
 * Prometheus text over HTTP, the SDK Core's metrics and Leviath's own `leviath_*`: the turns,
 * model calls, tokens and tool calls its activities counted, and what the workflows decided in
 * a scripted run it served (a write that evicts, a fold, a completion check that blocks, a wait
 * for a person's approval, tool calls the workflow answers itself). The same worker logs with
 * `--log-format json` (docs/reference/operating.md#json-logs): one object a line, its
 * activities' lines naming the run, the stage and the turn.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../src/devserver/net.js';
import { DEFAULT_RUN_OPTIONS } from '../../src/runtime/types.js';
import { runProgress, sendUpdate } from '../../src/worker/operators.js';
import { runOutcome, startRun } from '../../src/worker/run-client.js';
import { connectClient, temporalAddress } from './helpers.js';
import { type LevProcess, startLev } from './lev-process.js';
import { tempDir, writeBlueprint } from './run-helpers.js';

const NOTE = 'A note long enough to fill most of the notes region on its own. '.repeat(3);

const SCRIPT = `
[[turns]]
text = "Reading the data."
[[turns.tool_calls]]
name = "read_file"
arguments = { path = "data.txt" }
[[turns.tool_calls]]
name = "todo_add"
arguments = { region = "todos", item = "count the lines" }
[[turns.tool_calls]]
name = "context_append"
arguments = { region = "notes", content = "${NOTE}" }

[[turns]]
text = "Noting, writing and guessing."
[[turns.tool_calls]]
name = "context_append"
arguments = { region = "notes", content = "${NOTE}" }
[[turns.tool_calls]]
name = "write_file"
arguments = { path = "out.txt", content = "two" }
[[turns.tool_calls]]
name = "frobnicate"
arguments = {}

[[turns]]
text = "The data holds two lines."

[[turns]]
text = "Closing the todo."
[[turns.tool_calls]]
name = "todo_done"
arguments = { region = "todos", id = 1 }

[[turns]]
text = "Done counting."

[[turns]]
text = "Two lines."
`;

/** The value of the first sample of `name` whose labels include every one given. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-z_:]+)(\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const has = Object.entries(labels).every(([k, v]) => (m[3] ?? '').includes(`${k}="${v}"`));
    if (has) return Number(m[4]);
  }
  return undefined;
}

describe('lev worker --metrics', () => {
  let worker: LevProcess | undefined;
  afterAll(async () => {
    worker?.child.kill('SIGTERM');
    await worker?.exited;
  });

  it("serves the SDK's and Leviath's metrics of the runs it served, in Prometheus text", async () => {
    const port = await freePort();
    const queue = `metrics-${process.pid}-${Date.now()}`;
    const home = tempDir('metrics-home');
    worker = startLev(
      [
        'worker',
        '--address',
        temporalAddress(),
        '--task-queue',
        queue,
        '--metrics',
        `127.0.0.1:${port}`,
        '--log-format',
        'json',
        '--log-level',
        'DEBUG',
      ],
      {
        LEVIATH_HOME: home,
        LEVIATH_BUNDLE: inject('workflowBundlePath'),
        LEVIATH_BLOB_DIR: join(home, 'blobs'),
      },
    );
    await worker.waitFor(/polling task queue/, 60_000);

    const bp = writeBlueprint(
      `
[agent]
name = "metered"
model = "scripted:script.toml"
[context.regions]
task         = { kind = "pinned", max_tokens = 500 }
notes        = { kind = "temporary", max_tokens = 80 }
todos        = { kind = "checklist", max_tokens = 500 }
conversation = { kind = "sliding_window", max_tokens = 4000, max_items = 4, strategy = "compact", compact_count = 2 }
[stages.work]
available_tools = ["read_file", "write_file", "context_append", "todo_add", "todo_done"]
[stages.work.transitions.report]
gate = { require_no_open_items = "todos" }
[stages.report]
[tool_permissions]
write_file = "ask"
`,
      { 'script.toml': SCRIPT },
    );
    const workdir = tempDir('metrics-work');
    writeFileSync(join(workdir, 'data.txt'), 'one\ntwo\n');
    const { client, connection } = await connectClient();
    let handle: WorkflowHandle;
    try {
      handle = await startRun(
        client,
        {
          blueprint: bp,
          task: 'read data.txt',
          caller: {},
          workdir,
          // Attended, so the write waits for a person's approval.
          options: { ...DEFAULT_RUN_OPTIONS, toolTaskQueue: queue, unattended: false },
        },
        { taskQueue: queue },
      );
      await expect.poll(async () => (await runProgress(client, handle))?.waiting, { timeout: 60_000 }).toBe('approval');
      await sendUpdate(client, handle.workflowId, 'approve');
      expect((await runOutcome(handle)).status).toBe('completed');
    } finally {
      await connection.close();
    }

    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    const scripted = { provider: 'scripted', model: 'script.toml' };
    expect(sample(text, 'leviath_turns_total', { blueprint: 'metered', stage: 'work' })).toBe(5);
    expect(sample(text, 'leviath_turns_total', { blueprint: 'metered', stage: 'report' })).toBe(1);
    expect(sample(text, 'leviath_model_calls_total', { ...scripted, purpose: 'turn' })).toBe(6);
    // The folds' summaries are model calls too.
    expect(sample(text, 'leviath_model_calls_total', { ...scripted, purpose: 'summary' })).toBeGreaterThan(0);
    expect(sample(text, 'leviath_tokens_in_total', scripted)).toBeGreaterThan(0);
    expect(sample(text, 'leviath_tokens_out_total', scripted)).toBeGreaterThan(0);
    // The tool activity counts the calls it ran; the workflow those it answered itself.
    expect(
      sample(text, 'leviath_tool_calls_total', { tool: 'read_file', outcome: 'ok', activityType: 'runTool' }),
    ).toBe(1);
    expect(
      sample(text, 'leviath_tool_calls_total', { tool: 'write_file', outcome: 'ok', activityType: 'runTool' }),
    ).toBe(1);
    const inWorkflow = { workflowType: 'stageWorkflow' };
    expect(sample(text, 'leviath_tool_calls_total', { tool: 'context_append', outcome: 'ok', ...inWorkflow })).toBe(2);
    expect(sample(text, 'leviath_tool_calls_total', { tool: 'todo_add', outcome: 'ok', ...inWorkflow })).toBe(1);
    expect(sample(text, 'leviath_tool_calls_total', { tool: 'other', outcome: 'refused', ...inWorkflow })).toBe(1);
    // The second note did not fit beside the first, which was evicted; the window folded.
    expect(sample(text, 'leviath_evictions_total', { kind: 'temporary', cause: 'write' })).toBe(1);
    expect(sample(text, 'leviath_evicted_tokens_total', { kind: 'temporary', cause: 'write' })).toBeGreaterThan(0);
    expect(sample(text, 'leviath_folds_total', { kind: 'sliding_window', outcome: 'ok' })).toBeGreaterThan(0);
    expect(sample(text, 'leviath_folded_tokens_total', { kind: 'sliding_window' })).toBeGreaterThan(0);
    // "Done" with a todo open: the check kept the run in its stage once.
    const gate = { blueprint: 'metered', stage: 'work', check: 'require_no_open_items' };
    expect(sample(text, 'leviath_gate_blocks_total', { ...gate, workflowType: 'agentRunWorkflow' })).toBe(1);
    // One wait for approval began and ended: none waits now.
    expect(sample(text, 'leviath_waits_started_total', { reason: 'approval' })).toBe(1);
    expect(sample(text, 'leviath_waits_ended_total', { reason: 'approval' })).toBe(1);
    // The SDK Core's own, under its temporal_ prefix, on the same endpoint.
    expect(text).toMatch(/^temporal_workflow_completed\{/m);
    expect(text).toMatch(/^temporal_activity_execution_latency_bucket\{/m);

    const lines = worker
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('{'));
    const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(
      logged.every((e) => typeof e.time === 'string' && typeof e.level === 'string' && typeof e.message === 'string'),
    ).toBe(true);
    // No line in the SDK's text format.
    expect(worker.stderr()).not.toMatch(/^\d{4}-\d\d-\d\dT\S+ \[(DEBUG|INFO)\]/m);
    const inferLine = logged.find((e) => e.activityType === 'infer' && e.runId === handle.workflowId);
    expect(inferLine).toMatchObject({ stage: 'work', turn: expect.any(Number) });
  });
});
