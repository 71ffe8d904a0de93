/**
 * How MCP tools are named to the model and granted to a stage
 * (docs/reference/mcp.md#tool-names-and-grants). Every tool is advertised as
 * `<server>__<tool>`, sanitised to what providers accept, whatever else is
 * configured: a name never depends on the order of the servers in the config.
 * Pure: the workflow imports it to check grants.
 */

/** Providers accept tool names of `[A-Za-z0-9_-]{1,64}`. */
export const MAX_TOOL_NAME = 64;

/** Every character outside `[A-Za-z0-9_-]` becomes `_`, cut to 64; a name of nothing left is `tool`. */
export function sanitizeToolName(name: string): string {
  const out = name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, MAX_TOOL_NAME);
  return out === '' ? 'tool' : out;
}

/** One tool a server offers, under the name the model calls it by. */
export interface McpToolEntry {
  /** `<server>__<tool>` sanitised, made unique: what the model calls. */
  advertised: string;
  server: string;
  /** The name the server knows it by (what `tools/call` sends). */
  tool: string;
  description: string;
  /** The tool's input JSON schema, as the server gave it unless it was over its cap. */
  parameters: Record<string, unknown>;
  /** What discovery trimmed of an outsized description or schema (`src/mcp/tool-caps.ts`). */
  trimmed?: string[];
}

/** What discovery found: every tool of every server that answered, and the servers that did not. */
export interface ToolCatalog {
  tools: McpToolEntry[];
  unreachable: { server: string; reason: string }[];
}

/** What a visit's discovery activity is asked (docs/reference/mcp.md#discovery). */
export interface DiscoverInput {
  runId: string;
  blueprintHash: string;
  stage: string;
  workdir: string;
}

/** What the workflow records of a discovery: small, whatever the servers offer. */
export interface DiscoveredTools {
  /** Blob hash of the {@link ToolCatalog}. */
  catalog: string;
  /** The MCP tools the stage is given, by advertised name. */
  granted: string[];
  /** Servers that did not answer, and why. */
  unreachable: { server: string; reason: string }[];
}

/**
 * The advertised names of `tools` (server, original name) in order: each
 * `<server>__<tool>` sanitised; one taken already (a built-in, or an earlier
 * tool whose name sanitised the same) gets `_2`, `_3`, ... appended.
 */
export function advertisedNames(
  tools: readonly { server: string; tool: string }[],
  reserved: readonly string[],
): string[] {
  const taken = new Set(reserved);
  return tools.map(({ server, tool }) => {
    const qualified = sanitizeToolName(`${server}__${tool}`);
    let name = qualified;
    for (let n = 2; taken.has(name); n++) name = sanitizeToolName(`${qualified}_${n}`);
    taken.add(name);
    return name;
  });
}

/**
 * The MCP tools a stage is given: each `available_tools` name that is an
 * advertised name, or a bare tool name exactly one server offers; and every
 * tool of each server in `available_connectors`. In catalog order, no repeats.
 */
export function grantedMcpTools(
  catalog: ToolCatalog,
  availableTools: readonly string[],
  connectors: readonly string[],
): string[] {
  const granted = new Set<string>();
  for (const name of availableTools) {
    const exact = catalog.tools.find((t) => t.advertised === name);
    if (exact) {
      granted.add(exact.advertised);
      continue;
    }
    const bare = catalog.tools.filter((t) => t.tool === name || sanitizeToolName(t.tool) === name);
    if (bare.length === 1 && bare[0]) granted.add(bare[0].advertised);
  }
  for (const server of connectors) for (const t of catalog.tools) if (t.server === server) granted.add(t.advertised);
  return catalog.tools.filter((t) => granted.has(t.advertised)).map((t) => t.advertised);
}
