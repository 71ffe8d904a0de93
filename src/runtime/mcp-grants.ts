/**
 * Which of a stage's grants may name MCP tools, and so need discovery when
 * the stage is visited (docs/reference/mcp.md#discovery). Pure: the workflow
 * asks it before it starts the discovery activity.
 */

import type { Blueprint } from '../shapes/frozen-blueprint.js';
import { RUNTIME_TOOLS, toolOrigin } from '../shapes/tool-catalogue.js';
import { ASK_USER, canonicalTool, isPersonTool } from '../tools/builtin-names.js';

/** Every tool name the runtime answers itself; an MCP tool never takes one of these names. */
export const RESERVED_TOOL_NAMES: readonly string[] = RUNTIME_TOOLS;

/**
 * Which rule tells an MCP grant: `catalogue`, every name the runtime does not
 * answer itself; `before-asking-fix`, the rule of visits recorded before
 * `ASKING_TOOLS_NO_MCP_DISCOVERY`, which also took the asking tools other than
 * `ask_user` (`ask_user_choice`, `present_for_review`, ...) for MCP tools, so
 * those visits replay the discovery they ran.
 */
export type GrantRule = 'catalogue' | 'before-asking-fix';

/**
 * The stage's `available_tools` that are no tool of the runtime, no script
 * tool of the blueprint and no script the run may write (docs/reference/script-tools.md),
 * and its `available_connectors`.
 */
export function mcpGrants(
  bp: Blueprint,
  stage: string,
  rule: GrantRule = 'catalogue',
): { tools: string[]; connectors: string[] } {
  const def = bp.stages.find((s) => s.name === stage);
  const scripts = [...(bp.scriptTools ?? []).map((t) => t.name), ...(def?.dynamicTools ?? [])];
  const tools = (def?.availableTools ?? []).filter(
    (t) =>
      toolOrigin(t, scripts) === 'mcp' ||
      (rule === 'before-asking-fix' && isPersonTool(t) && canonicalTool(t) !== ASK_USER),
  );
  return { tools, connectors: [...(def?.availableConnectors ?? [])] };
}

/** Whether a visit of the stage asks the MCP servers for their tools first. */
export function needsDiscovery(bp: Blueprint, stage: string, rule: GrantRule = 'catalogue'): boolean {
  const grants = mcpGrants(bp, stage, rule);
  return grants.tools.length > 0 || grants.connectors.length > 0;
}

/**
 * Whether the two rules decide discovery differently for the stage (one that
 * lists asking tools and no MCP grant): only a visit of such a stage asks
 * `ASKING_TOOLS_NO_MCP_DISCOVERY`, so every other history stays as it was.
 */
export function discoveryRulesDiffer(bp: Blueprint, stage: string): boolean {
  return needsDiscovery(bp, stage, 'before-asking-fix') !== needsDiscovery(bp, stage, 'catalogue');
}

/** The rule a visit reads its grants by: `ASKING_TOOLS_NO_MCP_DISCOVERY` asked and taken, or not (`VisitPatches.askingToolsNotMcp`). */
export function grantRule(askingToolsNotMcp: boolean | undefined): GrantRule {
  return askingToolsNotMcp ? 'catalogue' : 'before-asking-fix';
}

/** Whether a fan-out worker running this blueprint's visits inside it asks `ASKING_TOOLS_NO_MCP_DISCOVERY` when it starts. */
export function anyDiscoveryRulesDiffer(bp: Blueprint): boolean {
  return bp.stages.some((s) => discoveryRulesDiffer(bp, s.name));
}
