/**
 * Determinism guard: every history the integration tests recorded is
 * replayed against the current workflow bundle, so a change that would
 * break running workflows fails the build. Its own project in
 * vitest.config.ts runs after every other file, so it sees their histories; it also records the demo agent itself, so a lone run of this
 * file still replays a multi-stage run.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadBlueprint } from '../../src/blueprint/load.js';
import { workflowSinks } from '../../src/telemetry/tracing.js';
import { connectClient } from './helpers.js';
import { historiesDir, runAgent, startRuntime, type TestRuntime } from './run-helpers.js';

const ROOT = join(import.meta.dirname, '..', '..');
const DEMO_TASK = "Find the root cause of last night's billing outage in logs/ and write a short incident report.";

interface Recorded {
  file: string;
  workflowId: string;
  history: temporal.api.history.v1.IHistory;
}

/**
 * Histories as `run-helpers.ts` saves them: `<percent-encoded workflowId>--<runId>` as binary
 * protobuf or the SDK's JSON, or `~<hash>--<runId>` with the workflow id in `~<hash>.id`.
 */
function recordedHistories(): Recorded[] {
  const dir = historiesDir();
  return readdirSync(dir)
    .filter((f) => f.endsWith('.history') || f.endsWith('.json'))
    .sort()
    .map((file) => {
      const bytes = readFileSync(join(dir, file));
      const history = file.endsWith('.json')
        ? historyFromJSON(JSON.parse(bytes.toString('utf8')))
        : temporal.api.history.v1.History.decode(bytes);
      const name = file.slice(0, file.lastIndexOf('--'));
      const workflowId = name.startsWith('~')
        ? readFileSync(join(dir, `${name}.id`), 'utf8')
        : decodeURIComponent(name);
      return { file, workflowId, history };
    });
}

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

  it('records the demo agent end to end', async () => {
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
  });

  it('replays every recorded history without a nondeterminism error', async () => {
    const recorded = recordedHistories();
    const ids = new Set(recorded.map((r) => r.workflowId));
    for (const id of known) expect(ids, `history of ${id} was not saved`).toContain(id);
    expect(recorded.length).toBeGreaterThanOrEqual(known.length);

    const failures: string[] = [];
    let replayed = 0;
    const results = Worker.runReplayHistories(
      { workflowBundle: { codePath: inject('workflowBundlePath') }, sinks: workflowSinks() },
      recorded.map(({ workflowId, history }) => ({ workflowId, history })),
    );
    for await (const result of results) {
      replayed++;
      if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
    }
    expect(failures).toEqual([]);
    expect(replayed).toBe(recorded.length);
    process.stderr.write(`replay: ${replayed} histories replayed (${ids.size} workflows)\n`);
  });

  it('notices a history the current code would not produce', async () => {
    const demo = recordedHistories().find((r) => r.workflowId === known[0]);
    if (!demo) throw new Error('the demo run was not recorded');
    const tampered = temporal.api.history.v1.History.decode(
      temporal.api.history.v1.History.encode(demo.history).finish(),
    );
    const scheduled = tampered.events.find(
      (e) => e.activityTaskScheduledEventAttributes,
    )?.activityTaskScheduledEventAttributes;
    if (!scheduled?.activityType) throw new Error('the demo run scheduled no activity');
    scheduled.activityType.name = 'somethingElse';
    await expect(
      Worker.runReplayHistory(
        { workflowBundle: { codePath: inject('workflowBundlePath') }, sinks: workflowSinks() },
        tampered,
        demo.workflowId,
      ),
    ).rejects.toThrow(/[Nn]ondetermin|[Dd]eterminism/);
  });
});
