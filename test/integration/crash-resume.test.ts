/**
 * A worker process is SIGKILLed in the middle of a run. Another worker
 * picks the run up from Temporal's history; the run ends with the same
 * region set as an uninterrupted run, and the scripted model never served a
 * completed turn twice. The call in flight at the kill is held at a scripted
 * gate (docs/scripted.md#gates) until the other worker is up to take it.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gateReached, openGate } from '../../src/providers/index.js';
import { INFERENCE_SHAPES } from '../../src/runtime/inference-shape.js';
import { DEFAULT_RUN_OPTIONS, type RunResult } from '../../src/runtime/types.js';
import { followRun, startRun } from '../../src/worker/run-client.js';
import { crashBlueprint, crashScript, gatedThirdTurnScript } from './fixtures/crash-script.js';
import { connectClient } from './helpers.js';
import { saveHistories, tempDir, writeBlueprint } from './run-helpers.js';
import { startStandbyWorker, startWorkerProcess, workerEnv } from './worker-processes.js';

interface Served {
  runId: string;
  turn: number;
  purpose: string;
  attempt: number;
}

function served(log: string, runId: string): Served[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Served)
    .filter((s) => s.runId === runId && s.purpose === 'turn');
}

function comparable(result: RunResult) {
  return result.regions.map(({ name, kind, tokens, entries }) => ({ name, kind, tokens, entries }));
}

// Both inference shapes (docs/reference/blueprint.md#runtime): a local inference in flight dies with
// its worker's workflow task, which the other worker takes up once it times out.
describe.each(INFERENCE_SHAPES)('crash and resume, inferences as %s', (shape) => {
  const BLUEPRINT = crashBlueprint('crashy', 20, shape);
  let conn: Awaited<ReturnType<typeof connectClient>>;
  const workers: ChildProcess[] = [];
  beforeAll(async () => {
    conn = await connectClient();
  });
  afterAll(async () => {
    for (const w of workers) if (w.exitCode === null) w.kill('SIGKILL');
    await conn?.connection.close();
  });

  it('finishes on a second worker with the same region set and no completed turn served twice', async () => {
    const gate = `crash-${process.pid}-${Date.now()}`;
    const bp = writeBlueprint(BLUEPRINT, { 'script.toml': crashScript({ gate }) });
    const workdir = tempDir('crash-work');
    writeFileSync(join(workdir, 'data.txt'), 'line of data\n'.repeat(400));
    const log = join(tempDir('crash-log'), 'served.jsonl');
    const options = { ...DEFAULT_RUN_OPTIONS, heartbeatTimeoutSecs: 2, inferenceTimeoutSecs: 60 };
    const task = 'note six observations';

    // Workers of one deployment share the blob store, as the compose file's volume does. The second
    // boots while the run goes on and polls only once the first is dead.
    const queue = `crash-${Date.now()}`;
    const gates = tempDir('crash-gates');
    const env = { ...workerEnv(queue, tempDir('crash-blobs'), log), LEVIATH_SCRIPTED_GATES: gates };
    const [first, second] = await Promise.all([startWorkerProcess(env), startStandbyWorker(env)]);
    workers.push(first, second.child);
    const handle = await startRun(
      conn.client,
      { blueprint: bp, task, caller: {}, workdir, options },
      { taskQueue: queue },
    );
    // The third turn is in flight, held at its gate, when the first worker dies.
    await gateReached(gate, { dir: gates });
    first.kill('SIGKILL');
    const servedBeforeCrash = served(log, handle.workflowId).length;
    second.poll();
    openGate(gate, gates);
    const result = await followRun(conn.client, handle, () => {});
    await saveHistories(conn.client, handle.workflowId);

    // The uninterrupted run the crashed one must match, on the worker left, its gate open now.
    const calmHandle = await startRun(
      conn.client,
      { blueprint: bp, task, caller: {}, workdir, options },
      { taskQueue: queue },
    );
    const calm = await followRun(conn.client, calmHandle, () => {});
    expect(calm.status).toBe('completed');

    expect(result.status).toBe('completed');
    expect(servedBeforeCrash).toBeGreaterThanOrEqual(2);
    expect(comparable(result)).toEqual(comparable(calm));
    expect(result.output).toBe(calm.output);

    const turns = served(log, handle.workflowId);
    const byTurn = new Map<number, number[]>();
    for (const s of turns) byTurn.set(s.turn, [...(byTurn.get(s.turn) ?? []), s.attempt]);
    // Every turn was served; only the one in flight at the kill may have been served again, as a retry.
    expect([...byTurn.keys()].sort((a, b) => a - b)).toEqual(served(log, calmHandle.workflowId).map((s) => s.turn));
    const repeated = [...byTurn.entries()].filter(([, attempts]) => attempts.length > 1);
    expect(repeated.length).toBeLessThanOrEqual(1);
    for (const [, attempts] of repeated) expect(new Set(attempts).size).toBe(attempts.length);
  });

  it('a worker stopped with SIGTERM hands its inference back: as an activity at once (a failure, not a timeout), as a local one with its workflow task', async () => {
    const gate = `graceful-${process.pid}-${Date.now()}`;
    const bp = writeBlueprint(BLUEPRINT, { 'script.toml': gatedThirdTurnScript(gate) });
    const workdir = tempDir('graceful-work');
    writeFileSync(join(workdir, 'data.txt'), 'line of data\n'.repeat(40));
    const log = join(tempDir('graceful-log'), 'served.jsonl');
    // A heartbeat timeout longer than the whole test: only a handed-back call is retried in time.
    const options = { ...DEFAULT_RUN_OPTIONS, heartbeatTimeoutSecs: 600, inferenceTimeoutSecs: 600 };
    const queue = `graceful-${Date.now()}`;
    const gates = tempDir('graceful-gates');
    const env = { ...workerEnv(queue, tempDir('graceful-blobs'), log), LEVIATH_SCRIPTED_GATES: gates };
    const [first, second] = await Promise.all([startWorkerProcess(env), startStandbyWorker(env)]);
    workers.push(first, second.child);
    const handle = await startRun(
      conn.client,
      { blueprint: bp, task: 'note three observations', caller: {}, workdir, options },
      { taskQueue: queue },
    );
    // The third inference is in flight, held at its gate, when the worker is stopped.
    await gateReached(gate, { dir: gates });
    const exited = new Promise((r) => first.once('exit', r));
    first.kill('SIGTERM');
    await exited;
    second.poll();
    openGate(gate, gates);
    const result = await followRun(conn.client, handle, () => {});
    await saveHistories(conn.client, handle.workflowId);
    expect(result.status).toBe('completed');

    const stage = `${handle.workflowId}.1.main`;
    const history = await conn.client.workflow.getHandle(stage).fetchHistory();
    const events = history.events ?? [];
    if (shape === 'activity') {
      const retried = events.map((e) => e.activityTaskStartedEventAttributes).filter((a) => a && (a.attempt ?? 1) > 1);
      expect(retried).toHaveLength(1);
      expect(retried[0]?.lastFailure).toBeTruthy();
      expect(retried[0]?.lastFailure?.timeoutFailureInfo).toBeFalsy();
    } else {
      // A local inference runs inside its workflow task, which the stopped worker never completes: it is
      // taken up as after a crash, once the task times out (docs/reference/blueprint.md#runtime).
      expect(events.some((e) => e.workflowTaskTimedOutEventAttributes)).toBe(true);
      expect(events.some((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'infer')).toBe(false);
    }
    // The handed-back call was not answered, so no turn was served twice.
    const turns = served(log, handle.workflowId).map((s) => s.turn);
    expect(new Set(turns).size).toBe(turns.length);
  });
});
