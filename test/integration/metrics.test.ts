/**
 * `lev worker --metrics` (docs/reference/operating.md#metrics): a worker process serves
 * Prometheus text over HTTP, the SDK Core's metrics and Leviath's own `leviath_*`, which
 * count the turns, model calls, tokens and tool calls of a scripted run it served. The same
 * worker logs with `--log-format json` (docs/reference/operating.md#json-logs): one object a
 * line, its activities' lines naming the run, the stage and the turn.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../src/devserver/net.js';
import { DEFAULT_RUN_OPTIONS } from '../../src/runtime/types.js';
import { runOutcome, startRun } from '../../src/worker/client.js';
import { connectClient } from './helpers.js';
import { type LevProcess, startLev } from './lev-process.js';
import { tempDir, writeBlueprint } from './run-helpers.js';

const SCRIPT = `
[[turns]]
text = "Reading the data."
[[turns.tool_calls]]
name = "read_file"
arguments = { path = "data.txt" }

[[turns]]
text = "The data holds two lines."
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
        inject('temporalAddress'),
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
conversation = { kind = "sliding_window", max_tokens = 4000 }
[stages.work]
available_tools = ["read_file"]
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
          options: { ...DEFAULT_RUN_OPTIONS, toolTaskQueue: queue },
        },
        { taskQueue: queue },
      );
      expect((await runOutcome(handle)).status).toBe('completed');
    } finally {
      await connection.close();
    }

    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    const scripted = { provider: 'scripted', model: 'script.toml' };
    expect(sample(text, 'leviath_turns_total', { blueprint: 'metered', stage: 'work' })).toBe(2);
    expect(sample(text, 'leviath_model_calls_total', { ...scripted, purpose: 'turn' })).toBe(2);
    expect(sample(text, 'leviath_tokens_in_total', scripted)).toBeGreaterThan(0);
    expect(sample(text, 'leviath_tokens_out_total', scripted)).toBeGreaterThan(0);
    expect(sample(text, 'leviath_tool_calls_total', { tool: 'read_file', outcome: 'ok' })).toBe(1);
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
