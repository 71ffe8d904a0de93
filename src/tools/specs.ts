/** Tool definitions as the model sees them: name, description, JSON schema. */
import { z } from 'zod';
import { AGENT_TOOL_SCHEMAS } from './agent-schemas.js';
import { ASK_USER_SCHEMA, CONTEXT_TOOL_SCHEMAS, type JsonSchemaSpec } from './context-schemas.js';
import { canonicalTool } from './names.js';
import { BUILTIN_TOOL_TABLE } from './registry.js';

export type { JsonSchemaSpec as ToolSpec } from './context-schemas.js';

function builtinSpec(name: string): JsonSchemaSpec | undefined {
  const tool = BUILTIN_TOOL_TABLE.get(name);
  if (!tool) return undefined;
  const parameters = z.toJSONSchema(tool.schema, { io: 'input' }) as Record<string, unknown>;
  delete parameters.$schema;
  return { name: tool.name, description: tool.description, parameters };
}

/**
 * Specs for the named tools, built-in, context and agent tools alike, in the order given.
 * Aliases are resolved (`bash` gives `shell`), repeats are dropped, and names
 * that are no tool are left out.
 */
export function toolSpecs(names: string[]): JsonSchemaSpec[] {
  const seen = new Set<string>();
  const specs: JsonSchemaSpec[] = [];
  for (const name of names) {
    const canonical = canonicalTool(name);
    if (seen.has(canonical)) continue;
    seen.add(canonical);
    const spec =
      builtinSpec(canonical) ??
      CONTEXT_TOOL_SCHEMAS.find((s) => s.name === canonical) ??
      (canonical === ASK_USER_SCHEMA.name ? ASK_USER_SCHEMA : undefined) ??
      AGENT_TOOL_SCHEMAS.find((s) => s.name === canonical);
    if (spec) specs.push(spec);
  }
  return specs;
}
