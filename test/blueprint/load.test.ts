import { describe, expect, it } from 'vitest';
import { loadBlueprintFromString } from '../../src/blueprint/load.js';
import { resolveStageBudgets, stageLayout } from '../../src/blueprint/stage-layouts.js';
import { emptyUserConfig } from '../../src/blueprint/user-config.js';
import { codesOf, errorsOf, loadToml } from './helpers.js';

function load(toml: string) {
  const r = loadToml(toml);
  if (!r.blueprint) throw new Error(`expected a blueprint, got ${errorsOf(r).join('; ')}`);
  return r.blueprint;
}

function budgets(toml: string, window: number) {
  const stage = resolveStageBudgets(load(toml), window)[0];
  return Object.fromEntries((stage?.regions ?? []).map((r) => [r.name, r]));
}

describe('defaults', () => {
  it('stops a stage that sets no max_iterations after 50 inferences per visit, as the original does', () => {
    const bp = loadToml('[stages.main]\n[stages.main.transitions.review]\n[stages.review]\nmax_iterations = 500\n')
      .blueprint!;
    expect(bp.stages.find((s) => s.name === 'main')?.maxIterations).toBe(50);
    expect(bp.stages.find((s) => s.name === 'review')?.maxIterations).toBe(500);
  });

  it('an empty file is a blueprint with the default layout and one stage main', () => {
    const bp = load('');
    expect(bp.defaultLayout).toBe(true);
    expect(bp.regions.map((r) => [r.name, r.kind])).toEqual([
      ['system', 'pinned'],
      ['tool_results', 'temporary'],
      ['conversation', 'sliding_window'],
      ['final_output', 'pinned'],
    ]);
    expect(bp.regions[0]?.seed).toEqual({ form: 'task_input', refresh: 'once' });
    expect(bp.regions[0]?.maxTokens).toBe(8000);
    expect(bp.regions[2]).toMatchObject({ maxItems: 50, strategy: 'per_item', maxTokens: 10000 });
    expect(bp.stages.map((s) => [s.name, s.model])).toEqual([['main', 'scripted:default']]);
    expect(bp.agent.entryStage).toBe('main');
    expect(bp.compaction).toEqual({ maxSummaryTokens: 2000, temperature: 0.2 });
    expect(bp.limits.scriptShellTimeoutSecs).toBe(60);
  });

  it('applies every region default and appends undeclared runtime regions after the declared ones', () => {
    const bp = load('[context.regions]\nnotes = {}\nconversation = { kind = "sliding_window", max_items = 5 }');
    expect(bp.regions.map((r) => r.name)).toEqual(['notes', 'conversation', 'tool_results', 'final_output']);
    expect(bp.regions[0]).toEqual({
      name: 'notes',
      kind: 'temporary',
      admission: 'evict',
      volatility: 'rewritten',
      volatilityDeclared: false,
      summarizable: true,
      required: false,
      describeInPrompt: false,
      placement: 'tail',
    });
    expect(bp.regions[1]).toMatchObject({ maxItems: 5, strategy: 'per_item' });
    expect(bp.regions[1]?.maxTokens).toBeUndefined();
  });

  it('fills per-kind defaults by strategy and accepts hash_map', () => {
    const bp = load(
      '[context.regions]\nb = { kind = "sliding_window", strategy = "bulk" }\nc = { kind = "sliding_window", strategy = "compact" }\nh = { kind = "hash_map" }',
    );
    expect(bp.regions[0]).toMatchObject({ strategy: 'bulk', overflow: 10, maxItems: 10 });
    expect(bp.regions[1]).toMatchObject({ strategy: 'compact', compactCount: 10 });
    expect(bp.regions[2]?.kind).toBe('hashmap');
  });

  it('seeds a bare task region with the task and reads every seed form', () => {
    const bp = load(`[context.regions]
task = { kind = "pinned" }
a = { seed = "input" }
b = { seed = { caller = "brief" } }
c = { seed = { files = ["README.md"], refresh = "each_stage" } }
d = { seed = { glob = "src/**/*.ts" } }
e = { seed = { literal = "x" } }
f = { seed = { rhai = "seeds/plan.rhai" } }
g = { seed = { command = "ls" } }
h = { seed = { tool = "list_dir" } }
i = { seed = { tools = ["list_dir", { name = "read_file", args = { path = "a.txt" } }] } }`);
    const seeds = Object.fromEntries(bp.regions.map((r) => [r.name, r.seed]));
    expect(seeds.task).toEqual({ form: 'task_input', refresh: 'once' });
    expect(seeds.a).toEqual({ form: 'input', refresh: 'once' });
    expect(seeds.b).toEqual({ form: 'caller', key: 'brief', refresh: 'once' });
    expect(seeds.c).toEqual({ form: 'files', paths: ['README.md'], refresh: 'each_stage' });
    expect(seeds.d).toEqual({ form: 'glob', pattern: 'src/**/*.ts', refresh: 'once' });
    expect(seeds.e).toEqual({ form: 'literal', text: 'x', refresh: 'once' });
    expect(seeds.f).toEqual({ form: 'rhai', path: 'seeds/plan.rhai', refresh: 'once' });
    expect(seeds.g).toEqual({ form: 'command', command: 'ls', refresh: 'once' });
    expect(seeds.h).toEqual({ form: 'tools', calls: [{ name: 'list_dir', args: {} }], refresh: 'once' });
    expect(seeds.i).toEqual({
      form: 'tools',
      calls: [
        { name: 'list_dir', args: {} },
        { name: 'read_file', args: { path: 'a.txt' } },
      ],
      refresh: 'once',
    });
  });

  it('trims descriptions and treats a blank one as unset', () => {
    const bp = load('[context.regions]\na = { description = "  notes  " }\nb = { description = "   " }');
    expect(bp.regions[0]?.description).toBe('notes');
    expect(bp.regions[1]?.description).toBeUndefined();
  });

  it('takes the agent model as the stage default and the first stage as entry', () => {
    const bp = load(
      '[agent]\nname = "x"\nmodel = "openai:gpt-4o"\n[stages.second]\n[stages.first]\nmodel = "anthropic:claude-haiku-4-5"',
    );
    expect(bp.agent.entryStage).toBe('second');
    expect(bp.stages.map((s) => s.model)).toEqual(['openai:gpt-4o', 'anthropic:claude-haiku-4-5']);
    expect(
      load(
        '[agent]\nentry_stage = "b"\n[stages.a]\n[stages.a.transitions.b]\n[stages.b]\n[stages.b.transitions.a]\ncondition = "error"',
      ).agent.entryStage,
    ).toBe('b');
  });

  it('names the agent after its directory when [agent] name is absent', () => {
    const r = loadBlueprintFromString('', '/tmp/my-agent', '/tmp/my-agent/agent.toml');
    expect(r.blueprint?.agent.name).toBe('my-agent');
    expect(loadBlueprintFromString('', '/tmp', '/tmp/solo.toml').blueprint?.agent.name).toBe('solo');
  });

  it('canonicalises tool names in routing, tools and permissions, and normalises summarize', () => {
    const bp = load(`[context.regions]
scratch = {}
[tool_permissions]
bash = "ask"
default = "allow"
[stages.a]
available_tools = ["bash", "read_file", "context_read"]
[stages.a.tool_routing]
default_region = "scratch"
overrides = { bash = { max_result_tokens = 500 } }
[stages.a.transitions.b]
transform = "summarize"
[stages.b]`);
    const a = bp.stages[0];
    expect(a?.availableTools).toEqual(['shell', 'read_file', 'context_read']);
    expect(a?.toolRouting).toEqual({
      defaultRegion: 'scratch',
      overrides: { shell: { maxResultTokens: 500 } },
      maxResultTokensPerTool: {},
      persist: true,
    });
    expect(bp.toolPermissions).toEqual({ default: 'allow', tools: { shell: 'ask' } });
    expect(a?.transitions[0]?.transform).toBe('compact');
  });

  it('refuses one canonical tool named twice and a tool capped in both tables', () => {
    const twice = loadToml('[context.regions]\ns = {}\n[stages.a.tool_routing.overrides]\nbash = "s"\nshell = "s"');
    expect(codesOf(twice)).toContain('bad-routing');
    const both = loadToml(
      '[stages.a.tool_routing]\noverrides = { read_file = { max_result_tokens = 10 } }\nmax_result_tokens_per_tool = { read_file = 20 }',
    );
    expect(codesOf(both)).toContain('bad-routing');
  });
});

describe('model table', () => {
  it('merges built-ins, the blueprint and the user config, in that order', () => {
    const userConfig = {
      ...emptyUserConfig(),
      models: { 'acme:big': { contextWindow: 64000, maxOutputTokens: 2000 } },
    };
    const r = loadToml(
      '[models."acme:big"]\ncontext_window = 32000\n[models."acme:small"]\ncontext_window = 16000\nencoding = "cl100k_base"\n[models."openai:gpt-4o"]\nmax_output_tokens = 1000',
      {},
      { userConfig },
    );
    const models = r.blueprint?.models ?? {};
    expect(models['acme:big']?.contextWindow).toBe(64000);
    expect(models['acme:small']).toEqual({ contextWindow: 16000, maxOutputTokens: 4096, encoding: 'cl100k_base' });
    expect(models['openai:gpt-4o']).toEqual({ contextWindow: 128000, maxOutputTokens: 1000 });
    expect(models['scripted:default']?.contextWindow).toBe(200000);
  });

  it('refuses unknown keys in a model table', () => {
    expect(codesOf(loadToml('[models."acme:x"]\ncontext_window = 1000\nwindow = 5'))).toContain('unknown-key');
  });
});

describe('layouts', () => {
  const toml = `[context.regions]
task = { kind = "pinned", budget = "10%" }
notes = {}
stage_instructions = { kind = "pinned", max_tokens = 300 }
[stages.a]
[stages.b.context.regions]
work = { kind = "hashmap" }
task = { max_tokens = 900 }
stage_instructions = { max_tokens = 600 }`;

  it('merges a stage re-declaration with the global definition and appends always-visible regions', () => {
    const bp = load(toml);
    const [a, b] = bp.stages;
    if (!a || !b) throw new Error('stages missing');
    expect(stageLayout(bp, a).map((r) => r.name)).toEqual([
      'task',
      'notes',
      'stage_instructions',
      'tool_results',
      'conversation',
      'final_output',
    ]);
    const layout = stageLayout(bp, b);
    expect(layout.map((r) => r.name)).toEqual([
      'work',
      'task',
      'stage_instructions',
      'conversation',
      'tool_results',
      'final_output',
    ]);
    expect(layout[1]).toMatchObject({ kind: 'pinned', budgetPercent: 10, maxTokens: 900 });
    expect(layout[2]).toMatchObject({ kind: 'pinned', maxTokens: 600 });
  });

  it('is deeply frozen plain data that survives a JSON round trip', () => {
    const bp = load(toml);
    expect(Object.isFrozen(bp)).toBe(true);
    expect(Object.isFrozen(bp.regions[0])).toBe(true);
    expect(Object.isFrozen(bp.stages[1]?.regions?.[0])).toBe(true);
    expect(JSON.parse(JSON.stringify(bp))).toEqual(bp);
  });

  it('carries the custom script source and refuses scripts outside the blueprint directory', () => {
    const source = 'fn render(ctx) { "brain" }';
    const ok = loadToml('[context.regions]\nbrain = { kind = "custom", script = "hooks/brain.rhai" }', {
      'hooks/brain.rhai': source,
    });
    expect(ok.blueprint?.regions[0]?.scriptSource).toBe(source);
    const outside = loadToml('[context.regions]\nbrain = { kind = "custom", script = "../brain.rhai" }');
    expect(outside.diagnostics[0]?.message).toMatch(/outside the blueprint directory/);
    const broken = loadToml('[context.regions]\nbrain = { kind = "custom", script = "b.rhai" }', {
      'b.rhai': 'fn render(ctx) { "x" ',
    });
    expect(broken.diagnostics[0]?.message).toMatch(/does not compile.*line 1/);
    const noRender = loadToml('[context.regions]\nbrain = { kind = "custom", script = "b.rhai" }', {
      'b.rhai': 'fn on_write(ctx) { true }',
    });
    expect(noRender.diagnostics[0]?.message).toMatch(/no render function/);
    const empty = loadToml('[context.regions]\nbrain = { kind = "custom", script = "b.rhai" }', { 'b.rhai': '  \n' });
    expect(empty.diagnostics[0]?.message).toMatch(/is empty/);
  });

  it('refuses a stage-only stage_instructions, and ignores a volatility on it with a warning', () => {
    expect(codesOf(loadToml('[stages.a.context.regions]\nstage_instructions = { kind = "pinned" }'))).toContain(
      'runtime-region-invalid',
    );
    const withVolatility = loadToml(
      '[context.regions]\nstage_instructions = { kind = "pinned", volatility = "stable" }',
    );
    expect(codesOf(withVolatility)).toEqual(['stage-instructions-volatility-ignored']);
    expect(withVolatility.blueprint?.regions.find((r) => r.name === 'stage_instructions')?.volatility).toBe(
      'rewritten',
    );
    expect(codesOf(loadToml('[context.regions]\nstage_instructions = { kind = "temporary" }'))).toContain(
      'runtime-region-invalid',
    );
  });

  it('refuses grants written into a blueprint', () => {
    const r = loadToml('[security]\nread_paths = ["/"]');
    expect(r.diagnostics[0]).toMatchObject({ code: 'unknown-key', path: 'security.read_paths' });
    expect(r.diagnostics[0]?.message).toMatch(/your own config/);
  });
});

describe('diagnostics', () => {
  it('carry the key path and the line and column of the key', () => {
    const r = loadToml('[agent]\nname = "x"\n\n[context.regions.codebase]\nkind = "compacting"\nbudget = "twenty"\n');
    expect(r.diagnostics[0]).toMatchObject({
      code: 'bad-budget',
      severity: 'error',
      path: 'context.regions.codebase.budget',
      line: 6,
      column: 1,
    });
    const inline = loadToml('[context.regions]\nc = { kind = "compacting", compact_at = "x" }');
    expect(inline.diagnostics[0]).toMatchObject({ code: 'bad-compact-at', line: 2, column: 28 });
  });

  it('report a TOML syntax error with its position', () => {
    const r = loadToml('[agent]\nname = \n');
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]).toMatchObject({ code: 'toml-syntax', line: 2 });
    expect(r.blueprint).toBeUndefined();
  });
});

describe('validation scenarios (docs/reference/simulator.md#scenarios)', () => {
  it('row 1: percent budgets and the compacting threshold at 200000', () => {
    const rows = budgets(
      '[context.regions]\nr = { budget = "20%" }\nc = { kind = "compacting", budget = "20%", compact_at = "80%" }',
      200000,
    );
    expect(rows.r?.budget).toBe(40000);
    expect(rows.c).toMatchObject({ budget: 40000, threshold: 32000 });
    const capped = budgets(
      '[context.regions]\nc = { kind = "compacting", budget = "20%", compact_at = "80%", threshold_tokens = 25000 }',
      200000,
    );
    expect(capped.c?.threshold).toBe(25000);
  });

  it('row 2: max_tokens caps, min_tokens floors, spaces are trimmed', () => {
    expect(budgets('[context.regions]\nr = { budget = "2%", max_tokens = 4000 }', 1000000).r?.budget).toBe(4000);
    expect(
      budgets('[context.regions]\nr = { budget = "10%", min_tokens = 9000, max_tokens = 4000 }', 200000).r?.budget,
    ).toBe(9000);
    expect(budgets('[context.regions]\nr = { budget = " 35 % ", max_tokens = 400000 }', 1000000).r).toMatchObject({
      budget: 350000,
      budgetText: ' 35 % ',
    });
  });

  it('row 3: each malformed budget is a hard error naming the region and the rule', () => {
    const rules: [string, RegExp][] = [
      ['"35"', /end in "%"/],
      ['"abc%"', /plain number/],
      ['"0%"', /greater than 0%/],
      ['"-10%"', /plain number/],
      ['"150%"', /at most 100%/],
      ['20', /percentage string/],
    ];
    for (const [value, rule] of rules) {
      const r = loadToml(`[context.regions]\nnotes = { budget = ${value} }`);
      expect(r.blueprint).toBeUndefined();
      expect(r.diagnostics[0]?.code).toBe('bad-budget');
      expect(r.diagnostics[0]?.message).toMatch(/"notes"/);
      expect(r.diagnostics[0]?.message).toMatch(rule);
    }
  });

  it('row 23: clearing a pinned region is refused and says transforms never touch pinned regions', () => {
    const r = loadToml(
      '[context.regions]\ntask = { kind = "pinned" }\n[stages.a.transitions.b]\ntransform = "custom"\ntransform_config = { clear = ["task"] }\n[stages.b]',
    );
    expect(r.blueprint).toBeUndefined();
    const d = r.diagnostics.find((x) => x.code === 'bad-transform-config');
    expect(d?.message).toMatch(/never touch pinned/);
  });

  it('row 32: a misspelt key is a warning and the blueprint still loads', () => {
    const r = loadToml('[context.regions]\nconversation = { kind = "sliding_window", max_item = 20 }');
    expect(codesOf(r)).toEqual(['per-item-conversation', 'unknown-region-key']);
    expect(r.diagnostics.find((d) => d.code === 'unknown-region-key')?.severity).toBe('warning');
    expect(r.blueprint).toBeDefined();
  });

  it('row 33: per-item, each-stage and pinnned are each hard errors', () => {
    for (const [toml, code] of [
      ['conversation = { kind = "sliding_window", strategy = "per-item" }', 'unknown-strategy'],
      ['layout = { seed = { tools = ["list_dir"], refresh = "each-stage" } }', 'bad-refresh'],
      ['task = { kind = "pinnned" }', 'unknown-kind'],
    ]) {
      const r = loadToml(`[context.regions]\n${toml}`);
      expect(r.blueprint).toBeUndefined();
      expect(codesOf(r)).toContain(code);
    }
  });

  it('row 34: routing to an unseen region and a gate on a temporary region are hard errors', () => {
    const routing = loadToml(
      '[context.regions]\nraw = {}\n[stages.analyze.context.regions]\nwork = {}\n[stages.analyze.tool_routing]\ndefault_region = "raw"',
    );
    const d = routing.diagnostics.find((x) => x.code === 'routing-region-not-visible');
    expect(d?.severity).toBe('error');
    expect(d?.message).toMatch(/"analyze"/);
    expect(d?.message).toMatch(/"raw"/);
    const gate = loadToml(
      '[context.regions]\nscratch = {}\n[stages.a.transitions.b]\ngate = { require_no_open_items = "scratch" }\n[stages.b]',
    );
    expect(gate.blueprint).toBeUndefined();
    expect(codesOf(gate)).toContain('gate-not-checklist');
  });

  it('row 37a: a stage prompt with no pinned region fails validation', () => {
    const r = loadToml('[context.regions]\nnotes = {}\n[stages.main]\nsystem_prompt = "Do the work."');
    expect(codesOf(r)).toEqual(['stage-prompt-no-region']);
    expect(r.blueprint).toBeUndefined();
  });

  it('the working-space check uses the --window override', () => {
    const toml = '[context.regions]\nbig = { kind = "pinned", max_tokens = 20000 }';
    expect(codesOf(loadToml(toml))).not.toContain('working-space');
    expect(codesOf(loadToml(toml, {}, { window: 25000 }))).toContain('working-space');
    expect(codesOf(loadToml(toml, {}, { window: 19999 }))).not.toContain('working-space');
  });
});

describe('shapes refused where they are read', () => {
  it('refuses a transform_config that is not a table', () => {
    const r = loadToml(
      '[context.regions]\ntask = { kind = "pinned" }\n[stages.a.transitions.b]\ntransform = "custom"\ntransform_config = "x"\n[stages.b]',
    );
    expect(errorsOf(r).join('\n')).toMatch(/^bad-transform-config: transform_config must be a table/m);
  });

  it('refuses a compact_history region that names no source_region', () => {
    const r = loadToml('[context.regions]\nh = { kind = "compact_history" }');
    expect(errorsOf(r).join('\n')).toMatch(/^source-region-invalid: compact_history region "h" needs source_region/m);
  });
});
