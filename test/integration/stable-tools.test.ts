/**
 * The run-wide tool list through the real runtime (docs/reference/rendering.md#the-tool-list): a
 * stage change keeps the tools and the blocks before the stage instructions byte for byte, each
 * stage's turns state its grants, and a tool offered but not granted is refused as before.
 */
import { describe, expect, it } from 'vitest';
import { type ScriptedCall, scriptedCalls } from '../../src/providers/index.js';
import { runAgent, scriptedModel, useRuntime, writeBlueprint } from './run-helpers.js';

function blueprint(runtime: string) {
  const model = scriptedModel({
    turns: [
      {
        stage: 'plan',
        text: 'Asking the time before I may.',
        tool_calls: [{ name: 'current_time', arguments: {} }],
      },
      { stage: 'plan', text: 'Planned.' },
      {
        stage: 'build',
        text: 'Now I may.',
        tool_calls: [{ name: 'context_write', arguments: { region: 'notes', content: 'built' } }],
      },
      { stage: 'build', text: 'Built.' },
    ],
  });
  // The plan stage's refusal is routed to final_output, where the test reads it.
  return writeBlueprint(`
[agent]
name = "two-stages"
model = "${model}"
${runtime}
[context.regions]
task = { kind = "pinned" }
stage_instructions = { kind = "pinned" }
notes = { kind = "temporary" }
[stages.plan]
system_prompt = "Plan the change."
available_tools = ["read_file", "context_read"]
[stages.plan.tool_routing.overrides]
current_time = "final_output"
[stages.plan.transitions.build]
[stages.build]
system_prompt = "Make the change."
available_tools = ["read_file", "context_read", "context_write", "current_time"]
`);
}

function turns(runId: string): ScriptedCall[] {
  return scriptedCalls().filter((c) => c.runId === runId && c.purpose === 'turn');
}

describe('stable tool list', () => {
  const env = useRuntime();

  it('keeps the tools and the pinned task across a stage change, states the grants, and refuses what the stage lacks', async () => {
    const { result, handle } = await runAgent(env.rt, blueprint(''), { task: 'change it' });
    expect(result.status).toBe('completed');
    const calls = turns(handle.workflowId);
    const plan = calls.filter((c) => c.stage === 'plan');
    const build = calls.filter((c) => c.stage === 'build');
    expect(plan.length).toBeGreaterThan(0);
    expect(build.length).toBeGreaterThan(0);
    for (const c of calls) expect(c.tools).toEqual(['read_file', 'context_read', 'context_write', 'current_time']);
    const last = plan[plan.length - 1]!;
    const first = build[0]!;
    // Tools, then the pinned blocks (the task, final_output): the same bytes; the stage instructions differ.
    const kept = first.prefixes.findIndex((p, i) => p !== last.prefixes[i]);
    expect(kept).toBe(first.prefixes.length - 1);
    expect(kept).toBeGreaterThanOrEqual(2);
    // The plan stage, granted less than the run, reads its grants in a block of its own; build is granted all.
    expect(last.prefixes).toHaveLength(first.prefixes.length + 1);
    expect(result.output).toMatch(/^\[tool-not-granted\] stage "plan" was not given the tool `current_time`/);
    expect(result.regions.find((r) => r.name === 'notes')?.entries).toBe(1);
  });

  it('offers each stage its own tools with [runtime] stable_tools = false, so a stage change resends everything', async () => {
    const { result, handle } = await runAgent(env.rt, blueprint('[runtime]\nstable_tools = false'), {
      task: 'change it',
    });
    expect(result.status).toBe('completed');
    const calls = turns(handle.workflowId);
    const last = calls.filter((c) => c.stage === 'plan').pop()!;
    const first = calls.find((c) => c.stage === 'build')!;
    expect(last.tools).toEqual(['read_file', 'context_read']);
    expect(first.tools).toEqual(['read_file', 'context_read', 'context_write', 'current_time']);
    expect(first.prefixes[0]).not.toBe(last.prefixes[0]);
    expect(last.prefixes).toHaveLength(first.prefixes.length);
  });
});
