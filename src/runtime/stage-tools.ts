/**
 * Which tools a stage offers the model: its `available_tools`, or every
 * built-in plus the context tools. Aliases are offered under the name the
 * blueprint wrote.
 */
import type { Blueprint } from '../blueprint/types.js';
import { BUILTIN_TOOLS, CONTEXT_TOOLS } from '../tools/names.js';

export function stageTools(bp: Blueprint, stage: string): string[] {
  const def = bp.stages.find((s) => s.name === stage);
  return def?.availableTools ? [...def.availableTools] : [...BUILTIN_TOOLS, ...CONTEXT_TOOLS];
}
