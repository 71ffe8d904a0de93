/**
 * A fan-out survives the death of the worker process running it, and
 * cancelling the parent cancels its workers (docs/reference/sub-agents.md#temporal-shape).
 * Workers here are separate processes, as in a deployment, sharing one blob
 * folder; the calls they are killed or cancelled in are held at scripted
 * gates (docs/scripted.md#gates).
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { stringify } from 'smol-toml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalBlobStore } from '../../src/blobs/index.js';
import { gateReached, openGate } from '../../src/providers/index.js';
import { DEFAULT_RUN_OPTIONS } from '../../src/runtime/index.js';
import { INFERENCE_SHAPES, type InferenceShape, shapeToml } from '../../src/runtime/inference-shape.js';
import { followRun, startRun } from '../../src/worker/run-client.js';
import { connectClient } from './helpers.js';
import { saveHistories, tempDir, visitOps, writeBlueprint } from './run-helpers.js';
import { startStandbyWorker, startWorkerProcess, waitFor, workerEnv } from './worker-processes.js';

/** Inferences the scripted model served to workers (runs whose id holds `/`), from the shared log. */
function workerTurns(log: string): number {
  if (!existsSync(log)) return 0;
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { runId: string; purpose: string })
    .filter((s) => s.runId.includes('/') && s.purpose === 'turn').length;
}

async function workers(client: Client, runId: string): Promise<{ id: string; status: string }[]> {
  const out: { id: string; status: string }[] = [];
  for await (const wf of client.workflow.list({ query: `LeviathParent = '${runId}'` }))
    out.push({ id: wf.workflowId, status: wf.status.name });
  return out;
}

/** A fan-out of `n` items whose workers each take three turns, the one at index `held` held at `gate`, inferring in `shape`. */
function gatedFanOut(n: number, held: number, gate: string, shape: InferenceShape): { toml: string; script: string } {
  const script = {
    turns: [
      {
        stage: 'split',
        tool_calls: [
          {
            name: 'fan_out',
            arguments: {
              items: Array.from({ length: n }, (_, i) => ({ id: `part-${i + 1}`, context: `part ${i + 1}` })),
            },
          },
        ],
      },
      ...[
        ...[1, 2].map((k) => ({
          stage: 'work',
          text: `step ${k}`,
          tool_calls: [{ name: 'context_append', arguments: { region: 'notes', content: `note ${k}` } }],
        })),
        { stage: 'work', text: 'part done' },
      ].map((turn, i) => (i === held ? { ...turn, gate } : turn)),
      { stage: 'merge', text: 'All parts done.' },
    ],
  };
  const toml = `${shapeToml(shape)}
[agent]
name = "slow-fan"
model = "scripted:script.toml"
[models."scripted:script.toml"]
context_window = 32000
[context.regions]
task  = { kind = "pinned", max_tokens = 1000, seed = "task_input" }
notes = { kind = "temporary", max_tokens = 2000 }
results = { kind = "temporary", max_tokens = 8000 }
[stages.split]
mode = "fan_out"
worker_stage = "work"
max_workers = 3
results_region = "results"
merge_stage = "merge"
[stages.work]
allow_as_worker = true
[stages.merge]
`;
  return { toml, script: stringify(script) };
}

// Both inference shapes (docs/reference/blueprint.md#runtime): a worker's visits inside it infer locally when asked to.
describe.each(INFERENCE_SHAPES)('fan-out across worker processes, inferences as %s', (shape) => {
  let conn: Awaited<ReturnType<typeof connectClient>>;
  const processes: ChildProcess[] = [];
  beforeAll(async () => {
    conn = await connectClient();
  });
  afterAll(async () => {
    for (const p of processes) if (p.exitCode === null) p.kill('SIGKILL');
    await conn?.connection.close();
  });

  const options = { ...DEFAULT_RUN_OPTIONS, heartbeatTimeoutSecs: 2, inferenceTimeoutSecs: 60, opsPerSnapshot: 10_000 };

  it('completes on another worker process when the one running it is killed', async () => {
    // Each worker's second turn waits at the gate, after its first was served, when the process dies;
    // the second process boots meanwhile and polls only once the first is dead.
    const gate = `fan-crash-${process.pid}-${Date.now()}`;
    const { toml, script } = gatedFanOut(7, 1, gate, shape);
    const bp = writeBlueprint(toml, { 'script.toml': script });
    const blobDir = tempDir('fan-crash-blobs');
    const log = join(tempDir('fan-crash-log'), 'served.jsonl');
    const queue = `fan-crash-${Date.now()}`;
    const gates = tempDir('fan-crash-gates');
    const env = { ...workerEnv(queue, blobDir, log), LEVIATH_SCRIPTED_GATES: gates };
    const [first, second] = await Promise.all([startWorkerProcess(env), startStandbyWorker(env)]);
    processes.push(first, second.child);
    const handle = await startRun(
      conn.client,
      { blueprint: bp, task: 'Do the seven parts.', caller: {}, workdir: tempDir('fan-crash-work'), options },
      { taskQueue: queue },
    );
    await gateReached(gate, { dir: gates });
    first.kill('SIGKILL');
    const beforeCrash = workerTurns(log);
    second.poll();
    openGate(gate, gates);
    const result = await followRun(conn.client, handle, () => {});
    await saveHistories(conn.client, handle.workflowId);

    expect(result.status).toBe('completed');
    expect(result.stages).toEqual(['split', 'merge']);
    // Every worker took its three turns; those after the kill were served by the second process.
    expect(workerTurns(log)).toBeGreaterThanOrEqual(7 * 3);
    expect(workerTurns(log)).toBeGreaterThan(beforeCrash);
    const ops = await visitOps(conn.client, `${handle.workflowId}.1.split`);
    const route = ops.find((op) => op.call.kind === 'route' && op.call.call.name === 'fan_out');
    const content = route?.call.kind === 'route' ? route.call.result.content : '';
    const report = typeof content === 'string' ? content : await new LocalBlobStore(blobDir).get(content.hash);
    expect(report.split('\n')[0]).toBe('[fan_out results: 7 succeeded, 0 failed]');
    const ended = await workers(conn.client, handle.workflowId);
    expect(ended).toHaveLength(7);
    expect(ended.every((w) => w.status === 'COMPLETED')).toBe(true);
  });

  it('cancels every running worker when the parent run is cancelled, and starts no more', async () => {
    // Each worker's first turn waits at a gate nobody opens, so the cancellation lands mid-fan-out.
    const gates = tempDir('fan-cancel-gates');
    const { toml, script } = gatedFanOut(8, 0, `fan-cancel-${process.pid}-${Date.now()}`, shape);
    const bp = writeBlueprint(toml, { 'script.toml': script });
    const queue = `fan-cancel-${Date.now()}`;
    processes.push(
      await startWorkerProcess({ ...workerEnv(queue, tempDir('fan-cancel-blobs')), LEVIATH_SCRIPTED_GATES: gates }),
    );
    const handle = await startRun(
      conn.client,
      { blueprint: bp, task: 'Do the eight parts.', caller: {}, workdir: tempDir('fan-cancel-work'), options },
      { taskQueue: queue },
    );
    await waitFor(async () => (await workers(conn.client, handle.workflowId)).length === 3, 60_000);
    await handle.cancel();
    await handle.result().catch(() => undefined);
    await waitFor(
      async () => (await workers(conn.client, handle.workflowId)).every((w) => w.status !== 'RUNNING'),
      60_000,
    );
    await saveHistories(conn.client, handle.workflowId);
    const ended = await workers(conn.client, handle.workflowId);
    expect((await handle.describe()).status.name).toBe('CANCELLED');
    expect(ended).toHaveLength(3);
    expect(ended.map((w) => w.status)).toEqual(['CANCELLED', 'CANCELLED', 'CANCELLED']);
  });
});
