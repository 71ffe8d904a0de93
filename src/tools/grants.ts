/**
 * Which tools a stage was given, and the refusal for a call outside them.
 * The workflow checks every call before it runs anything, and the tool
 * activity checks again, so a model cannot reach a tool its stage was not
 * given by naming it anyway. Pure: imported by workflow code.
 */

import { formatCoded } from '../errors.js';
import type { Blueprint } from '../shapes/frozen-blueprint.js';
import { DEFAULT_GRANT } from '../shapes/tool-catalogue.js';
import { canonicalTool } from './builtin-names.js';

/** The stage's `available_tools`, or every built-in plus the context tools when it sets none. */
export function stageTools(bp: Blueprint, stage: string): string[] {
  const def = bp.stages.find((s) => s.name === stage);
  return def?.availableTools ? [...def.availableTools] : [...DEFAULT_GRANT];
}

/**
 * Whether `name` (or the tool it is an alias of) was given to the stage;
 * `extra` are the MCP tools discovery resolved for it (docs/reference/mcp.md#tool-names-and-grants).
 */
export function isGranted(bp: Blueprint, stage: string, name: string, extra: readonly string[] = []): boolean {
  const wanted = canonicalTool(name);
  return extra.includes(wanted) || stageTools(bp, stage).some((t) => canonicalTool(t) === wanted);
}

/** The error result a model reads when it calls a tool its stage was not given. */
export function notGrantedResult(bp: Blueprint, stage: string, name: string, extra: readonly string[] = []): string {
  const tools = [...new Set([...stageTools(bp, stage), ...extra])];
  return formatCoded(
    'tool-not-granted',
    `stage "${stage}" was not given the tool \`${name}\`, so the call was not run. Use one of: ${tools.join(', ')}.`,
  );
}
