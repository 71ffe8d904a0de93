/**
 * Temporal's time-skipping test server (scripts/test-server.mjs) for the
 * tests whose workflows wait only on durable timers: a provider outage's
 * waits, a patience running out, an ask nobody answers. The server jumps to
 * the next timer whenever no task is in flight and the test awaits a run's
 * result (`handle.result()` through `rt.client`) or `env.sleep(...)`, so an
 * hour of patience passes in a second on the same code path as in
 * production. It has no visibility queries (`workflow.list`), schedules or
 * Worker Versioning: tests that need those stay on the dev server, as the
 * SDK advises (CONTRIBUTING.md#tests-that-wait).
 */
import type { Client } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll } from 'vitest';
import { ensureTestServer } from '../../scripts/test-server.mjs';
import { SEARCH_ATTRIBUTES } from '../../src/devserver/dev-server.js';
import { installRuntime } from '../../src/worker/create-worker.js';
import { startRuntime, type TestRuntime, writeHistory } from './run-helpers.js';

/** The proto enum `IndexedValueType` of each search attribute type the dev server takes by name. */
const INDEXED_VALUE_TYPE = { Keyword: 2 } as const;

/**
 * The SDK gives the server it starts five seconds to answer (sdk-core's
 * ephemeral server), which the JVM can miss on a loaded two-core machine
 * even with the quick-start flags scripts/test-server.mjs gives it: a start
 * that runs out of time is tried again.
 */
const STARTS = 3;

async function createTimeSkipping(path: string): Promise<TestWorkflowEnvironment> {
  for (let start = 1; ; start++) {
    try {
      return await TestWorkflowEnvironment.createTimeSkipping({
        server: { executable: { type: 'existing-path', path } },
      });
    } catch (err) {
      if (start >= STARTS || !String(err).includes('did not start within')) throw err;
      process.stderr.write(
        `time-skipping server: ${err instanceof Error ? err.message : String(err)}; starting it again\n`,
      );
    }
  }
}

/** A time-skipping server with Leviath's search attributes, and a worker on it. */
export async function startTimeSkipping(): Promise<{ env: TestWorkflowEnvironment; rt: TestRuntime }> {
  const path = ensureTestServer({ log: (line) => process.stderr.write(`${line}\n`) });
  // The SDK's runtime is made once per process, before the environment's connection, with Leviath's settings.
  installRuntime();
  const env = await createTimeSkipping(path);
  await env.connection.operatorService.addSearchAttributes({
    namespace: 'default',
    searchAttributes: Object.fromEntries(
      Object.entries(SEARCH_ATTRIBUTES).map(([name, type]) => [name, INDEXED_VALUE_TYPE[type]]),
    ),
  });
  const rt = await startRuntime(env.client, { address: env.address });
  return { env, rt };
}

/**
 * A time-skipping server and a worker for the tests of one `describe`
 * block. Read `ts.env` and `ts.rt` inside the tests (set once `beforeAll`
 * has run); `ts.rt.client` waits on results with time skipping.
 */
export function useTimeSkipping(): { env: TestWorkflowEnvironment; rt: TestRuntime } {
  const ts = {} as { env: TestWorkflowEnvironment; rt: TestRuntime };
  beforeAll(async () => {
    Object.assign(ts, await startTimeSkipping());
  });
  afterAll(async () => {
    await ts.rt?.stop();
    await ts.env?.teardown();
  });
  return ts;
}

/**
 * Keeps the histories of a run for the replay test, as `saveHistories` does
 * on the dev server, without the visibility query this server lacks: the
 * run's history, the runs it continued as new from, and the same for every
 * child workflow they started (stage visits, sub-agents, deliveries).
 */
export async function saveRunHistories(client: Client, workflowId: string): Promise<void> {
  let runId: string | undefined = (await client.workflow.getHandle(workflowId).describe()).runId;
  while (runId) {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    writeHistory(workflowId, runId, history);
    for (const e of history.events ?? []) {
      const child = e.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.workflowId;
      if (child) await saveRunHistories(client, child);
    }
    runId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  }
}
