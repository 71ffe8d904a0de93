/**
 * What an MCP server may put in front of the model on every request: a tool's
 * description and input schema are capped when discovery lists them, so a
 * server cannot fill the window with its tool list (docs/reference/mcp.md#discovery).
 * A longer description is cut; a larger schema loses its descriptions, titles
 * and examples first, and is replaced by an open object schema when that is
 * not enough. Either is said in the text the model reads, with `mcp-tool-trimmed`.
 */
import { cutUnits } from '../truncate.js';
import type { ListedTool } from './server-connection.js';

export const MAX_MCP_DESCRIPTION_CHARS = 4_000;
export const MAX_MCP_SCHEMA_CHARS = 16_000;

/** Schema keywords that only explain: dropped first from a schema over the cap. */
const EXPLAINING = new Set(['description', 'title', 'examples', 'example', '$comment']);

const chars = (n: number) => n.toLocaleString('en-US');

/** `schema` without its explaining keywords; a `properties` map keeps every property, whatever its name. */
function withoutExplanations(schema: unknown, inProperties = false): unknown {
  if (Array.isArray(schema)) return schema.map((s) => withoutExplanations(s));
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (!inProperties && EXPLAINING.has(key)) continue;
    out[key] = withoutExplanations(value, !inProperties && (key === 'properties' || key === 'patternProperties'));
  }
  return out;
}

export interface CappedTool {
  tool: ListedTool;
  /** What was trimmed, one line each, for `lev mcp list` and `lev mcp test`. */
  trimmed: string[];
}

/** The tool as the model may see it: description and input schema within their caps. */
export function capListedTool(listed: ListedTool): CappedTool {
  const trimmed: string[] = [];
  let { description, inputSchema } = listed;
  if (description.length > MAX_MCP_DESCRIPTION_CHARS) {
    const note = `the description was cut at ${chars(MAX_MCP_DESCRIPTION_CHARS)} of ${chars(description.length)} characters`;
    description = `${cutUnits(description, MAX_MCP_DESCRIPTION_CHARS)}\n[mcp-tool-trimmed] ${note}.`;
    trimmed.push(note);
  }
  const size = JSON.stringify(inputSchema).length;
  if (size > MAX_MCP_SCHEMA_CHARS) {
    const lean = withoutExplanations(inputSchema) as Record<string, unknown>;
    if (JSON.stringify(lean).length <= MAX_MCP_SCHEMA_CHARS) {
      inputSchema = lean;
      trimmed.push(`the input schema (${chars(size)} characters) lost its descriptions, titles and examples`);
    } else {
      const note = `the input schema (${chars(size)} characters) is over ${chars(MAX_MCP_SCHEMA_CHARS)}`;
      inputSchema = {
        type: 'object',
        additionalProperties: true,
        description: `[mcp-tool-trimmed] ${note} and is not shown; pass the arguments the tool's description names.`,
      };
      trimmed.push(`${note} and was replaced by an open object`);
    }
  }
  return { tool: { ...listed, description, inputSchema }, trimmed };
}
