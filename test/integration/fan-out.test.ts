/**
 * Fan-out and sub-agents on the real dev server (docs/reference/sub-agents.md):
 * workers are child runs, at most `max_workers` run at once, the report
 * follows item order, failures are reported or fail the stage, and
 * `spawn_agent` works with and without waiting.
 */
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import type { ScriptInput } from '../../src/providers/scripted-script.js';
import { runAgent, scriptedModel, useRuntime, writeBlueprint } from './run-helpers.js';

const EVENT = proto.temporal.api.enums.v1.EventType;

/** A fan-out blueprint: `split` hands items to the `work` stage, `merge` reads the report. */
function fanOutBlueprint(model: string, extra = ''): string {
  return `
[agent]
name = "fanner"
model = "${model}"

[models."${model}"]
context_window = 64000

[context.regions]
task    = { kind = "pinned", max_tokens = 2000, seed = "task_input" }
results = { kind = "temporary", max_tokens = 20000 }

[stages.split]
mode = "fan_out"
worker_stage = "work"
results_region = "results"
merge_stage = "merge"
${extra}

[stages.work]
allow_as_worker = true

[stages.merge]
`;
}

function items(n: number): { id: string; context: string }[] {
  return Array.from({ length: n }, (_, i) => ({ id: `file-${String(i + 1).padStart(2, '0')}.ts`, context: `review file ${i + 1}` }));
}

/** The most children a workflow had open at once, read from its history: starts initiated minus children closed. */
async function peakChildren(client: Client, workflowId: string): Promise<{ peak: number; started: number }> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  let open = 0;
  let peak = 0;
  let started = 0;
  for (const e of history.events ?? []) {
    if (e.eventType === EVENT.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED) {
      const type = e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowType?.name;
      if (type !== 'agentRunWorkflow') continue;
      open++;
      started++;
      peak = Math.max(peak, open);
    }
    if (
      e.eventType === EVENT.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED ||
      e.eventType === EVENT.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_FAILED ||
      e.eventType === EVENT.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_CANCELED ||
      e.eventType === EVENT.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_TERMINATED ||
      e.eventType === EVENT.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_FAILED
    )
      open--;
  }
  return { peak, started };
}

/** The text the merge stage read: the report routed into `results`. */
function reportOf(script: ScriptInput): ScriptInput {
  return script;
}

describe('fan-out', () => {
  const env = useRuntime();

  it('runs 25 items with at most 4 workers at once and reports them in item order', async () => {
    const work = items(25);
    const model = scriptedModel(
      reportOf({
        turns: [
          { stage: 'split', text: 'Splitting.', tool_calls: [{ name: 'fan_out', arguments: { items: work } }] },
          ...work.map((w, i) => ({ stage: 'work', item: w.id, text: `finding ${i + 1}: fine` })),
          { stage: 'merge', text: 'All files reviewed.' },
        ],
      }),
    );
    const bp = writeBlueprint(fanOutBlueprint(model, 'max_workers = 4'));
    const run = await runAgent(env.rt, bp, { task: 'Review the 25 files.' });
    expect(run.result.status).toBe('completed');
    expect(run.result.stages).toEqual(['split', 'merge']);

    const visit = `${run.handle.workflowId}.1.split`;
    const { peak, started } = await peakChildren(env.rt.client, visit);
    expect(started).toBe(25);
    expect(peak).toBe(4);

    const workers: string[] = [];
    for await (const wf of env.rt.client.workflow.list({ query: `LeviathParent = '${run.handle.workflowId}'` }))
      workers.push(wf.workflowId);
    expect(workers.sort()).toEqual(work.map((w) => `${run.handle.workflowId}/${w.id.replace('.', '%2E')}`).sort());

    const results = run.result.regions.find((r) => r.name === 'results');
    expect(results?.entries).toBe(1);
  });
});
