/**
 * The blueprint side of sub-agents (docs/reference/sub-agents.md): the keys of
 * a fan-out stage with their defaults, what the loader adds to such a stage,
 * and the catalog of other blueprints a run may start.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentPath } from '../../src/blueprint/agent-catalog.js';
import { loadBlueprint } from '../../src/blueprint/load.js';
import { withModel } from '../../src/blueprint/model-switch.js';
import { codesOf, errorsOf, loadToml } from './helpers.js';

const WORKER = '[stages.one]\nallow_as_worker = true\n';

describe('a fan-out stage', () => {
  it('takes its defaults: 30 workers, continue on failure, 3 attempts, and is given fan_out', () => {
    const r = loadToml(`[stages.split]\nmode = "fan_out"\nworker_stage = "one"\n${WORKER}`);
    expect(errorsOf(r)).toEqual([]);
    const split = r.blueprint?.stages[0];
    expect(split?.fanOut).toEqual({
      worker: { stage: 'one' },
      maxWorkers: 30,
      onWorkerFailure: 'continue',
      maxAttempts: 3,
    });
    expect(split?.availableTools).toContain('fan_out');
    expect(split?.availableTools).toContain('read_file');
    const listed = loadToml(
      `[stages.split]\nmode = "fan_out"\nworker_stage = "one"\navailable_tools = ["glob"]\n${WORKER}`,
    );
    expect(listed.blueprint?.stages[0]?.availableTools).toEqual(['glob', 'fan_out']);
  });

  it('leaves by its merge stage, adds the split prompt to its own, and keeps max_iterations', () => {
    const r = loadToml(`[context.regions]
task = { kind = "pinned", max_tokens = 500 }
[stages.split]
mode = "fan_out"
worker_stage = "one"
merge_stage = "merge"
system_prompt = "You plan."
split_prompt = "One item per file."
max_iterations = 2
max_workers = 0
max_items = 12
[stages.split.transitions.merge]
condition = "error"
${WORKER}[stages.merge]
`);
    expect(errorsOf(r)).toEqual([]);
    const split = r.blueprint?.stages[0];
    expect(split?.systemPrompt).toBe('You plan.\n\nOne item per file.');
    expect(split?.maxIterations).toBe(2);
    expect(split?.fanOut).toMatchObject({ maxWorkers: 0, maxItems: 12, mergeStage: 'merge' });
    // An edge to the merge stage was declared (for errors), so none is added.
    expect(split?.transitions.map((e) => [e.target, e.condition])).toEqual([['merge', 'error']]);
    const plain = loadToml(
      `[stages.split]\nmode = "fan_out"\nworker_stage = "one"\nmerge_stage = "merge"\n${WORKER}[stages.merge]\n`,
    );
    expect(plain.blueprint?.stages[0]?.transitions).toEqual([
      { target: 'merge', condition: 'always', transform: 'direct' },
    ]);
    expect(codesOf(plain)).not.toContain('unreachable-stage');
  });

  it('routes its report to results_region, which the stage must show', () => {
    const r = loadToml(`[context.regions]
found = { kind = "temporary", max_tokens = 4000 }
[stages.split]
mode = "fan_out"
worker_stage = "one"
results_region = "found"
${WORKER}`);
    expect(r.blueprint?.stages[0]?.toolRouting).toEqual({
      defaultRegion: 'conversation',
      overrides: { fan_out: { region: 'found' } },
      maxResultTokensPerTool: {},
      persist: true,
    });
    const missing = loadToml(
      `[stages.split]\nmode = "fan_out"\nworker_stage = "one"\nresults_region = "nowhere"\n${WORKER}`,
    );
    expect(codesOf(missing)).toContain('routing-region-not-visible');
  });

  it('makes require_output an obligation of its workers, not of the stage', () => {
    const r = loadToml(`[stages.split]\nmode = "fan_out"\nworker_stage = "one"\nrequire_output = true\n${WORKER}`);
    const split = r.blueprint?.stages[0];
    expect(split?.requireOutput).toBeUndefined();
    expect(split?.fanOut?.requireOutput).toBe(true);
    expect(split?.availableTools).not.toContain('submit_output');
  });

  it('refuses bad numbers and a bad on_worker_failure, and notes fan-out keys elsewhere', () => {
    const bad = loadToml(
      `[stages.split]\nmode = "fan_out"\nworker_stage = "one"\nmax_workers = -1\nmax_items = 1.5\non_worker_failure = "stop"\n${WORKER}`,
    );
    expect(codesOf(bad).filter((c) => c !== 'unreachable-stage')).toEqual(['bad-size', 'bad-size', 'bad-value']);
    const elsewhere = loadToml('[stages.a]\nworker_stage = "one"\nmerge_stage = "b"\n[stages.b]\n');
    expect(codesOf(elsewhere).filter((c) => c === 'fan-out-key-unused')).toHaveLength(2);
    expect(loadToml('[stages.a]\nrequires_children = false\n').diagnostics[0]?.code).toBe('unsupported-feature');
    expect(codesOf(loadToml('[stages.a]\nrequires_children = true\n'))).toEqual([]);
  });

  it('lists the sub-agent tools as known tools', () => {
    const r = loadToml(
      '[stages.a]\navailable_tools = ["spawn_agent", "check_agent", "wait_for_agent", "send_to_agent", "kill_agent", "fan_out"]\n',
    );
    expect(codesOf(r)).toEqual([]);
    expect(r.blueprint?.stages[0]?.availableTools).toHaveLength(6);
  });

  it('reads max_child_depth', () => {
    expect(loadToml('[agent]\nmax_child_depth = 1\n').blueprint?.agent.maxChildDepth).toBe(1);
    expect(codesOf(loadToml('[agent]\nmax_child_depth = -1\n'))).toContain('bad-size');
  });
});

describe('the catalog of other blueprints', () => {
  function tree(files: Record<string, string>): string {
    const root = mkdtempSync(join(tmpdir(), 'lev-agents-'));
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(join(root, name, '..'), { recursive: true });
      writeFileSync(join(root, name), text);
    }
    return root;
  }

  it('finds a bare name next to the blueprint and a path relative to it', () => {
    expect(agentPath('/b/reviewer', 'researcher')).toBe('/b/researcher');
    expect(agentPath('/b/reviewer', './agents/x')).toBe('/b/reviewer/agents/x');
    expect(agentPath('/b/reviewer', '../other/y')).toBe('/b/other/y');
  });

  it('loads every named agent, recursively, into one catalog on the blueprint the run starts with', () => {
    const root = tree({
      'lead/agent.toml': `[agent]\nname = "lead"\nsub_agents = ["./helpers/notes"]\n[stages.split]\nmode = "fan_out"\nworker_agent = "researcher"\n`,
      'lead/helpers/notes/agent.toml': '[agent]\nname = "notes"\n',
      'researcher/agent.toml': '[agent]\nname = "researcher"\nsub_agents = ["lead"]\n',
    });
    const r = loadBlueprint(join(root, 'lead'));
    expect(errorsOf(r)).toEqual([]);
    const bp = r.blueprint;
    const researcher = join(root, 'researcher', 'agent.toml');
    const notes = join(root, 'lead', 'helpers', 'notes', 'agent.toml');
    expect(bp?.agentRefs).toEqual({ researcher, './helpers/notes': notes, notes });
    expect(Object.keys(bp?.agents ?? {}).sort()).toEqual([notes, researcher].sort());
    // The researcher names the lead back: it refers to the run's first blueprint, not a copy.
    expect(bp?.agents?.[researcher]?.agentRefs).toEqual({ lead: join(root, 'lead', 'agent.toml') });
    expect(bp?.agents?.[researcher]?.agents).toBeUndefined();
    const switched = withModel(bp as NonNullable<typeof bp>, 'openai:gpt-4.1');
    expect(switched.agents?.[researcher]?.stages[0]?.model).toBe('openai:gpt-4.1');
  });

  it('refuses a name that leads nowhere and a blueprint that does not validate', () => {
    const root = tree({
      'lead/agent.toml': '[agent]\nname = "lead"\nsub_agents = ["ghost", "broken"]\n',
      'broken/agent.toml': '[stages.a]\nmode = "autonomus"\n',
    });
    const r = loadBlueprint(join(root, 'lead'));
    expect(codesOf(r)).toEqual(['worker-agent-unknown', 'worker-agent-invalid']);
    expect(r.diagnostics[1]?.message).toMatch(/broken.*bad-value/);
  });
});

describe('worker_query', () => {
  /** An agents folder with `agents` installed: name -> description. */
  function installed(agents: Record<string, string>): string {
    const dir = mkdtempSync(join(tmpdir(), 'lev-agents-'));
    for (const [name, description] of Object.entries(agents)) {
      mkdirSync(join(dir, name));
      writeFileSync(
        join(dir, name, name === 'fixer' ? 'agent.leviath' : 'agent.toml'),
        `[agent]\nname = "${name}"\ndescription = "${description}"\n[stages.main]\nmax_iterations = 3\n`,
      );
    }
    return dir;
  }
  const QUERY = (q: string) => `[stages.split]\nmode = "fan_out"\nworker_query = "${q}"\n`;

  it('chooses the first installed agent, by name, whose directory name or description holds it, ignoring case', () => {
    const agentsDir = installed({
      'b-reviewer': 'Reviews pull requests',
      'a-reviewer': 'Reviews PULL requests too',
      fixer: 'Fixes failing tests',
    });
    const byDescription = loadToml(QUERY('pull requests'), {}, { agentsDir });
    expect(errorsOf(byDescription)).toEqual([]);
    expect(byDescription.blueprint?.stages[0]?.fanOut?.worker).toEqual({ agent: join(agentsDir, 'a-reviewer') });
    // The worker is loaded into the run's catalog like a worker_agent's.
    expect(Object.values(byDescription.blueprint?.agents ?? {}).map((a) => a.agent.name)).toEqual(['a-reviewer']);
    const byName = loadToml(QUERY('FIX'), {}, { agentsDir });
    expect(byName.blueprint?.stages[0]?.fanOut?.worker).toEqual({ agent: join(agentsDir, 'fixer') });
  });

  it('is worker-query-unmatched when no installed agent matches, and bad-fan-out-worker next to another worker', () => {
    const agentsDir = installed({ fixer: 'Fixes failing tests' });
    const none = loadToml(QUERY('translations'), {}, { agentsDir });
    expect(codesOf(none)).toContain('worker-query-unmatched');
    expect(none.diagnostics.find((d) => d.code === 'worker-query-unmatched')?.message).toMatch(/lev add/);
    const both = loadToml(`${QUERY('fixer')}worker_stage = "one"\n${WORKER}`, {}, { agentsDir });
    expect(codesOf(both)).toContain('bad-fan-out-worker');
    expect(codesOf(both)).not.toContain('unsupported-feature');
  });
});
