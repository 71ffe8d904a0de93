/**
 * Tool names shared by the blueprint checker, the router and the
 * dispatcher. Aliases are resolved on both sides of every comparison, so
 * a blueprint that writes `bash` covers the `shell` the model calls.
 */

export const TOOL_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  bash: 'shell',
  // The original Leviath's free-text question (docs/reference/operators.md#ask_user).
  ask_user_text: 'ask_user',
});

/** The tool that puts a question to a person; answered by the `answer` update, in the workflow. */
export const ASK_USER = 'ask_user';

/**
 * The tools that wait for a person (docs/reference/interaction.md#the-asking-tools):
 * the workflow answers each with the `answer` update, in the form its tool asks for.
 */
export const PERSON_TOOLS = [
  'ask_user',
  'ask_user_choice',
  'ask_user_confirm',
  'present_for_review',
  'edit_document',
] as const;
export type PersonTool = (typeof PERSON_TOOLS)[number];

export function isPersonTool(name: string): name is PersonTool {
  return (PERSON_TOOLS as readonly string[]).includes(canonicalTool(name));
}

/** Built-in tools that touch the outside world; they run as activities. */
export const BUILTIN_TOOLS = [
  'read_file',
  'list_dir',
  'glob',
  'grep',
  'write_file',
  'edit_file',
  'shell',
  'current_time',
] as const;

/**
 * The original Leviath's environment tools (docs/tools.md#environment). They
 * run as activities like the built-ins above, but only a stage that lists
 * them is offered them, as in the original: a stage without available_tools
 * keeps the set it always had.
 */
export const ENV_TOOLS = ['system_info', 'locale_info', 'runtime_info'] as const;

/**
 * Tools that reach the network (docs/reference/web.md). They run as
 * activities like the built-ins, but no stage gets them unless it lists them.
 */
export const WEB_TOOLS = ['web_fetch', 'web_search'] as const;

/** Tools answered inside the workflow by the pure engine (docs/reference/context-tools.md). */
export const CONTEXT_TOOLS = [
  'context_append',
  'context_write',
  'context_read',
  'context_list',
  'context_delete',
  'todo_add',
  'todo_done',
  'todo_note',
] as const;

/**
 * Tools that start and manage sub-agents: the workflow answers them with
 * child runs (docs/reference/sub-agents.md). No stage gets them unless it lists them
 * (a fan-out stage is given `fan_out`).
 */
export const AGENT_TOOLS = [
  'fan_out',
  'spawn_agent',
  'check_agent',
  'wait_for_agent',
  'send_to_agent',
  'kill_agent',
] as const;
export type AgentTool = (typeof AGENT_TOOLS)[number];

export const FAN_OUT = 'fan_out';

export function isAgentTool(name: string): name is AgentTool {
  return (AGENT_TOOLS as readonly string[]).includes(name);
}

/** Tools whose success counts as a modification for `require_modifications`. */
export const MODIFYING_TOOLS: readonly string[] = ['write_file', 'edit_file'];

export function canonicalTool(name: string): string {
  return TOOL_ALIASES[name] ?? name;
}

export function isContextTool(name: string): boolean {
  return name.startsWith('context_') || name.startsWith('todo_');
}

/** The host functions of a script tool that reach outside it (docs/reference/script-tools.md#host-functions). */
export const SCRIPT_IO_FUNCTIONS = ['http_get', 'http_post', 'shell', 'read_file', 'write_file', 'env_var'] as const;
export type ScriptIoFunction = (typeof SCRIPT_IO_FUNCTIONS)[number];

/** `[tool_script_permissions]` of the user config: per function, `allow`, `deny` or `inherit` (the default). */
export const SCRIPT_PERMISSIONS = ['allow', 'deny', 'inherit'] as const;
export type ScriptPermission = (typeof SCRIPT_PERMISSIONS)[number];
export type ScriptPermissions = Partial<Record<ScriptIoFunction, ScriptPermission>>;
