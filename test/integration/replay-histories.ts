/**
 * Determinism guard: the histories an integration file recorded are replayed
 * against the workflow bundle under test once the file's tests are done
 * (`replay-each-file.ts`, a setup file of the integration project), so a
 * change that would break running workflows fails the file that ran them.
 * Replaying each file's own histories at its end spreads the work over the
 * lanes, where one replay of every history after the last file was the
 * suite's longest serial step.
 */
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { inject } from 'vitest';
import { workflowSinks } from '../../src/telemetry/tracing.js';

export interface Recorded {
  workflowId: string;
  history: temporal.api.history.v1.IHistory;
}

/** The history files this test file wrote (`writeHistory` in run-helpers.ts), by workflow id. */
const written = new Map<string, string>();

export function recordWritten(path: string, workflowId: string): void {
  written.set(path, workflowId);
}

/** What this test file recorded, read back from its files (binary protobuf, or the SDK's JSON). */
export function recordedByThisFile(): Recorded[] {
  return [...written].sort().map(([path, workflowId]) => {
    const bytes = readFileSync(path);
    const history = path.endsWith('.json')
      ? historyFromJSON(JSON.parse(bytes.toString('utf8')))
      : temporal.api.history.v1.History.decode(bytes);
    return { workflowId, history };
  });
}

/** Replays the histories against the bundle under test; each that would not be produced again, with why. */
export async function replayFailures(recorded: readonly Recorded[]): Promise<string[]> {
  const failures: string[] = [];
  const results = Worker.runReplayHistories(
    { workflowBundle: { codePath: inject('workflowBundlePath') }, sinks: workflowSinks() },
    recorded.map(({ workflowId, history }) => ({ workflowId, history })),
  );
  for await (const result of results)
    if (result.error) {
      failures.push(`${result.workflowId}: ${result.error.message} (the history is kept in ${FAILED_DIR})`);
      keepFailed(result.workflowId);
    }
  return failures;
}

/** Where a history that did not replay is kept: the suite's temporary folder goes when it ends, and a rare failure needs its history. */
const FAILED_DIR = join(process.cwd(), 'test-results', 'unreplayable');

function keepFailed(workflowId: string): void {
  mkdirSync(FAILED_DIR, { recursive: true });
  for (const [path, id] of written)
    if (id === workflowId) copyFileSync(path, join(FAILED_DIR, path.slice(path.lastIndexOf('/') + 1)));
}
