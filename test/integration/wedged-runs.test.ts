/**
 * A run whose workflow task keeps failing (docs/reference/operators.md#a-wedged-run):
 * `lev show` says so with the failure's message, and `lev cancel` terminates it
 * once its grace period has passed. Malformed messages no longer wedge a run
 * (bad-messages.test.ts), so the wedge here is a workflow the worker cannot
 * run at all: a type its bundle does not export, whose every workflow task
 * fails as a run's did on a malformed signal before.
 */
import { describe, expect, it } from 'vitest';
import { lev as levInProcess } from '../cli/lev-in-process.js';
import { temporalAddress } from './helpers.js';
import { useRuntime } from './run-helpers.js';

function lev(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return levInProcess([...args, '--address', temporalAddress()]);
}

describe('a run whose workflow task keeps failing', () => {
  const env = useRuntime();

  it('is named so by lev show, and ended by lev cancel after its grace period', async () => {
    const runId = `wedged-${Date.now()}`;
    const handle = await env.rt.client.workflow.start('notAWorkflowOfTheBundle', {
      taskQueue: env.rt.taskQueue,
      workflowId: runId,
      args: [],
    });
    const attempt = async () => (await handle.describe()).raw.pendingWorkflowTask?.attempt ?? 0;
    for (let i = 0; (await attempt()) < 2; i++) {
      if (i > 300) throw new Error('gave up waiting until the workflow task failed twice');
      await new Promise((r) => setTimeout(r, 100));
    }
    const show = await lev(['show', runId]);
    expect(show.stdout).toContain('its workflow task keeps failing');
    expect(show.stdout).toMatch(/\nFailing: {2}workflow task failing \(attempt \d+\): \S.*notAWorkflowOfTheBundle/);
    const cancelled = await lev(['cancel', runId, '--grace', '0.5']);
    expect(cancelled).toMatchObject({ code: 0 });
    expect(cancelled.stdout).toMatch(
      new RegExp(
        `^run ${runId} terminated: cancelled with lev cancel; its workflow task kept failing for 0.5 s \\(attempt \\d+: `,
      ),
    );
    expect((await handle.describe()).status.name).toBe('TERMINATED');
  });
});
