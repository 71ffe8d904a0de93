/** `lev context simulate` shows a stage's grants where a run's turn reads them (docs/reference/rendering.md#the-tool-list). */
import { describe, expect, it } from 'vitest';
import { sim } from '../fixtures/simulate/harness.js';

const blueprint = (runtime: string) => `${runtime}
[context.regions]
task = { kind = "pinned" }
stage_instructions = { kind = "pinned" }
[stages.plan]
system_prompt = "Plan the change."
available_tools = ["read_file", "context_read"]
[stages.plan.transitions.build]
[stages.build]
system_prompt = "Make the change."
available_tools = ["read_file", "context_read", "edit_file"]
`;

describe('simulated grants', () => {
  it("puts the stage's grants after its instructions while it is granted less than the run", () => {
    const plan = sim(blueprint(''), []);
    expect(plan.prompt.system.slice(-2)).toEqual([
      '## stage_instructions\nPlan the change.',
      'In stage "plan" you may call only: read_file, context_read. The other tools listed (edit_file) belong to other stages of this run: a call to one is refused (`tool-not-granted`) and not run.',
    ]);
    const build = sim(blueprint(''), [{ op: 'enter_stage', stage: 'build' }]);
    expect(build.prompt.system.at(-1)).toBe('## stage_instructions\nMake the change.');
  });

  it('states nothing with [runtime] stable_tools = false', () => {
    const plan = sim(blueprint('[runtime]\nstable_tools = false'), []);
    expect(plan.prompt.system.at(-1)).toBe('## stage_instructions\nPlan the change.');
  });
});
