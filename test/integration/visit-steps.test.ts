/**
 * A stage visit's turn as steps that wait only when they must (`visit-sync-steps`,
 * `src/runtime/steps.ts`, docs/benchmarks.md#a-turn-without-promises): a visit records that one
 * marker, schedules the same commands as before (one `infer` a turn, the context tools answered
 * in the workflow), and its history replays (the file's histories are replayed once it is done).
 * Visits recorded before it, which await each step, replay in cross-version-replay.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { VISIT_SYNC_STEPS } from '../../src/runtime/patches.js';
import { patchIds, runAgent, scriptedModel, useRuntime, writeBlueprint } from './run-helpers.js';

describe('a stage visit whose steps wait only when they must', () => {
  const env = useRuntime();

  it('records one marker, schedules one inference a turn and answers its context tools in the workflow', async () => {
    const model = scriptedModel({
      turns: [
        { text: 'Noting.', tool_calls: [{ name: 'context_write', arguments: { region: 'notes', content: 'first' } }] },
        {
          text: 'Two at once.',
          tool_calls: [
            { name: 'context_append', arguments: { region: 'notes', content: 'second' } },
            { name: 'context_append', arguments: { region: 'notes', content: 'third' } },
          ],
        },
        { text: 'Done.' },
      ],
    });
    const bp = writeBlueprint(
      `[agent]\nname = "steps-${process.pid}"\nmodel = "${model}"\n[context.regions]\ntask = { kind = "pinned" }\nnotes = { kind = "pinned" }\n[stages.main]\n`,
    );

    const run = await runAgent(env.rt, bp, { task: 'Take notes.' });

    expect(run.result.status).toBe('completed');
    expect(run.result.output).toBe('Done.');
    const visit = env.rt.client.workflow.getHandle(`${run.result.runId}.1.main`);
    const history = await visit.fetchHistory();
    expect(patchIds(history)).toEqual([VISIT_SYNC_STEPS]);
    const scheduled = (history.events ?? []).flatMap((e) => {
      const name = e.activityTaskScheduledEventAttributes?.activityType?.name;
      return name ? [name] : [];
    });
    expect(scheduled).toEqual(['infer', 'infer', 'infer']);
  });
});
