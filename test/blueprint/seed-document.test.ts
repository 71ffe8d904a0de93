/**
 * Every TOML block of the seed document (structured-context-memory.txt),
 * copied verbatim. Blocks that reference regions or stages declared
 * elsewhere in the document get a small scaffold that declares them.
 */
import { describe, expect, it } from 'vitest';
import { codesOf, errorsOf, loadToml } from './helpers.js';

const BRAIN = 'fn render(ctx) { "brain" }';

const blocks: { name: string; toml: string; scaffold?: string; files?: Record<string, string> }[] = [
  {
    name: 'a typical coding layout',
    toml: `[context.regions]
task         = { kind = "pinned", budget = "12%", seed = "task_input" }
codebase     = { kind = "compacting", budget = "20%" }
conversation = { kind = "sliding_window", budget = "33%", max_items = 20 }
history      = { kind = "compact_history", budget = "15%", source_region = "codebase" }
`,
  },
  {
    name: 'per-kind keys',
    toml: `[context.regions.conversation]
kind      = "sliding_window"
max_items = 20                 # default 10
strategy  = "per_item"         # per_item (default) | bulk | compact
overflow  = 10                 # with strategy = "bulk": how many to drop at once
compact_count = 10             # with strategy = "compact": how many to fold into a summary

[context.regions.codebase]
kind             = "compacting"
budget           = "20%"
compact_at       = "80%"       # compact once this full, see below
threshold_tokens = 30000       # a hard token ceiling, applied as well as compact_at

[context.regions.history]
kind          = "compact_history"
source_region = "codebase"     # which region's summaries roll forward

[context.regions.findings]
kind        = "hashmap"
max_entries = 50               # a write to an existing key replaces it

[context.regions.brain]
kind       = "custom"
script     = "context_hooks/brain.rhai"   # relative to the agent directory
persistent = false             # true behaves pinned-like: never evicted
`,
    files: { 'context_hooks/brain.rhai': BRAIN },
  },
  { name: 'a checklist', toml: '[context.regions]\ntodos = { kind = "checklist", budget = "3%" }\n' },
  {
    name: 'a checklist gate',
    toml: `[stages.implement.transitions.review]
gate = { require_no_open_items = "todos",
         message = "Finish or explicitly drop the open items first." }
`,
    scaffold: '[context.regions]\ntodos = { kind = "checklist", budget = "3%" }\n[stages.review]\n',
  },
  {
    name: 'seed forms',
    toml: `[context.regions]
task      = { kind = "pinned", seed = "task_input" }
standards = { kind = "pinned", seed = "input" }
readme    = { kind = "pinned", seed = { files = ["README.md"] } }
layout    = { kind = "temporary", seed = { glob = "src/**/*.rs" } }
rules     = { kind = "pinned", seed = { literal = "Never edit generated files." } }
env       = { kind = "pinned", seed = { command = "git log --oneline -20" } }
computed  = { kind = "temporary", seed = { rhai = "seeds/plan.rhai" } }
inherited = { kind = "pinned", seed = { caller = "brief" } }
`,
  },
  { name: 'stage instructions', toml: '[context.regions]\nstage_instructions = { kind = "pinned", budget = "3%" }\n' },
  {
    name: 'admission reject',
    toml: '[context.regions]\nsources = { kind = "temporary", budget = "30%", admission = "reject" }\n',
  },
  {
    name: 'tool routing with per-tool caps',
    toml: `[stages.analyze.tool_routing]
default_region = "scratch"
max_result_tokens = 4000          # ceiling for any tool without one of its own
[stages.analyze.tool_routing.overrides]
read_file = "codebase"
# A stage that both greps and reads files needs two numbers, not one: a cap
# sized for the file read lets every grep through untouched, and one sized for
# the grep truncates every file.
[stages.analyze.tool_routing.max_result_tokens_per_tool]
read_file = 20000
`,
    scaffold:
      '[context.regions]\nscratch = { max_tokens = 10000 }\ncodebase = { kind = "compacting", max_tokens = 40000 }\n',
  },
  {
    name: 'override tables',
    toml: `[stages.analyze.tool_routing.overrides]
read_file = { region = "codebase", max_result_tokens = 20000 }
grep = "scratch"                     # just route it
`,
    scaffold:
      '[context.regions]\nscratch = { max_tokens = 10000 }\ncodebase = { kind = "compacting", max_tokens = 40000 }\n',
  },
];

describe('the seed document', () => {
  for (const block of blocks) {
    it(`${block.name} parses and validates`, () => {
      const r = loadToml(`${block.scaffold ?? ''}${block.toml}`, block.files);
      expect(errorsOf(r)).toEqual([]);
      expect(r.blueprint).toBeDefined();
    });
  }

  it('resolves the typical layout as the document says', () => {
    const bp = loadToml(blocks[0]?.toml ?? '').blueprint;
    expect(bp?.regions.map((r) => r.name)).toEqual([
      'task',
      'codebase',
      'conversation',
      'history',
      'tool_results',
      'final_output',
    ]);
    // The document's rolling regions have no max_tokens; validate says how large they grow.
    expect(codesOf(loadToml(blocks[0]?.toml ?? ''))).toContain('unbounded-percentage-budget');
  });

  it('warns that overflow and compact_count do nothing under per_item', () => {
    const r = loadToml(blocks[1]?.toml ?? '', blocks[1]?.files);
    const keys = r.diagnostics.filter((d) => d.code === 'unknown-region-key').map((d) => d.path);
    expect(keys).toEqual(['context.regions.conversation.overflow', 'context.regions.conversation.compact_count']);
  });

  it('keeps the gate and the routing as written', () => {
    const gate = loadToml(`${blocks[3]?.scaffold}${blocks[3]?.toml}`).blueprint;
    expect(gate?.stages.find((s) => s.name === 'implement')?.transitions[0]?.gate).toEqual({
      requireNoOpenItems: 'todos',
      message: 'Finish or explicitly drop the open items first.',
      maxAttempts: 3,
    });
    const routing = loadToml(`${blocks[8]?.scaffold}${blocks[8]?.toml}`).blueprint;
    expect(routing?.stages[0]?.toolRouting?.overrides).toEqual({
      read_file: { region: 'codebase', maxResultTokens: 20000 },
      grep: { region: 'scratch' },
    });
  });
});
