/**
 * Runtime codes that only a whole run can produce: an output stage whose
 * model never hands back an answer, and `lev result` asked about a run it
 * cannot answer for (unknown, or still going).
 */
import { describe, expect, it } from 'vitest';
import { printRunResult } from '../../src/cli/result-action.js';
import { isLevError } from '../../src/errors.js';
import { DEFAULT_RUN_OPTIONS } from '../../src/runtime/types.js';
import { sendUpdate } from '../../src/worker/operators.js';
import { followRun, startRun } from '../../src/worker/run-client.js';
import { temporalAddress } from './helpers.js';
import { runAgent, saveHistories, scriptedModel, tempDir, useRuntime, writeBlueprint } from './run-helpers.js';

/** The code of the error `lev result` stops with. */
async function resultCode(runId: string): Promise<string> {
  try {
    await printRunResult(runId, { address: temporalAddress(), namespace: 'default' });
  } catch (err) {
    if (isLevError(err)) return err.code;
    throw err;
  }
  throw new Error('expected lev result to refuse');
}

describe('codes only a run produces', () => {
  const env = useRuntime();

  it('output-forced: an output stage whose model never calls submit_output ends after the reminders', async () => {
    const model = scriptedModel({
      turns: [
        { text: 'The answer is 42.' },
        { text: 'As I said, 42.' },
        { text: 'Still 42.' },
        { text: '42, and nothing more.' },
        { text: 'This turn is never asked for: the stage gives up after three reminders.' },
      ],
    });
    const bp = writeBlueprint(`[stages.answer]\nmode = "output"\nmodel = "${model}"\n`);

    const run = await runAgent(env.rt, bp, { task: 'What is six times seven?' });

    expect(run.result.status).toBe('completed');
    const forced = run.result.diagnostics.filter((d) => d.code === 'output-forced');
    expect(forced).toHaveLength(1);
    expect(forced[0]?.detail).toBe('stage "answer" ended without the final output it requires, after 3 reminders');
  });

  it('run-not-found: lev result with an id no run has', async () => {
    expect(await resultCode(`no-such-run-${process.pid}`)).toBe('run-not-found');
  });

  it('run-not-finished: lev result on a run that waits for a person', async () => {
    const model = scriptedModel({ turns: [{ text: 'Which region should I look at?' }] });
    const bp = writeBlueprint(`[stages.ask]\nmode = "interactive"\nmodel = "${model}"\n`);
    const handle = await startRun(
      env.rt.client,
      { blueprint: bp, caller: {}, workdir: tempDir('waiting'), options: DEFAULT_RUN_OPTIONS },
      { taskQueue: env.rt.taskQueue },
    );
    let refused = '';
    const result = await followRun(env.rt.client, handle, () => {}, {
      intervalMs: 100,
      onWaiting: async () => {
        // The run is parked on the person's reply, so it is still going whatever the worker does.
        refused = await resultCode(handle.workflowId);
        await sendUpdate(env.rt.client, handle.workflowId, 'message', '/done');
      },
    });
    await saveHistories(env.rt.client, handle.workflowId);
    expect(refused).toBe('run-not-finished');
    expect(result.status).toBe('completed');
  });
});
