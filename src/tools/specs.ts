/** Tool definitions as the model sees them: name, description, JSON schema. */
import { z } from 'zod';
import type { ScriptToolDef } from '../shapes/frozen-blueprint.js';
import { AGENT_TOOL_SCHEMAS } from './agent-schemas.js';
import { canonicalTool } from './builtin-names.js';
import { CONTEXT_TOOL_SCHEMAS, type JsonSchemaSpec, PERSON_TOOL_SCHEMAS } from './context-schemas.js';
import { BUILTIN_TOOL_TABLE } from './registry.js';

export type { JsonSchemaSpec as ToolSpec } from './context-schemas.js';

/**
 * Each built-in tool's spec, built once: converting its schema to JSON Schema
 * took about half the CPU of a scripted inference (bench/fanout.ts profile),
 * and every inference asks for its stage's specs. The specs are shared and
 * read-only, as the context tools' constant ones are.
 */
const builtinSpecs = new Map<string, JsonSchemaSpec | undefined>();

function builtinSpec(name: string): JsonSchemaSpec | undefined {
  if (builtinSpecs.has(name)) return builtinSpecs.get(name);
  const tool = BUILTIN_TOOL_TABLE.get(name);
  let spec: JsonSchemaSpec | undefined;
  if (tool) {
    const parameters = z.toJSONSchema(tool.schema, { io: 'input' }) as Record<string, unknown>;
    delete parameters.$schema;
    spec = { name: tool.name, description: tool.description, parameters };
  }
  builtinSpecs.set(name, spec);
  return spec;
}

/**
 * Specs for the named tools, built-in, context, agent and the blueprint's
 * script tools alike, in the order given. Aliases are resolved (`bash` gives
 * `shell`), repeats are dropped, and names that are no tool are left out.
 */
export function toolSpecs(names: string[], scripts: readonly ScriptToolDef[] = []): JsonSchemaSpec[] {
  const seen = new Set<string>();
  const specs: JsonSchemaSpec[] = [];
  for (const name of names) {
    const canonical = canonicalTool(name);
    if (seen.has(canonical)) continue;
    seen.add(canonical);
    const spec =
      builtinSpec(canonical) ??
      CONTEXT_TOOL_SCHEMAS.find((s) => s.name === canonical) ??
      PERSON_TOOL_SCHEMAS.find((s) => s.name === canonical) ??
      AGENT_TOOL_SCHEMAS.find((s) => s.name === canonical) ??
      scriptSpec(scripts.find((s) => s.name === canonical));
    if (spec) specs.push(spec);
  }
  return specs;
}

/** A script tool as the model sees it: its declared description and argument schema (docs/reference/script-tools.md). */
function scriptSpec(def: ScriptToolDef | undefined): JsonSchemaSpec | undefined {
  return def && { name: def.name, description: def.description, parameters: def.parameters };
}
