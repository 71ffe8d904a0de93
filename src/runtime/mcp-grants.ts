/**
 * Which of a stage's grants may name MCP tools, and so need discovery when
 * the stage is visited (docs/reference/mcp.md#discovery). Pure: the workflow
 * asks it before it starts the discovery activity.
 */

import { SUBMIT_OUTPUT } from '../outputs/spec.js';
import type { Blueprint } from '../shapes/frozen-blueprint.js';
import {
  AGENT_TOOLS,
  ASK_USER,
  BUILTIN_TOOLS,
  CONTEXT_TOOLS,
  canonicalTool,
  ENV_TOOLS,
  WEB_TOOLS,
} from '../tools/builtin-names.js';

/** Every tool name the runtime answers itself; an MCP tool never takes one of these names. */
export const RESERVED_TOOL_NAMES: readonly string[] = [
  ...BUILTIN_TOOLS,
  ...WEB_TOOLS,
  ...ENV_TOOLS,
  ...CONTEXT_TOOLS,
  ...AGENT_TOOLS,
  ASK_USER,
  SUBMIT_OUTPUT,
];

/**
 * The stage's `available_tools` that are no tool of the runtime nor a script
 * tool of the blueprint (docs/reference/script-tools.md), and its `available_connectors`.
 */
export function mcpGrants(bp: Blueprint, stage: string): { tools: string[]; connectors: string[] } {
  const def = bp.stages.find((s) => s.name === stage);
  const scripts = (bp.scriptTools ?? []).map((t) => t.name);
  const tools = (def?.availableTools ?? []).filter(
    (t) => !RESERVED_TOOL_NAMES.includes(canonicalTool(t)) && !scripts.includes(t),
  );
  return { tools, connectors: [...(def?.availableConnectors ?? [])] };
}

/** Whether a visit of the stage asks the MCP servers for their tools first. */
export function needsDiscovery(bp: Blueprint, stage: string): boolean {
  const grants = mcpGrants(bp, stage);
  return grants.tools.length > 0 || grants.connectors.length > 0;
}
