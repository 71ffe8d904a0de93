/**
 * Every code `lev validate` can report, with its severity and a one-line
 * meaning (docs/reference/validation.md). The names are stable: users and
 * tools match on them. New cases get new codes here; codes are never renamed.
 */
import type { Severity } from '../errors.js';

export interface CodeInfo {
  severity: Severity;
  meaning: string;
}

export const CODES = {
  // docs/reference/validation.md#errors: hard errors
  'toml-syntax': { severity: 'error', meaning: 'The file is not valid TOML.' },
  'unknown-kind': { severity: 'error', meaning: '`kind` is not one of the nine region kinds.' },
  'unknown-strategy': { severity: 'error', meaning: '`strategy` is not `per_item`, `bulk` or `compact`.' },
  'unknown-admission': { severity: 'error', meaning: '`admission` is not `evict` or `reject`.' },
  'unknown-volatility': { severity: 'error', meaning: '`volatility` is not `stable`, `grows` or `rewritten`.' },
  'unknown-placement': {
    severity: 'error',
    meaning: "A region's `placement` is not `system` or `tail`, or `[context] placement` is not `auto` or `system`.",
  },
  'bad-budget': { severity: 'error', meaning: '`budget` is not a string like `"20%"` with 0 < p <= 100.' },
  'bad-compact-at': { severity: 'error', meaning: '`compact_at` is not a string like `"80%"` with 0 < p <= 100.' },
  'bad-size': {
    severity: 'error',
    meaning: 'A size is not a positive integer, `compact_count` < 2, or `min_tokens` is set without `budget`.',
  },
  'unknown-key': { severity: 'error', meaning: 'A table holds a key Leviath does not read (usually a typo).' },
  'duplicate-region': { severity: 'error', meaning: 'Two regions share one name (after Unicode normalisation).' },
  'bad-region-name': { severity: 'error', meaning: 'A region name is empty or contains whitespace.' },
  'custom-script-invalid': {
    severity: 'error',
    meaning:
      'A custom region script is missing, empty, outside the blueprint directory, does not compile, or lacks `render`.',
  },
  'source-region-invalid': {
    severity: 'error',
    meaning:
      '`source_region` is missing, unknown, the region itself, a compact_history, or claimed by another history.',
  },
  'region-kind-changed': { severity: 'error', meaning: 'A stage re-declares a region with a different kind.' },
  'seed-in-stage-layout': {
    severity: 'error',
    meaning: 'A stage layout declares `seed`; seeds belong in the global layout.',
  },
  'seed-ambiguous': { severity: 'error', meaning: 'A seed table has more than one form key.' },
  'bad-refresh': {
    severity: 'error',
    meaning: '`refresh` is not `once`/`each_stage`, or `each_stage` on a form that never changes.',
  },
  'runtime-region-invalid': {
    severity: 'error',
    meaning:
      '`conversation` is not a sliding_window, or `stage_instructions` is not pinned, not global, or placed in the tail.',
  },
  'stage-prompt-no-region': {
    severity: 'error',
    meaning: 'A stage has a `system_prompt` but no pinned region to hold it.',
  },
  'routing-region-not-visible': {
    severity: 'error',
    meaning: '`default_region` or an override names a region the stage cannot see.',
  },
  'bad-routing': { severity: 'error', meaning: 'A malformed override or cap, or one canonical tool named twice.' },
  'unknown-stage': { severity: 'error', meaning: 'An edge target or `entry_stage` is not a declared stage.' },
  'unknown-condition': { severity: 'error', meaning: 'An edge `condition` is not one of the six conditions.' },
  'unknown-transform': {
    severity: 'error',
    meaning: 'An edge `transform` is not `direct`, `clear`, `compact`/`summarize` or `custom`.',
  },
  'bad-transform-config': {
    severity: 'error',
    meaning:
      'An edge `transform_config` names an unknown or protected region, a region twice, or keys its transform does not read.',
  },
  'bad-stuck': {
    severity: 'error',
    meaning: 'A `stuck` edge without a positive threshold, or a threshold on another edge.',
  },
  'gate-region-unknown': { severity: 'error', meaning: 'A gate names a region no layout declares.' },
  'transform-region-unknown': {
    severity: 'error',
    meaning: 'A `[[transforms]]` mapping names a region the blueprint at its end does not declare.',
  },
  'gate-not-checklist': {
    severity: 'error',
    meaning: '`require_no_open_items` names a region that is not a checklist.',
  },
  'bad-gate': { severity: 'error', meaning: 'A gate has a negative or non-integer `max_attempts`, or no check key.' },
  'working-space': {
    severity: 'error',
    meaning: 'Fixed regions leave less than 8000 tokens of a window of 20000 or more.',
  },
  // Hard errors added by this project for cases without an older name
  'bad-duration': {
    severity: 'error',
    meaning:
      'A duration key of `[run]` (`ask_timeout`, `tool_worker_patience`, `provider_patience`, `fallback_after`) is not a duration such as `"30m"`, `"24h"` or `"1h30m"`.',
  },
  'bad-value': {
    severity: 'error',
    meaning: 'A key holds a value of the wrong type (a number where a string belongs, ...).',
  },
  'bad-interaction-point': {
    severity: 'error',
    meaning:
      'An interaction point nobody can answer (`multiple_choice` with fewer than two options), or whose `document_region` is not a pinned region the stage sees.',
  },
  'summarizable-not-allowed': {
    severity: 'error',
    meaning: '`summarizable = false` on a compacting region or a `strategy = "compact"` window.',
  },
  'file-tracking-region-invalid': {
    severity: 'error',
    meaning: '`[context.file_tracking] region` is not a declared hashmap.',
  },
  'bad-permission': { severity: 'error', meaning: 'A tool permission is not `allow`, `deny` or `ask`.' },
  'bad-model': {
    severity: 'error',
    meaning: 'A `[models]` entry is not a table or declares a new model without `context_window`.',
  },
  'bad-encoding': { severity: 'error', meaning: 'A model `encoding` is not one of the four tiktoken encodings.' },
  'blueprint-too-large': {
    severity: 'error',
    meaning: 'The blueprint (prompts, scripts, regions) is over 1 MiB as a run carries it, more than Temporal accepts.',
  },
  'blueprint-not-found': { severity: 'error', meaning: 'The path names no file, or a directory without `agent.toml`.' },
  'blueprint-unreadable': { severity: 'error', meaning: 'The blueprint file exists but cannot be read.' },
  'config-unreadable': { severity: 'error', meaning: 'Your config file exists but cannot be read.' },
  'blueprint-ambiguous': {
    severity: 'error',
    meaning: 'A blueprint directory holds both `agent.toml` and `agent.leviath`.',
  },
  'worker-query-unmatched': {
    severity: 'error',
    meaning: "A fan-out stage's `worker_query` is in the directory name or description of no installed agent.",
  },
  'bad-fan-out-worker': {
    severity: 'error',
    meaning: 'A fan-out stage names none of `worker_agent`, `worker_stage` and `worker_query`, or more than one.',
  },
  'worker-stage-unknown': { severity: 'error', meaning: '`worker_stage` is not a declared stage.' },
  'worker-stage-not-allowed': {
    severity: 'error',
    meaning: '`worker_stage` names a stage without `allow_as_worker = true`.',
  },
  'merge-stage-unknown': { severity: 'error', meaning: '`merge_stage` is not a declared stage.' },
  'worker-agent-unknown': {
    severity: 'error',
    meaning: '`worker_agent` or a `[agent] sub_agents` entry names no blueprint next to this one or at that path.',
  },
  'worker-agent-invalid': {
    severity: 'error',
    meaning: 'A blueprint named by `worker_agent` or `[agent] sub_agents` has validation errors of its own.',
  },
  'model-parameter-unsupported': {
    severity: 'error',
    meaning:
      "A model parameter is not one this runtime passes on, or a provider of the stage's model chain has no setting for it or its value.",
  },
  'unknown-tool': {
    severity: 'error',
    meaning: '`available_tools` names a tool that is neither built in nor a context tool.',
  },
  'bad-output-schema': {
    severity: 'error',
    meaning: 'An output `schema` is not a JSON Schema that compiles.',
  },
  'output-validator-invalid': {
    severity: 'error',
    meaning:
      'An output `validator` is missing, empty, outside the blueprint directory, does not compile, or lacks `validate(content)`.',
  },
  'stage-hook-invalid': {
    severity: 'error',
    meaning:
      'A stage hook script is missing, empty, outside the blueprint directory, does not compile, or lacks the function of its hook.',
  },
  'script-tool-missing': {
    severity: 'error',
    meaning:
      'A `tools/<name>.toml` has no `tools/<name>.rhai` beside it, or a script tool is a link out of the blueprint directory or cannot be read.',
  },
  'script-tool-syntax': {
    severity: 'error',
    meaning: 'A script tool in `tools/` does not compile.',
  },
  'script-tool-bad-schema': {
    severity: 'error',
    meaning:
      "A script tool's declaration is unusable: no `// @tool` name, a bad `// @param` line or type, a bad sibling `.toml`, or parameters that are no JSON Schema.",
  },
  'provider-script-syntax': {
    severity: 'error',
    meaning: 'A script provider of the config folder does not compile.',
  },
  'provider-script-contract': {
    severity: 'error',
    meaning: 'A script provider lacks `fn initialize(config)` or `fn inference(state, request)`.',
  },
  // docs/reference/validation.md#warnings: lints
  'provider-script-missing': {
    severity: 'warning',
    meaning:
      'A model names a provider that is no built-in one and has no script `providers/<name>.rhai` in the config folder (or it cannot be read); a run on that model fails with `unknown-provider`.',
  },
  'unknown-region-key': {
    severity: 'warning',
    meaning: "A region key that the region's kind (or strategy) does not read.",
  },
  'region-seed-not-understood': {
    severity: 'warning',
    meaning: 'A `seed` matches no seed form, so the region starts empty.',
  },
  'command-seed': { severity: 'note', meaning: 'Lists a command seed and whether the safe list pre-approves it.' },
  'tool-seed': { severity: 'note', meaning: 'Lists the tool seeds of a region, marking `each_stage` ones.' },
  'routing-without-region-read': {
    severity: 'warning',
    meaning: 'A stage routes output into a region and grants `read_file`, but not `context_read`.',
  },
  'compact-summarizes-deliverable': {
    severity: 'warning',
    meaning: 'A `compact` edge would summarise a required region the agent is building.',
  },
  'required-region-unenforceable': {
    severity: 'warning',
    meaning: 'A required region that no stage carrying it can write with `context_write`/`context_append`.',
  },
  'unbounded-percentage-budget': {
    severity: 'warning',
    meaning: 'A percent budget without `max_tokens` on a rolling region grows with the window.',
  },
  'budget-zero': {
    severity: 'warning',
    meaning: "A percent budget resolves to 0 tokens at a stage's window, so the region can hold nothing.",
  },
  'budgets-exceed-window': {
    severity: 'warning',
    meaning: "The budgets a stage sees sum to more than its model's window.",
  },
  'stage-prompt-too-large': {
    severity: 'warning',
    meaning: 'A stage prompt exceeds the budget of the region it lands in.',
  },
  'gate-region-not-visible': { severity: 'warning', meaning: 'A gate region is hidden in the stage the edge leaves.' },
  'transform-never-applies': {
    severity: 'warning',
    meaning: 'A `[[transforms]]` entry names this blueprint at neither end, or the same blueprint at both.',
  },
  'compact-history-source-never-summarised': {
    severity: 'warning',
    meaning: '`source_region` names a region that is never folded (pinned, checklist, hashmap, persistent custom).',
  },
  'unknown-model-window': {
    severity: 'warning',
    meaning: 'A stage model is not in the model table, so 8192 tokens is assumed.',
  },
  'read-paths-declared': {
    severity: 'note',
    meaning: '`[read_paths]` is declared; says how many entries your config grants.',
  },
  'read-paths-not-granted': { severity: 'warning', meaning: 'A declared read path is not granted by your config.' },
  'read-paths-grant-invalid': {
    severity: 'warning',
    meaning: 'A read-path grant in your config does not parse or compile.',
  },
  'read-paths-entry-invalid': {
    severity: 'warning',
    meaning: 'A `[read_paths]` entry does not parse (a relative regex, ...) and is ignored.',
  },
  'broad-read-path': {
    severity: 'warning',
    meaning: 'A read-path entry covers home, a filesystem root or everything.',
  },
  'dead-end-possible': {
    severity: 'warning',
    meaning: 'Every normal edge of a stage can run out of revisits and there is no `dead_end`/`error` edge.',
  },
  'cycle-without-max-revisits': {
    severity: 'warning',
    meaning: 'A cycle of stages in which no stage sets `max_revisits`.',
  },
  'unreachable-stage': { severity: 'warning', meaning: 'No path leads from the entry stage to this stage.' },
  'fan-out-key-unused': {
    severity: 'warning',
    meaning:
      'A stage that does not fan out sets a fan-out key (`worker_stage`, `max_workers`, ...), which does nothing.',
  },
  'blocking-tool-not-allowed': {
    severity: 'warning',
    meaning:
      'An autonomous stage lists a tool that waits for a person (`ask_user`, ...) without `allow_blocking_tools = true`, so it is not offered the tool.',
  },
  'interaction-points-unused': {
    severity: 'warning',
    meaning: 'A stage whose mode is not `interactive_points` declares interaction points, which never ask.',
  },
  'interaction-point-option-unknown': {
    severity: 'warning',
    meaning:
      "An interaction point's `directives`, `abort_options` or `edit_options` name a label that is not one of its answers.",
  },
  'mcp-server-not-configured': {
    severity: 'warning',
    meaning:
      '`available_connectors` names an MCP server your config does not declare, so the stage is offered none of its tools.',
  },
  'script-tool-shadowed': {
    severity: 'warning',
    meaning:
      'A script tool takes the name of a tool Leviath answers itself, of an MCP tool or of an earlier script; that tool wins and the script never runs.',
  },
  'unsupported-feature': {
    severity: 'warning',
    meaning: 'A key of the original Leviath that is not built here; the message says what will not happen.',
  },
  'stage-instructions-volatility-ignored': {
    severity: 'warning',
    meaning: '`volatility` on `stage_instructions` is ignored; that region always renders as rewritten.',
  },
  'seed-repeated-in-stage': {
    severity: 'note',
    meaning: 'A stage layout repeats the global `seed` word for word; the repeat changes nothing.',
  },
  'seed-caller-input': {
    severity: 'note',
    meaning: 'A bare-string `seed` names a caller input (`--input name=value`, `"task"` for `--task`).',
  },
  'seed-caller-input-typo': {
    severity: 'warning',
    meaning: 'A bare-string `seed` is one edit from a seed form word, so it probably means that form.',
  },
  'rewritten-region-early': {
    severity: 'note',
    meaning: 'A region re-rendered on every change (a checklist, stable scratch) sorts before steadier regions.',
  },
  'steady-region-in-tail': {
    severity: 'note',
    meaning:
      'A region that is not `rewritten` has `placement = "tail"`, so it is re-sent outside the prompt cache every turn.',
  },
  'dynamic-tool-near-name': {
    severity: 'note',
    meaning:
      'With `[agent] dynamic_tools`, a stage lists a name no tool answers that is close to one that does: a typo is offered only once the run writes a script of that name.',
  },
  'per-item-conversation': {
    severity: 'note',
    meaning:
      'The conversation drops one turn per write once full, so the message prefix changes every turn and no region writes in place.',
  },
} as const satisfies Record<string, CodeInfo>;

export type Code = keyof typeof CODES;

export function severityOf(code: Code): Severity {
  return CODES[code].severity;
}
