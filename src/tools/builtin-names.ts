/**
 * Tool names shared by the blueprint checker, the router and the
 * dispatcher, read from the catalogue (`src/shapes/tool-catalogue.ts`).
 * Aliases are resolved on both sides of every comparison, so a blueprint
 * that writes `bash` covers the `shell` the model calls.
 */
import { canonicalTool, type ToolOf, toolFacts, toolsOf, toolsWhere } from '../shapes/tool-catalogue.js';

export { canonicalTool, TOOL_ALIASES } from '../shapes/tool-catalogue.js';

/** The tool that puts a question to a person; answered by the `answer` update, in the workflow. */
export const ASK_USER = 'ask_user';

/**
 * The tools that wait for a person (docs/reference/interaction.md#the-asking-tools):
 * the workflow answers each with the `answer` update, in the form its tool asks for.
 */
export const PERSON_TOOLS = toolsOf('person');
export type PersonTool = ToolOf<'person'>;

export function isPersonTool(name: string): name is PersonTool {
  return toolFacts(canonicalTool(name))?.family === 'person';
}

/** Built-in tools that touch the outside world; they run as activities. */
export const BUILTIN_TOOLS = toolsOf('builtin');

/**
 * The original Leviath's environment tools (docs/tools.md#environment). They
 * run as activities like the built-ins above, but only a stage that lists
 * them is offered them, as in the original: a stage without available_tools
 * keeps the set it always had.
 */
export const ENV_TOOLS = toolsOf('env');

/**
 * Tools that reach the network (docs/reference/web.md). They run as
 * activities like the built-ins, but no stage gets them unless it lists them.
 */
export const WEB_TOOLS = toolsOf('web');

/** Tools answered inside the workflow by the pure engine (docs/reference/context-tools.md). */
export const CONTEXT_TOOLS = toolsOf('context');

/**
 * Tools that start and manage sub-agents: the workflow answers them with
 * child runs (docs/reference/sub-agents.md). No stage gets them unless it lists them
 * (a fan-out stage is given `fan_out`).
 */
export const AGENT_TOOLS = toolsOf('agent');
export type AgentTool = ToolOf<'agent'>;

export const FAN_OUT = 'fan_out';

export function isAgentTool(name: string): name is AgentTool {
  return toolFacts(name)?.family === 'agent';
}

/** Tools whose success counts as a modification for `require_modifications`. */
export const MODIFYING_TOOLS: readonly string[] = toolsWhere((t) => t.modifiesFiles);

export function isContextTool(name: string): boolean {
  return toolFacts(name)?.family === 'context';
}

/** The host functions of a script tool that reach outside it (docs/reference/script-tools.md#host-functions). */
export const SCRIPT_IO_FUNCTIONS = ['http_get', 'http_post', 'shell', 'read_file', 'write_file', 'env_var'] as const;
export type ScriptIoFunction = (typeof SCRIPT_IO_FUNCTIONS)[number];

/** `[tool_script_permissions]` of the user config: per function, `allow`, `deny` or `inherit` (the default). */
export const SCRIPT_PERMISSIONS = ['allow', 'deny', 'inherit'] as const;
export type ScriptPermission = (typeof SCRIPT_PERMISSIONS)[number];
export type ScriptPermissions = Partial<Record<ScriptIoFunction, ScriptPermission>>;
