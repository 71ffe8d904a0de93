/**
 * What a tool call is and what it may do: the one classification of a call
 * that the stage visit dispatches on (docs/reference/operators.md#approve-and-deny,
 * docs/reference/sub-agents.md#what-a-worker-inherits), the permission
 * rules it needs, and how a call reads to people (its subject, its
 * question). Pure: imported by workflow code; unit-tested in
 * `test/runtime/calls.test.ts`.
 */
import { formatCoded } from '../errors.js';
import type { ToolCall } from '../shapes/content.js';
import type { Blueprint } from '../shapes/frozen-blueprint.js';
import { canonicalTool, isAgentTool, isContextTool, isPersonTool } from '../tools/builtin-names.js';
import { isGranted, notGrantedResult } from '../tools/grants.js';
import { decidePermission, mergedPermissions, type PermissionLayer, strictestDecision } from '../tools/permissions.js';
import type { SafeJudgement } from '../tools/safe-commands.js';

export { ASK_USER, canonicalTool, FAN_OUT, isPersonTool } from '../tools/builtin-names.js';

/**
 * What a call of a reply is, decided once per call:
 * - `refused`: the stage was not given the tool; the call is not run;
 * - `question`: a tool that waits for a person (`ask_user`, `ask_user_choice`, ...), answered by
 *   their `answer` (or why nobody did; docs/reference/interaction.md#the-asking-tools);
 * - `context`: a `context_*` or `todo_*` tool, run by the engine inside the workflow;
 * - `agent`: `spawn_agent`, `fan_out` and the agent-id tools;
 * - `builtin`: a tool the tool activity runs on the run's tool queue: a
 *   built-in, an MCP tool, or a script tool of the blueprint's `tools/`
 *   (docs/reference/script-tools.md#how-a-call-runs).
 *
 * `approval` says an agent or built-in call must wait for a person first
 * (`needsApproval`): only ever in an attended run.
 */
export type CallClass =
  | { kind: 'refused' }
  | { kind: 'question' }
  | { kind: 'context' }
  | { kind: 'agent'; approval: boolean }
  | { kind: 'builtin'; approval: boolean };

export function classifyCall(
  bp: Blueprint,
  stage: string,
  call: Pick<ToolCall, 'name' | 'arguments'>,
  unattended: boolean,
  /** The MCP tools the visit's discovery gave the stage (docs/reference/mcp.md#tool-names-and-grants). */
  mcp: readonly string[] = [],
  /** How the safe list judges a shell command (`SAFE_COMMAND_ARGUMENTS`). */
  judgement: SafeJudgement = 'arguments',
): CallClass {
  if (!isGranted(bp, stage, call.name, mcp)) return { kind: 'refused' };
  if (isPersonTool(call.name)) return { kind: 'question' };
  if (isContextTool(call.name)) return { kind: 'context' };
  const approval = needsApproval(bp, stage, call, unattended, judgement);
  return isAgentTool(call.name) ? { kind: 'agent', approval } : { kind: 'builtin', approval };
}

/**
 * Whether a question of `tool` waits for a person: always in an attended
 * run; in one nobody attends only when the stage names the tool in
 * `required_tools` (docs/reference/interaction.md#runs-nobody-attends).
 */
export function questionWaits(bp: Blueprint, stage: string, tool: string, unattended: boolean): boolean {
  if (!unattended) return true;
  const required = bp.stages.find((s) => s.name === stage)?.requiredTools ?? [];
  return required.includes(canonicalTool(tool));
}

/** The tool result of a call the stage was not given (`tool-not-granted`). */
export function notGrantedText(bp: Blueprint, stage: string, name: string, mcp: readonly string[] = []): string {
  return notGrantedResult(bp, stage, name, mcp);
}

/**
 * Whether a built-in call must wait for a person's approval: an `ask`
 * permission the safe list does not cover, in an attended run. Unattended
 * runs leave the refusal to the tool activity, as before.
 */
export function needsApproval(
  bp: Blueprint,
  stage: string,
  call: Pick<ToolCall, 'name' | 'arguments'>,
  unattended: boolean,
  judgement: SafeJudgement = 'arguments',
): boolean {
  if (unattended) return false;
  const decision = decidePermission(
    canonicalTool(call.name),
    call.arguments,
    mergedPermissions(bp, stage),
    bp.safeCommands.shell,
    false,
    judgement,
  );
  return decision.mode === 'ask';
}

/**
 * The permission levels an agent-tool call is checked against: the stage's
 * own, then every ancestor's. A person's approval stands for the stage's own
 * `ask`; the ancestors' permissions still apply.
 */
export function agentPermissionLayers(
  bp: Blueprint,
  stage: string,
  ceilings: readonly PermissionLayer[] | undefined,
  approved: boolean,
): PermissionLayer[] {
  const own = { permissions: mergedPermissions(bp, stage), safeCommands: bp.safeCommands.shell };
  return [...(approved ? [] : [own]), ...(ceilings ?? [])];
}

/**
 * Why an agent-tool call may not go ahead, as the coded tool result the
 * model reads; undefined when the strictest of its permission levels allows it.
 */
export function agentCallRefusal(
  bp: Blueprint,
  stage: string,
  call: Pick<ToolCall, 'name' | 'arguments'>,
  ceilings: readonly PermissionLayer[] | undefined,
  approved: boolean,
  unattended: boolean,
): string | undefined {
  const layers = agentPermissionLayers(bp, stage, ceilings, approved);
  const decision = strictestDecision(call.name, call.arguments, layers, unattended);
  return decision.mode === 'allow' ? undefined : formatCoded(decision.code, decision.message);
}

/** The main argument of a call, as the details and the questions show it. */
export function callSubject(call: Pick<ToolCall, 'name' | 'arguments'>): string {
  const args = call.arguments;
  const subject = args.path ?? args.command ?? args.pattern ?? args.question ?? args.prompt ?? '';
  const text = typeof subject === 'string' ? subject : JSON.stringify(subject);
  const line = text.split('\n')[0] ?? '';
  return `${call.name}${line ? ` ${line.length > 120 ? `${line.slice(0, 119)}…` : line}` : ''}`;
}

/** The question of an `ask_user` call (`question`, or the original's `prompt`); undefined when it has none. */
export function askUserQuestion(args: Record<string, unknown>): string | undefined {
  const q = args.question ?? args.prompt;
  return typeof q === 'string' && q.trim() !== '' ? q : undefined;
}
