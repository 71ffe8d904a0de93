/**
 * Every tool the runtime answers itself, each with its own facts: one table
 * that the blueprint checker, the grants, the engine, the dispatcher, the MCP
 * discovery and the metrics read, so a list of "all tools" is never written
 * twice (docs/tools.md). It sits on the ground floor because all of them
 * import it. Tools not in it come from the blueprint's `tools/` scripts or an
 * MCP server (`toolOrigin`).
 */

/**
 * The family a tool belongs to, which decides how a call of it is answered:
 * - `builtin`: touches the machine (files, shell, clock);
 * - `env`: describes the machine (system, locale, runtime);
 * - `web`: reaches the network (docs/reference/web.md);
 * - `context`: the engine's own `context_*` and `todo_*` tools (docs/reference/context-tools.md);
 * - `output`: `submit_output`, the answer of an output stage;
 * - `person`: waits for a person (docs/reference/interaction.md#the-asking-tools);
 * - `agent`: starts and manages sub-agents (docs/reference/sub-agents.md).
 */
export type ToolFamily = 'builtin' | 'env' | 'web' | 'context' | 'output' | 'person' | 'agent';

export interface ToolFacts {
  family: ToolFamily;
  /**
   * How a stage gets it: `default` tools are every stage's that sets no
   * `available_tools`; `listed` ones only a stage that lists them (or, for
   * `submit_output` and `fan_out`, whose `require_output` or `mode = "fan_out"` adds them).
   */
  grant: 'default' | 'listed';
  /** Who answers a call: the workflow itself, or the tool activity on the run's tool queue (a tool worker). */
  answeredBy: 'workflow' | 'tool-worker';
  /** Its success counts as a modification for `require_modifications` and a gate's `tools`. */
  modifiesFiles: boolean;
  /** Its `path` argument names a file or folder of the workdir (docs/reference/routing.md#path-hints). */
  takesPath: boolean;
  /** Other names a blueprint may write for it; the model calls it by its own name. */
  aliases?: readonly string[];
}

/** A tool of the machine: every stage's by default, run by a tool worker. */
const machine = (extra: Partial<Pick<ToolFacts, 'modifiesFiles' | 'takesPath' | 'aliases'>> = {}) => ({
  family: 'builtin' as const,
  grant: 'default' as const,
  answeredBy: 'tool-worker' as const,
  modifiesFiles: false,
  takesPath: false,
  ...extra,
});
/** A tool only a stage that lists it gets; `F` keeps its family's name in the table's type (`ToolOf`). */
const listed = <F extends ToolFamily>(family: F, answeredBy: ToolFacts['answeredBy']) => ({
  family,
  grant: 'listed' as const,
  answeredBy,
  modifiesFiles: false,
  takesPath: false,
});
const context = { ...listed('context', 'workflow'), grant: 'default' as const };

/** The table, in the order a stage's default grant and the checker's list of tools show them. */
export const TOOL_CATALOGUE = {
  read_file: machine({ takesPath: true }),
  list_dir: machine({ takesPath: true }),
  glob: machine(),
  grep: machine(),
  write_file: machine({ takesPath: true, modifiesFiles: true }),
  edit_file: machine({ takesPath: true, modifiesFiles: true }),
  shell: machine({ aliases: ['bash'] }),
  current_time: machine(),
  system_info: listed('env', 'tool-worker'),
  locale_info: listed('env', 'tool-worker'),
  runtime_info: listed('env', 'tool-worker'),
  web_fetch: listed('web', 'tool-worker'),
  web_search: listed('web', 'tool-worker'),
  context_append: context,
  context_write: context,
  context_read: context,
  context_list: context,
  context_delete: context,
  todo_add: context,
  todo_done: context,
  todo_note: context,
  submit_output: listed('output', 'tool-worker'),
  // The original Leviath's free-text question is `ask_user_text` (docs/reference/operators.md#ask_user).
  ask_user: { ...listed('person', 'workflow'), aliases: ['ask_user_text'] },
  ask_user_choice: listed('person', 'workflow'),
  ask_user_confirm: listed('person', 'workflow'),
  present_for_review: listed('person', 'workflow'),
  edit_document: listed('person', 'workflow'),
  fan_out: listed('agent', 'workflow'),
  spawn_agent: listed('agent', 'workflow'),
  check_agent: listed('agent', 'workflow'),
  wait_for_agent: listed('agent', 'workflow'),
  send_to_agent: listed('agent', 'workflow'),
  kill_agent: listed('agent', 'workflow'),
} as const satisfies Record<string, ToolFacts>;

export type RuntimeTool = keyof typeof TOOL_CATALOGUE;

/** The tools of one family, as a type: `ToolOf<'person'>` is `'ask_user' | 'ask_user_choice' | ...`. */
export type ToolOf<F extends ToolFamily> = {
  [K in RuntimeTool]: (typeof TOOL_CATALOGUE)[K]['family'] extends F ? K : never;
}[RuntimeTool];

/** Every tool the runtime answers itself, by its own name, in the table's order. */
export const RUNTIME_TOOLS = Object.keys(TOOL_CATALOGUE) as readonly RuntimeTool[];

/** The facts of a tool by its own name (not an alias); undefined for a script or MCP tool. */
export function toolFacts(name: string): ToolFacts | undefined {
  return Object.hasOwn(TOOL_CATALOGUE, name) ? TOOL_CATALOGUE[name as RuntimeTool] : undefined;
}

/** The runtime tools whose facts pass `test`, in the table's order. */
export function toolsWhere(test: (facts: ToolFacts) => boolean): readonly RuntimeTool[] {
  return RUNTIME_TOOLS.filter((name) => test(TOOL_CATALOGUE[name]));
}

/** The tools of one family, in the table's order. */
export function toolsOf<F extends ToolFamily>(family: F): readonly ToolOf<F>[] {
  return toolsWhere((t) => t.family === family) as readonly ToolOf<F>[];
}

/** What a stage without `available_tools` is given: the `default` tools. */
export const DEFAULT_GRANT: readonly RuntimeTool[] = toolsWhere((t) => t.grant === 'default');

/** Alias → the tool's own name (`bash` → `shell`). */
export const TOOL_ALIASES: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries(
    RUNTIME_TOOLS.flatMap((name) => ((TOOL_CATALOGUE[name] as ToolFacts).aliases ?? []).map((a) => [a, name])),
  ),
);

/** A tool's own name, whether `name` is it or one of its aliases. */
export function canonicalTool(name: string): string {
  return TOOL_ALIASES[name] ?? name;
}

/**
 * Where a tool a stage names comes from: the runtime (the table above), the
 * blueprint's `tools/` scripts, or else an MCP server (docs/reference/mcp.md#tool-names-and-grants).
 */
export function toolOrigin(name: string, scripts: readonly string[]): 'runtime' | 'script' | 'mcp' {
  if (toolFacts(canonicalTool(name))) return 'runtime';
  return scripts.includes(name) ? 'script' : 'mcp';
}
