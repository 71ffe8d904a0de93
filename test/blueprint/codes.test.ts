/**
 * One case per code: a minimal blueprint that triggers it, and the same
 * blueprint fixed, which does not.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CODES } from '../../src/blueprint/codes.js';
import { type LoadOptions, loadBlueprint } from '../../src/blueprint/load.js';
import { emptyUserConfig, loadUserConfig } from '../../src/blueprint/user-config.js';
import { codesOf, loadToml } from './helpers.js';

interface Case {
  code: string;
  bad: string;
  fixed: string;
  files?: Record<string, string>;
  /** The files of the fixed blueprint, when they are not `files`. */
  fixedFiles?: Record<string, string>;
  badOpts?: LoadOptions;
  fixedOpts?: LoadOptions;
}

const RENDER = 'fn render(ctx) { "brain" }';
const OWNER_TOML = '[tool]\nname = "owner"\n[[tool.params]]\nname = "service"\ntype = "string"\nrequired = true\n';
const OWNER_GRANT = '[stages.a]\navailable_tools = ["owner"]';
const granted = {
  userConfig: { ...emptyUserConfig(), security: { readPaths: ['/opt/data'], allowBlueprintReadPaths: false } },
};

/** An agents folder with one installed agent, "reviewer", which does code reviews. */
const INSTALLED = mkdtempSync(join(tmpdir(), 'lev-agents-'));
mkdirSync(join(INSTALLED, 'reviewer'));
writeFileSync(
  join(INSTALLED, 'reviewer', 'agent.toml'),
  '[agent]\nname = "reviewer"\ndescription = "Does code reviews"\n[stages.main]\nmax_iterations = 3\n',
);

/** A providers folder holding these scripts (docs/reference/script-providers.md). */
function providers(files: Record<string, string>): LoadOptions {
  const dir = mkdtempSync(join(tmpdir(), 'lev-providers-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return { providersDir: dir };
}
const GROQ_STAGE = '[stages.a]\nmodel = "groq:llama-3.3-70b"';
const GROQ = 'fn initialize(config) { #{} }\nfn inference(state, request) { #{ content: "hi" } }';

const cases: Case[] = [
  { code: 'toml-syntax', bad: '[agent\nname = "x"', fixed: '[agent]\nname = "x"' },
  { code: 'unknown-kind', bad: 'r = { kind = "pinnned" }', fixed: 'r = { kind = "pinned" }' },
  {
    code: 'unknown-strategy',
    bad: 'conversation = { kind = "sliding_window", strategy = "per-item" }',
    fixed: 'conversation = { kind = "sliding_window", strategy = "per_item" }',
  },
  { code: 'unknown-admission', bad: 'r = { admission = "refuse" }', fixed: 'r = { admission = "reject" }' },
  { code: 'unknown-volatility', bad: 'r = { volatility = "static" }', fixed: 'r = { volatility = "stable" }' },
  { code: 'unknown-placement', bad: 'r = { placement = "end" }', fixed: 'r = { placement = "tail" }' },
  {
    code: 'bad-budget',
    bad: 'r = { budget = "35", max_tokens = 1000 }',
    fixed: 'r = { budget = "35%", max_tokens = 1000 }',
  },
  {
    code: 'bad-compact-at',
    bad: 'c = { kind = "compacting", compact_at = "80" }',
    fixed: 'c = { kind = "compacting", compact_at = "80%" }',
  },
  { code: 'bad-size', bad: 'r = { max_tokens = 0 }', fixed: 'r = { max_tokens = 100 }' },
  { code: 'unknown-key', bad: '[compaction]\nmax_summary = 100', fixed: '[compaction]\nmax_summary_tokens = 100' },
  { code: 'duplicate-region', bad: '"caf\u00e9" = {}\n"cafe\u0301" = {}', fixed: '"caf\u00e9" = {}\n"cafe" = {}' },
  { code: 'bad-region-name', bad: '"my notes" = {}', fixed: 'my_notes = {}' },
  {
    code: 'custom-script-invalid',
    bad: 'brain = { kind = "custom", script = "hooks/brain.rhai" }',
    fixed: 'brain = { kind = "custom", script = "hooks/brain.rhai" }',
    files: { 'hooks/other.rhai': RENDER },
  },
  {
    code: 'source-region-invalid',
    bad: 'h = { kind = "compact_history", source_region = "nope" }',
    fixed: 'h = { kind = "compact_history", source_region = "conversation" }',
  },
  {
    code: 'region-kind-changed',
    bad: 'notes = {}\n[stages.a.context.regions]\nnotes = { kind = "pinned" }',
    fixed: 'notes = {}\n[stages.a.context.regions]\nnotes = { max_tokens = 100 }',
  },
  {
    code: 'seed-in-stage-layout',
    bad: '[stages.a.context.regions]\nrules = { kind = "pinned", seed = { literal = "x" } }',
    fixed: 'rules = { kind = "pinned", seed = { literal = "x" } }\n[stages.a.context.regions]\nrules = {}',
  },
  {
    code: 'seed-ambiguous',
    bad: 'r = { seed = { literal = "x", files = ["a"] } }',
    fixed: 'r = { seed = { literal = "x" } }',
  },
  {
    code: 'bad-refresh',
    bad: 'r = { seed = { files = ["a"], refresh = "each-stage" } }',
    fixed: 'r = { seed = { files = ["a"], refresh = "each_stage" } }',
  },
  {
    code: 'runtime-region-invalid',
    bad: 'conversation = { kind = "temporary" }',
    fixed: 'conversation = { kind = "sliding_window" }',
  },
  {
    code: 'stage-prompt-no-region',
    bad: 'notes = {}\n[stages.main]\nsystem_prompt = "Work."',
    fixed:
      'notes = {}\nstage_instructions = { kind = "pinned", max_tokens = 500 }\n[stages.main]\nsystem_prompt = "Work."',
  },
  {
    code: 'routing-region-not-visible',
    bad: 'raw = {}\n[stages.a.context.regions]\nwork = {}\n[stages.a.tool_routing]\ndefault_region = "raw"',
    fixed: 'raw = {}\n[stages.a.context.regions]\nwork = {}\nraw = {}\n[stages.a.tool_routing]\ndefault_region = "raw"',
  },
  {
    code: 'bad-routing',
    bad: 'scratch = {}\n[stages.a.tool_routing.overrides]\nread_file = 5',
    fixed: 'scratch = {}\n[stages.a.tool_routing.overrides]\nread_file = "scratch"',
  },
  {
    code: 'unknown-stage',
    bad: '[stages.a.transitions.reveiw]\n[stages.review]',
    fixed: '[stages.a.transitions.review]\n[stages.review]',
  },
  {
    code: 'unknown-condition',
    bad: '[stages.a.transitions.b]\ncondition = "sometimes"\n[stages.b]',
    fixed: '[stages.a.transitions.b]\ncondition = "llm_choice"\n[stages.b]',
  },
  {
    code: 'unknown-transform',
    bad: '[stages.a.transitions.b]\ntransform = "wipe"\n[stages.b]',
    fixed: '[stages.a.transitions.b]\ntransform = "clear"\n[stages.b]',
  },
  {
    code: 'bad-transform-config',
    bad: 'task = { kind = "pinned" }\nscratch = {}\n[stages.a.transitions.b]\ntransform = "custom"\ntransform_config = { clear = ["task"] }\n[stages.b]',
    fixed:
      'task = { kind = "pinned" }\nscratch = {}\n[stages.a.transitions.b]\ntransform = "custom"\ntransform_config = { clear = ["scratch"] }\n[stages.b]',
  },
  {
    code: 'bad-stuck',
    bad: '[stages.a.transitions.b]\ncondition = "stuck"\n[stages.b]',
    fixed: '[stages.a.transitions.b]\ncondition = "stuck"\nstuck_after_iterations = 5\n[stages.b]',
  },
  {
    code: 'gate-region-unknown',
    bad: 'notes = {}\n[stages.a.transitions.b]\ngate = { require_regions = ["nope"] }\n[stages.b]',
    fixed: 'notes = {}\n[stages.a.transitions.b]\ngate = { require_regions = ["notes"] }\n[stages.b]',
  },
  {
    code: 'transform-region-unknown',
    bad: '[agent]\nname = "lead"\n[context.regions]\nnotes = {}\n[[transforms]]\nfrom_blueprint = "lead"\nto_blueprint = "helper"\n[[transforms.mappings]]\nto_region = "inbox"\nfrom_region = "nope"',
    fixed:
      '[agent]\nname = "lead"\n[context.regions]\nnotes = {}\n[[transforms]]\nfrom_blueprint = "lead"\nto_blueprint = "helper"\n[[transforms.mappings]]\nto_region = "inbox"\nfrom_region = "notes"',
  },
  {
    code: 'gate-not-checklist',
    bad: 'scratch = {}\ntodos = { kind = "checklist" }\n[stages.a.transitions.b]\ngate = { require_no_open_items = "scratch" }\n[stages.b]',
    fixed:
      'scratch = {}\ntodos = { kind = "checklist" }\n[stages.a.transitions.b]\ngate = { require_no_open_items = "todos" }\n[stages.b]',
  },
  {
    code: 'bad-gate',
    bad: 'notes = {}\n[stages.a.transitions.b]\ngate = { message = "Finish first." }\n[stages.b]',
    fixed:
      'notes = {}\n[stages.a.transitions.b]\ngate = { message = "Finish first.", require_regions = ["notes"] }\n[stages.b]',
  },
  {
    code: 'working-space',
    bad: 'big = { kind = "pinned", max_tokens = 195000 }',
    fixed: 'big = { kind = "pinned", max_tokens = 100000 }',
  },
  {
    code: 'blueprint-too-large',
    // Words, not one letter repeated: a run of one letter is a single piece the tokenizer merges slowly.
    bad: `stage_instructions = { kind = "pinned", max_tokens = 1000 }\n[stages.main]\nsystem_prompt = "${'Work. '.repeat(190_000)}"`,
    fixed: 'stage_instructions = { kind = "pinned", max_tokens = 1000 }\n[stages.main]\nsystem_prompt = "Work."',
  },
  {
    code: 'budget-zero',
    bad: 'r = { kind = "temporary", budget = "0.0001%" }',
    fixed: 'r = { kind = "temporary", budget = "0.0001%", min_tokens = 100 }',
  },
  { code: 'bad-value', bad: 'r = { summarizable = "no" }', fixed: 'r = { summarizable = false }' },
  {
    code: 'summarizable-not-allowed',
    bad: 'c = { kind = "compacting", summarizable = false }',
    fixed: 'c = { kind = "temporary", summarizable = false }',
  },
  {
    code: 'file-tracking-region-invalid',
    bad: 'notes = {}\n[context.file_tracking]\ntrack_reads = true',
    fixed: 'files = { kind = "hashmap" }\n[context.file_tracking]\ntrack_reads = true',
  },
  { code: 'bad-permission', bad: '[tool_permissions]\nshell = "maybe"', fixed: '[tool_permissions]\nshell = "ask"' },
  {
    code: 'bad-model',
    bad: '[models."local:x"]\nmax_output_tokens = 100',
    fixed: '[models."local:x"]\ncontext_window = 32000',
  },
  {
    code: 'bad-encoding',
    bad: '[models."local:x"]\ncontext_window = 32000\nencoding = "o200k"',
    fixed: '[models."local:x"]\ncontext_window = 32000\nencoding = "o200k_base"',
  },
  {
    code: 'unknown-region-key',
    bad: 'conversation = { kind = "sliding_window", max_item = 20 }',
    fixed: 'conversation = { kind = "sliding_window", max_items = 20 }',
  },
  {
    code: 'region-seed-not-understood',
    bad: 'brief = { kind = "pinned", seed = { caller_input = "brief" } }',
    fixed: 'brief = { kind = "pinned", seed = { caller = "brief" } }',
  },
  {
    code: 'command-seed',
    bad: 'env = { kind = "pinned", seed = { command = "git log --oneline -5" } }',
    fixed: 'env = { kind = "pinned", seed = { literal = "log" } }',
  },
  {
    code: 'tool-seed',
    bad: 'layout = { seed = { tools = ["list_dir"] } }',
    fixed: 'layout = { seed = { literal = "x" } }',
  },
  {
    code: 'routing-without-region-read',
    bad: 'scratch = {}\n[stages.a]\navailable_tools = ["read_file"]\n[stages.a.tool_routing]\ndefault_region = "scratch"',
    fixed:
      'scratch = {}\n[stages.a]\navailable_tools = ["read_file", "context_read"]\n[stages.a.tool_routing]\ndefault_region = "scratch"',
  },
  {
    code: 'compact-summarizes-deliverable',
    bad: 'notes = { required = true }\n[stages.a.transitions.b]\ntransform = "compact"\n[stages.b]',
    fixed:
      'notes = { required = true, summarizable = false }\n[stages.a.transitions.b]\ntransform = "compact"\n[stages.b]',
  },
  {
    code: 'required-region-unenforceable',
    bad: 'notes = { required = true }\n[stages.a]\navailable_tools = ["read_file"]',
    fixed: 'notes = { required = true }\n[stages.a]\navailable_tools = ["read_file", "context_write"]',
  },
  {
    code: 'unbounded-percentage-budget',
    bad: 'scratch = { budget = "20%" }',
    fixed: 'scratch = { budget = "20%", max_tokens = 8000 }',
  },
  {
    code: 'budgets-exceed-window',
    bad: 'a = { budget = "60%", max_tokens = 200000 }\nb = { budget = "60%", max_tokens = 200000 }',
    fixed: 'a = { budget = "40%", max_tokens = 200000 }\nb = { budget = "40%", max_tokens = 200000 }',
  },
  {
    code: 'stage-prompt-too-large',
    bad: `stage_instructions = { kind = "pinned", max_tokens = 5 }\n[stages.a]\nsystem_prompt = "${'Read every file twice before editing. '.repeat(5)}"`,
    fixed: `stage_instructions = { kind = "pinned", max_tokens = 500 }\n[stages.a]\nsystem_prompt = "${'Read every file twice before editing. '.repeat(5)}"`,
  },
  {
    code: 'gate-region-not-visible',
    bad: 'notes = {}\n[stages.a.context.regions]\nwork = {}\n[stages.a.transitions.b]\ngate = { require_regions = ["notes"] }\n[stages.b]',
    fixed:
      'notes = {}\n[stages.a.context.regions]\nwork = {}\nnotes = {}\n[stages.a.transitions.b]\ngate = { require_regions = ["notes"] }\n[stages.b]',
  },
  {
    code: 'transform-never-applies',
    bad: '[agent]\nname = "lead"\n[[transforms]]\nto_blueprint = "helper"\nmappings = [{ from_region = "conversation", to_region = "inbox" }]\nfrom_blueprint = "planner"',
    fixed:
      '[agent]\nname = "lead"\n[[transforms]]\nto_blueprint = "helper"\nmappings = [{ from_region = "conversation", to_region = "inbox" }]\nfrom_blueprint = "lead"',
  },
  {
    code: 'compact-history-source-never-summarised',
    bad: 'task = { kind = "pinned" }\nh = { kind = "compact_history", source_region = "task" }',
    fixed: 'task = { kind = "pinned" }\nh = { kind = "compact_history", source_region = "conversation" }',
  },
  {
    code: 'unknown-model-window',
    bad: '[agent]\nmodel = "acme:unknown"',
    fixed: '[agent]\nmodel = "acme:unknown"\n[models."acme:unknown"]\ncontext_window = 32000',
  },
  { code: 'read-paths-declared', bad: '[read_paths]\nallow = ["/opt/data"]', fixed: '[agent]\nname = "x"' },
  {
    code: 'read-paths-not-granted',
    bad: '[read_paths]\nallow = ["/opt/data"]',
    fixed: '[read_paths]\nallow = ["/opt/data"]',
    fixedOpts: granted,
  },
  {
    code: 'read-paths-grant-invalid',
    bad: '[read_paths]\nallow = ["/opt/data"]',
    fixed: '[read_paths]\nallow = ["/opt/data"]',
    badOpts: {
      userConfig: { ...emptyUserConfig(), security: { readPaths: ['regex:('], allowBlueprintReadPaths: false } },
    },
    fixedOpts: granted,
  },
  {
    code: 'read-paths-entry-invalid',
    bad: '[read_paths]\nallow = ["regex:data"]',
    fixed: '[read_paths]\nallow = ["/opt/data"]',
  },
  { code: 'broad-read-path', bad: '[read_paths]\nallow = ["~"]', fixed: '[read_paths]\nallow = ["~/notes"]' },
  {
    code: 'dead-end-possible',
    bad: '[stages.a.transitions.b]\n[stages.b]\nmax_revisits = 1',
    fixed:
      '[stages.a.transitions.b]\n[stages.a.transitions.c]\ncondition = "dead_end"\n[stages.b]\nmax_revisits = 1\n[stages.c]',
  },
  {
    code: 'cycle-without-max-revisits',
    bad: '[stages.a.transitions.b]\n[stages.b.transitions.a]\ncondition = "llm_choice"',
    fixed: '[stages.a.transitions.b]\n[stages.b]\nmax_revisits = 2\n[stages.b.transitions.a]\ncondition = "llm_choice"',
  },
  {
    code: 'unreachable-stage',
    bad: '[stages.a.transitions.b]\n[stages.b]\n[stages.c]',
    fixed: '[stages.a.transitions.b]\n[stages.b.transitions.c]\n[stages.c]',
  },
  {
    code: 'worker-query-unmatched',
    bad: '[stages.split]\nmode = "fan_out"\nworker_query = "security reviews"\n[stages.one]\nallow_as_worker = true',
    fixed: '[stages.split]\nmode = "fan_out"\nworker_query = "code reviews"\n[stages.one]\nallow_as_worker = true',
    badOpts: { agentsDir: INSTALLED },
    fixedOpts: { agentsDir: INSTALLED },
  },
  {
    code: 'bad-fan-out-worker',
    bad: '[stages.split]\nmode = "fan_out"\n[stages.one]\nallow_as_worker = true',
    fixed: '[stages.split]\nmode = "fan_out"\nworker_stage = "one"\n[stages.one]\nallow_as_worker = true',
  },
  {
    code: 'worker-stage-unknown',
    bad: '[stages.split]\nmode = "fan_out"\nworker_stage = "onne"\n[stages.one]\nallow_as_worker = true',
    fixed: '[stages.split]\nmode = "fan_out"\nworker_stage = "one"\n[stages.one]\nallow_as_worker = true',
  },
  {
    code: 'worker-stage-not-allowed',
    bad: '[stages.split]\nmode = "fan_out"\nworker_stage = "one"\n[stages.one]',
    fixed: '[stages.split]\nmode = "fan_out"\nworker_stage = "one"\n[stages.one]\nallow_as_worker = true',
  },
  {
    code: 'merge-stage-unknown',
    bad: '[stages.split]\nmode = "fan_out"\nworker_stage = "one"\nmerge_stage = "mrege"\n[stages.one]\nallow_as_worker = true\n[stages.merge]',
    fixed:
      '[stages.split]\nmode = "fan_out"\nworker_stage = "one"\nmerge_stage = "merge"\n[stages.one]\nallow_as_worker = true\n[stages.merge]',
  },
  {
    code: 'worker-agent-unknown',
    bad: '[agent]\nsub_agents = ["./helpr"]',
    fixed: '[agent]\nsub_agents = ["./helper"]',
    files: { 'helper/agent.toml': '[agent]\nname = "helper"\n' },
  },
  {
    code: 'worker-agent-invalid',
    bad: '[agent]\nsub_agents = ["./broken"]',
    fixed: '[agent]\nsub_agents = ["./helper"]',
    files: { 'helper/agent.toml': '[agent]\nname = "helper"\n', 'broken/agent.toml': '[agent]\nnme = "x"\n' },
  },
  {
    code: 'fan-out-key-unused',
    bad: '[stages.a]\nmax_workers = 4',
    fixed: '[stages.a]\nmode = "fan_out"\nworker_stage = "b"\nmax_workers = 4\n[stages.b]\nallow_as_worker = true',
  },
  {
    code: 'model-parameter-unsupported',
    bad: '[stages.a]\nmodel = { provider = "anthropic", model = "claude-opus-5", parameters = { temperature = 0.2 } }',
    fixed: '[stages.a]\nmodel = { provider = "openai", model = "gpt-5.5", parameters = { temperature = 0.2 } }',
  },
  {
    code: 'unknown-tool',
    bad: '[stages.a]\navailable_tools = ["read_flie"]',
    fixed: '[stages.a]\navailable_tools = ["read_file"]',
  },
  {
    code: 'bad-output-schema',
    bad: '[stages.a]\nmode = "output"\n[stages.a.output]\nformat = "json"\nschema = { type = "objekt" }',
    fixed: '[stages.a]\nmode = "output"\n[stages.a.output]\nformat = "json"\nschema = { type = "object" }',
  },
  {
    code: 'stage-hook-invalid',
    bad: '[stages.a.hooks]\non_tool_call = "hooks/guard.rhai"',
    fixed: '[stages.a.hooks]\non_tool_call = "hooks/guard.rhai"',
    files: { 'hooks/guard.rhai': 'fn guard(ctx) { () }' },
    fixedFiles: { 'hooks/guard.rhai': 'fn on_tool_call(ctx) { () }' },
  },
  {
    code: 'output-validator-invalid',
    bad: '[stages.a]\nmode = "output"\n[stages.a.output]\nvalidator = "validators/check.rhai"',
    fixed: '[stages.a]\nmode = "output"\n[stages.a.output]\nvalidator = "validators/check.rhai"',
    files: { 'validators/check.rhai': 'fn check(content) { () }' },
    fixedFiles: { 'validators/check.rhai': 'fn validate(content) { () }' },
  },
  {
    code: 'provider-script-missing',
    bad: GROQ_STAGE,
    fixed: GROQ_STAGE,
    badOpts: providers({ 'grok.rhai': GROQ }),
    fixedOpts: providers({ 'groq.rhai': GROQ }),
  },
  {
    code: 'provider-script-syntax',
    bad: GROQ_STAGE,
    fixed: GROQ_STAGE,
    badOpts: providers({ 'groq.rhai': 'fn initialize(config) { #{ }\nfn inference(state, request) { }' }),
    fixedOpts: providers({ 'groq.rhai': GROQ }),
  },
  {
    code: 'provider-script-contract',
    bad: GROQ_STAGE,
    fixed: GROQ_STAGE,
    badOpts: providers({ 'groq.rhai': 'fn initialize(config) { #{} }\nfn inference(request) { #{} }' }),
    fixedOpts: providers({ 'groq.rhai': GROQ }),
  },
  {
    code: 'script-tool-missing',
    bad: OWNER_GRANT,
    fixed: OWNER_GRANT,
    files: { 'tools/owner.toml': OWNER_TOML },
    fixedFiles: { 'tools/owner.toml': OWNER_TOML, 'tools/owner.rhai': 'params.service' },
  },
  {
    code: 'script-tool-syntax',
    bad: OWNER_GRANT,
    fixed: OWNER_GRANT,
    files: { 'tools/owner.rhai': '// @tool owner\nlet who = ;' },
    fixedFiles: { 'tools/owner.rhai': '// @tool owner\nlet who = "team-billing"; who' },
  },
  {
    code: 'script-tool-bad-schema',
    bad: OWNER_GRANT,
    fixed: OWNER_GRANT,
    files: { 'tools/owner.rhai': '// @tool owner\n// @param service strng required "the service"\nparams.service' },
    fixedFiles: {
      'tools/owner.rhai': '// @tool owner\n// @param service string required "the service"\nparams.service',
    },
  },
  {
    code: 'script-tool-shadowed',
    bad: '[stages.a]\navailable_tools = ["web_fetch"]',
    fixed: '[stages.a]\navailable_tools = ["web_fetch", "page_text"]',
    files: { 'tools/page.rhai': '// @tool web_fetch\nparams.url' },
    fixedFiles: { 'tools/page.rhai': '// @tool page_text\nparams.url' },
  },
  {
    code: 'mcp-server-not-configured',
    bad: '[stages.a]\navailable_connectors = ["fs"]',
    fixed: '[stages.a]\navailable_tools = ["read_file"]',
  },
  {
    code: 'unsupported-feature',
    bad: '[stages.a]\nshell_hint = true',
    fixed: '[stages.a]',
  },
  {
    code: 'stage-instructions-volatility-ignored',
    bad: 'stage_instructions = { kind = "pinned", volatility = "stable" }',
    fixed: 'stage_instructions = { kind = "pinned" }',
  },
  {
    code: 'seed-repeated-in-stage',
    bad: 'rules = { kind = "pinned", seed = { literal = "x" } }\n[stages.a.context.regions]\nrules = { seed = { literal = "x" } }',
    fixed: 'rules = { kind = "pinned", seed = { literal = "x" } }\n[stages.a.context.regions]\nrules = {}',
  },
  {
    code: 'seed-caller-input',
    bad: 'scope = { kind = "pinned", seed = "scope" }',
    fixed: 'scope = { kind = "pinned", seed = { caller = "scope" } }',
  },
  {
    code: 'seed-caller-input-typo',
    bad: 'task = { kind = "pinned", seed = "task_imput" }',
    fixed: 'task = { kind = "pinned", seed = "task_input" }',
  },
  {
    code: 'rewritten-region-early',
    bad: 'todos = { kind = "checklist", volatility = "stable" }\ncode = { kind = "compacting" }',
    fixed: 'todos = { kind = "checklist" }\ncode = { kind = "compacting" }',
  },
  { code: 'bad-duration', bad: '[run]\nask_timeout = "30 minutes"', fixed: '[run]\nask_timeout = "30m"' },
  {
    code: 'bad-interaction-point',
    bad: '[stages.plan]\nmode = "interactive_points"\n[[stages.plan.interaction_points]]\nstyle = "multiple_choice"\noptions = ["Approve"]',
    fixed:
      '[stages.plan]\nmode = "interactive_points"\n[[stages.plan.interaction_points]]\nstyle = "multiple_choice"\noptions = ["Approve", "Abort"]',
  },
  {
    code: 'interaction-points-unused',
    bad: '[stages.plan]\n[[stages.plan.interaction_points]]\nprompt = "Approve?"',
    fixed: '[stages.plan]\nmode = "interactive_points"\n[[stages.plan.interaction_points]]\nprompt = "Approve?"',
  },
  {
    code: 'interaction-point-option-unknown',
    bad: '[stages.plan]\nmode = "interactive_points"\n[[stages.plan.interaction_points]]\nstyle = "multiple_choice"\noptions = ["Approve", "Abort"]\nabort_options = ["Stop"]',
    fixed:
      '[stages.plan]\nmode = "interactive_points"\n[[stages.plan.interaction_points]]\nstyle = "multiple_choice"\noptions = ["Approve", "Abort"]\nabort_options = ["abort"]',
  },
  {
    code: 'blocking-tool-not-allowed',
    bad: '[stages.ask]\navailable_tools = ["ask_user"]',
    fixed: '[stages.ask]\navailable_tools = ["ask_user"]\nallow_blocking_tools = true',
  },
  {
    code: 'steady-region-in-tail',
    bad: 'rules = { kind = "pinned", placement = "tail" }',
    fixed: 'rules = { kind = "pinned" }',
  },
  {
    code: 'dynamic-tool-near-name',
    bad: '[agent]\ndynamic_tools = true\n[stages.a]\navailable_tools = ["read_fle"]',
    fixed: '[agent]\ndynamic_tools = true\n[stages.a]\navailable_tools = ["summarise_logs"]',
  },
  {
    code: 'per-item-conversation',
    bad: 'conversation = { kind = "sliding_window", max_items = 20 }',
    fixed: 'conversation = { kind = "sliding_window", max_items = 20, strategy = "bulk", overflow = 10 }',
  },
];

/** Region lines go under [context.regions] unless the case starts a table of its own. */
function wrap(body: string): string {
  const firstLine = body.split('\n')[0] ?? '';
  if (firstLine.startsWith('[')) return body;
  const split = body.indexOf('\n[');
  const regions = split === -1 ? body : body.slice(0, split);
  const rest = split === -1 ? '' : body.slice(split);
  return `[context.regions]\n${regions}${rest}`;
}

describe('every code has a triggering and a fixed blueprint', () => {
  for (const c of cases) {
    it(c.code, () => {
      const bad = loadToml(wrap(c.bad), c.files, c.badOpts);
      expect(codesOf(bad)).toContain(c.code);
      const d = bad.diagnostics.find((x) => x.code === c.code);
      expect(d?.message.length).toBeGreaterThan(20);
      const fixedFiles =
        c.fixedFiles ?? (c.code === 'custom-script-invalid' ? { 'hooks/brain.rhai': RENDER } : c.files);
      const fixed = loadToml(wrap(c.fixed), fixedFiles, c.fixedOpts);
      expect(codesOf(fixed)).not.toContain(c.code);
      if (CODES[c.code as keyof typeof CODES]?.severity === 'error') expect(fixed.blueprint).toBeDefined();
    });
  }

  it('blueprint-not-found', () => {
    const r = loadBlueprint(join(tmpdir(), 'no-such-blueprint-dir'));
    expect(codesOf(r)).toEqual(['blueprint-not-found']);
    expect(codesOf(loadToml('[agent]\nname = "x"'))).not.toContain('blueprint-not-found');
  });

  it('blueprint-unreadable', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lev-bp-'));
    mkdirSync(join(dir, 'agent.toml'));
    expect(codesOf(loadBlueprint(dir))).toEqual(['blueprint-unreadable']);
  });

  it('blueprint-ambiguous', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lev-bp-'));
    writeFileSync(join(dir, 'agent.leviath'), '[agent]\nname = "x"\n');
    expect(codesOf(loadBlueprint(dir))).toEqual([]);
    writeFileSync(join(dir, 'agent.toml'), '[agent]\nname = "x"\n');
    const both = loadBlueprint(dir);
    expect(codesOf(both)).toEqual(['blueprint-ambiguous']);
    expect(both.diagnostics[0]?.message).toMatch(/both agent\.toml and agent\.leviath/);
  });

  it('config-unreadable', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lev-cfg-'));
    expect(loadUserConfig({ LEVIATH_CONFIG: dir }).diagnostics.map((d) => d.code)).toEqual(['config-unreadable']);
    expect(loadUserConfig({ LEVIATH_CONFIG: join(dir, 'missing.toml') }).diagnostics).toEqual([]);
  });

  it('documents every code on the validation page', () => {
    const doc = readFileSync('docs/reference/validation.md', 'utf8');
    expect(Object.keys(CODES).filter((code) => !doc.includes(`| \`${code}\` |`))).toEqual([]);
  });

  it('covers every catalogued code', () => {
    const tested = new Set([
      ...cases.map((c) => c.code),
      'blueprint-not-found',
      'blueprint-unreadable',
      'config-unreadable',
      'blueprint-ambiguous',
    ]);
    expect(Object.keys(CODES).filter((code) => !tested.has(code))).toEqual([]);
  });
});
