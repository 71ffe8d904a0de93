/**
 * `[[transforms]]` at load (docs/reference/sub-agents.md#context-transforms): which
 * table applies between a parent and a child, the `handoffs` it resolves to,
 * and what `lev validate` says of the regions it names.
 */
import { describe, expect, it } from 'vitest';
import { type DeclaredTransform, matchTransform } from '../../src/blueprint/context-transforms.js';
import { codesOf, errorsOf, loadToml } from './helpers.js';

const M = { from: 'plan', to: 'task', transform: 'direct' as const };

function declared(from: string, to: string, mappings = [M]): DeclaredTransform {
  return { from, to, mappings, at: [] };
}

describe('matchTransform', () => {
  it("takes the parent's entry first, then the child's, by both names", () => {
    const other = [{ ...M, to: 'other' }];
    const parent = { name: 'planner', transforms: [declared('planner', 'coder')] };
    const child = { name: 'coder', transforms: [declared('planner', 'coder', other)] };
    expect(matchTransform(parent, child)).toEqual([M]);
    expect(matchTransform({ ...parent, transforms: [] }, child)).toEqual(other);
  });

  it('applies nothing between blueprints of one name, to another child, or with no mappings', () => {
    expect(
      matchTransform({ name: 'same', transforms: [declared('same', 'same')] }, { name: 'same', transforms: [] }),
    ).toBeUndefined();
    expect(
      matchTransform(
        { name: 'planner', transforms: [declared('planner', 'other')] },
        { name: 'coder', transforms: [] },
      ),
    ).toBeUndefined();
    expect(
      matchTransform(
        { name: 'planner', transforms: [declared('planner', 'coder', []), declared('planner', 'coder')] },
        { name: 'coder', transforms: [] },
      ),
    ).toEqual([M]);
  });
});

const CODER = `[agent]
name = "coder"
[context.regions]
task = { kind = "pinned" }
[stages.code]
`;

function planner(transforms: string): string {
  return `[agent]
name = "planner"
sub_agents = ["./coder"]
[context.regions]
plan = { kind = "pinned" }
[stages.main]
available_tools = ["spawn_agent"]
${transforms}`;
}

const PLAN_TO_TASK = `
[[transforms]]
from_blueprint = "planner"
to_blueprint = "coder"
[[transforms.mappings]]
from_region = "plan"
to_region = "task"
transform = "extract"
fields = ["steps"]
`;

describe('handoffs, resolved at load', () => {
  it("from the parent's table, keyed by the child's catalog key", () => {
    const r = loadToml(planner(PLAN_TO_TASK), { 'coder/agent.toml': CODER });
    expect(errorsOf(r)).toEqual([]);
    expect(codesOf(r)).not.toContain('unsupported-feature');
    const bp = r.blueprint!;
    const key = bp.agentRefs!['./coder']!;
    expect(bp.handoffs).toEqual({ [key]: [{ from: 'plan', to: 'task', transform: 'extract', fields: ['steps'] }] });
    // The child starts nobody: it carries no handoffs.
    expect(bp.agents?.[key]?.handoffs).toBeUndefined();
  });

  it("from the child's table, when the child names its parent back (a cycle loads each once)", () => {
    const coder = CODER.replace('name = "coder"', 'name = "coder"\nsub_agents = [".."]') + PLAN_TO_TASK;
    const r = loadToml(planner(''), { 'coder/agent.toml': coder });
    expect(errorsOf(r)).toEqual([]);
    const bp = r.blueprint!;
    const key = bp.agentRefs!['./coder']!;
    expect(bp.handoffs?.[key]).toEqual([{ from: 'plan', to: 'task', transform: 'extract', fields: ['steps'] }]);
    // The coder starting the planner is the other direction: nothing maps that way.
    expect(bp.agents?.[key]?.handoffs).toBeUndefined();
  });

  it('is absent when no transform applies, so the JSON (and hash) of other blueprints is unchanged', () => {
    const r = loadToml(planner(''), { 'coder/agent.toml': CODER });
    expect(errorsOf(r)).toEqual([]);
    expect('handoffs' in r.blueprint!).toBe(false);
  });

  it('a mapping without `transform` copies the text (direct), as in the original', () => {
    const r = loadToml(planner(PLAN_TO_TASK.replace('transform = "extract"\nfields = ["steps"]\n', '')), {
      'coder/agent.toml': CODER,
    });
    expect(Object.values(r.blueprint!.handoffs ?? {})).toEqual([[{ from: 'plan', to: 'task', transform: 'direct' }]]);
  });
});

describe('lev validate', () => {
  it("checks the other end's region when this blueprint starts that blueprint", () => {
    const r = loadToml(planner(PLAN_TO_TASK.replace('to_region = "task"', 'to_region = "tsak"')), {
      'coder/agent.toml': CODER,
    });
    const d = r.diagnostics.find((x) => x.code === 'transform-region-unknown');
    expect(d?.message).toMatch(/to_region "tsak" is not a region of "coder"/);
    expect(d?.path).toBe('transforms[0].mappings[0].to_region');
  });

  it("checks its own end's region, and leaves the other end alone when it cannot see that blueprint", () => {
    const own = loadToml(
      `[agent]\nname = "coder"\n[context.regions]\ntask = {}\n[[transforms]]\nfrom_blueprint = "planner"\nto_blueprint = "coder"\n[[transforms.mappings]]\nfrom_region = "anything"\nto_region = "tsak"\n`,
    );
    expect(own.diagnostics.filter((d) => d.code === 'transform-region-unknown').map((d) => d.path)).toEqual([
      'transforms[0].mappings[0].to_region',
    ]);
  });

  it('a runtime region counts at either end', () => {
    const r = loadToml(planner(PLAN_TO_TASK.replace('from_region = "plan"', 'from_region = "conversation"')), {
      'coder/agent.toml': CODER,
    });
    expect(errorsOf(r)).toEqual([]);
  });
});
