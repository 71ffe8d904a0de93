/**
 * Determinism guard: every integration file replays the histories it
 * recorded once its tests are done (replay-each-file.ts), so a change that
 * would break running workflows fails the build. This file records the demo
 * agent, a multi-stage run, so even a lone run of it replays one, and shows
 * that the replay notices a history the code under test would not produce.
 */
import { join } from 'node:path';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBlueprint } from '../../src/blueprint/load.js';
import { connectClient } from './helpers.js';
import { recordedByThisFile, replayFailures } from './replay-histories.js';
import { runAgent, startRuntime, type TestRuntime } from './run-helpers.js';

const ROOT = join(import.meta.dirname, '..', '..');
const DEMO_TASK = "Find the root cause of last night's billing outage in logs/ and write a short incident report.";

describe('replaying recorded histories', () => {
  let conn: Awaited<ReturnType<typeof connectClient>>;
  let rt: TestRuntime;
  const known: string[] = [];

  beforeAll(async () => {
    conn = await connectClient();
    rt = await startRuntime(conn.client);
  });
  afterAll(async () => {
    await rt?.stop();
    await conn?.connection.close();
  });

  it('records the demo agent end to end, the run and each of its stage visits', async () => {
    const loaded = loadBlueprint(join(ROOT, 'blueprints/demo'));
    if (!loaded.blueprint) throw new Error(loaded.diagnostics.map((d) => d.message).join('\n'));
    const run = await runAgent(rt, loaded.blueprint, {
      task: DEMO_TASK,
      workdir: join(ROOT, 'blueprints/demo/workspace'),
    });
    expect(run.result.status).toBe('completed');
    expect(run.result.stages).toEqual(['investigate', 'report']);
    expect(run.result.output).toContain('connection pool');
    const history = await run.handle.fetchHistory();
    const children = (history.events ?? []).flatMap(
      (e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId ?? [],
    );
    // The investigate visit is blocked once by its gate and runs again before the report.
    expect(children).toHaveLength(3);
    known.push(run.handle.workflowId, ...children);
    const ids = new Set(recordedByThisFile().map((r) => r.workflowId));
    for (const id of known) expect(ids, `history of ${id} was not saved`).toContain(id);
  });

  it('replays them, and notices a history the current code would not produce', async () => {
    const demo = recordedByThisFile().find((r) => r.workflowId === known[0]);
    if (!demo) throw new Error('the demo run was not recorded');
    expect(await replayFailures([demo])).toEqual([]);
    const tampered = temporal.api.history.v1.History.decode(
      temporal.api.history.v1.History.encode(demo.history).finish(),
    );
    const scheduled = tampered.events.find(
      (e) => e.activityTaskScheduledEventAttributes,
    )?.activityTaskScheduledEventAttributes;
    if (!scheduled?.activityType) throw new Error('the demo run scheduled no activity');
    scheduled.activityType.name = 'somethingElse';
    const failures = await replayFailures([{ workflowId: demo.workflowId, history: tampered }]);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(/[Nn]ondetermin|[Dd]eterminism/);
  });
});
