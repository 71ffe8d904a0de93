/**
 * The MCP side of the tool activities (docs/reference/mcp.md): discovery
 * asks every configured server for its tools once per visit and stores what
 * it found as a blob, whose hash the workflow records and hands to each
 * inference and tool call; a call of an MCP tool goes to its server through
 * this worker's pool. A server that is down, slow or talks nonsense is a coded
 * tool result, never a failed activity.
 */

import { expandServer, type McpServerConfig, serverOfName } from '../../blueprint/mcp-servers.js';
import { loadUserConfig } from '../../blueprint/user-config.js';
import { mcpResultText } from '../../mcp/call-result.js';
import { type McpPool, workerPool } from '../../mcp/pool.js';
import type { LaunchPlace, ListedTool } from '../../mcp/server-connection.js';
import { McpFailure } from '../../mcp/server-connection.js';
import { capListedTool } from '../../mcp/tool-caps.js';
import {
  advertisedNames,
  type DiscoveredTools,
  type DiscoverInput,
  grantedMcpTools,
  type McpToolEntry,
  type ToolCatalog,
} from '../../mcp/tool-names.js';
import type { Blueprint } from '../../shapes/frozen-blueprint.js';
import type { JsonSchemaSpec } from '../../tools/context-schemas.js';
import { strictestDecision } from '../../tools/permissions.js';
import { failure, type ToolContext, type ToolOutcome, withRetryNote } from '../../tools/tool.js';
import { mcpGrants, RESERVED_TOOL_NAMES } from '../mcp-grants.js';
import type { RunStore } from './run-store.js';
import { readPolicy, sandboxPolicy } from './tool-context.js';

export type { DiscoveredTools, DiscoverInput };

/** The configured servers with `${VAR}` expanded from the worker's environment. */
export function configuredServers(env: NodeJS.ProcessEnv): McpServerConfig[] {
  return loadUserConfig(env).config.mcpServers.map((s) => expandServer(s, env));
}

/** Where a stdio server of this run starts: beside the workdir, in the run's command sandbox. */
export function launchPlace(bp: Blueprint, workdir: string, env: NodeJS.ProcessEnv): LaunchPlace {
  return { workdir, sandbox: sandboxPolicy(bp, readPolicy(bp, workdir, env), env) };
}

/** Every tool of every server that answers, each under its advertised name, its description and schema capped. */
export async function discoverCatalog(
  servers: readonly McpServerConfig[],
  place: LaunchPlace,
  pool: McpPool = workerPool,
): Promise<ToolCatalog> {
  type Listed = { server: string; tools: ListedTool[] } | { server: string; reason: string };
  const listed = await Promise.all(
    servers.map(async (server): Promise<Listed> => {
      try {
        return { server: server.name, tools: await pool.listTools(server, place) };
      } catch (err) {
        return { server: server.name, reason: err instanceof Error ? err.message : String(err) };
      }
    }),
  );
  const found = listed.flatMap((l) => ('tools' in l ? l.tools.map((t) => ({ server: l.server, listed: t })) : []));
  const names = advertisedNames(
    found.map((f) => ({ server: f.server, tool: f.listed.name })),
    RESERVED_TOOL_NAMES,
  );
  return {
    tools: found.map((f, i) => {
      const { tool, trimmed } = capListedTool(f.listed);
      return {
        advertised: names[i] as string,
        server: f.server,
        tool: tool.name,
        description: tool.description,
        parameters: tool.inputSchema,
        ...(trimmed.length > 0 ? { trimmed } : {}),
      };
    }),
    unreachable: listed.flatMap((l) => ('reason' in l ? [{ server: l.server, reason: l.reason }] : [])),
  };
}

/** The MCP tools of the catalog the stage is given. */
export function stageMcpTools(bp: Blueprint, stage: string, catalog: ToolCatalog): string[] {
  const grants = mcpGrants(bp, stage);
  return grantedMcpTools(catalog, grants.tools, grants.connectors);
}

export async function discoverStageTools(store: RunStore, input: DiscoverInput): Promise<DiscoveredTools> {
  const bp = await store.blueprint(input.blueprintHash);
  const env = store.config.env;
  const catalog = await discoverCatalog(configuredServers(env), launchPlace(bp, input.workdir, env));
  const ref = await store.blobs.put(JSON.stringify(catalog));
  return { catalog: ref.hash, granted: stageMcpTools(bp, input.stage, catalog), unreachable: catalog.unreachable };
}

/** The specs the model is offered for the stage's MCP tools, in catalog order. */
export function mcpToolSpecs(catalog: ToolCatalog, granted: readonly string[]): JsonSchemaSpec[] {
  return catalog.tools
    .filter((t) => granted.includes(t.advertised))
    .map((t) => ({
      name: t.advertised,
      description: t.description || `${t.tool} (MCP server "${t.server}")`,
      parameters: t.parameters,
    }));
}

/** The tokens of the MCP tools' specs a request offers the model: text no region holds. */
export function mcpSpecTokens(specs: readonly JsonSchemaSpec[], count: (text: string) => number): number {
  return specs.length === 0 ? 0 : count(JSON.stringify(specs));
}

/**
 * The prompt tokens of a request: the provider's count when it reports one; else, when the
 * request offers MCP tools, the regions' `used` plus those tools' specs, so the calibration gap
 * (docs/reference/regions.md#calibration-gap) covers them as a provider's count would.
 */
export function requestPromptTokens(reported: number | undefined, used: number, mcpTokens: number): number | undefined {
  return reported ?? (mcpTokens > 0 ? used + mcpTokens : undefined);
}

const catalogs = new Map<string, ToolCatalog>();

/** A recorded catalog by its hash (kept: a hash names one catalog forever). */
export async function loadCatalog(store: RunStore, hash: string): Promise<ToolCatalog> {
  const known = catalogs.get(hash);
  if (known) return known;
  const catalog = JSON.parse(await store.blobs.get(hash)) as ToolCatalog;
  catalogs.set(hash, catalog);
  return catalog;
}

function argumentsObject(raw: unknown): Record<string, unknown> | undefined {
  if (raw === undefined || raw === null || raw === '') return {};
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      return undefined;
    }
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * One call of an MCP tool the stage was given: the permissions first (as for
 * a built-in), then the server, through the pool.
 */
export async function callMcpTool(
  entry: McpToolEntry,
  rawArgs: unknown,
  ctx: ToolContext & { place: LaunchPlace; servers: readonly McpServerConfig[] },
  pool: McpPool = workerPool,
): Promise<ToolOutcome> {
  const name = entry.advertised;
  const args = argumentsObject(rawArgs);
  if (!args) return failure('bad-argument', `${name}: the arguments must be a JSON object.`);
  const layers = [{ permissions: ctx.permissions, safeCommands: ctx.safeCommands }, ...(ctx.ceilings ?? [])];
  const decision = strictestDecision(name, args, layers, ctx.unattended);
  if (decision.mode === 'deny' || (decision.mode === 'ask' && ctx.approved !== true))
    return failure(decision.code, decision.message, { denied: true });
  const server = ctx.servers.find((s) => s.name === entry.server);
  if (!server)
    return failure(
      'mcp-unavailable',
      `MCP server "${entry.server}" is not in this worker's config, so \`${name}\` cannot run here; add its [[mcp_servers]] entry to the config of the worker that serves this workdir.`,
    );
  let raw: unknown;
  let resent = false;
  try {
    ({ value: raw, resent } = await pool.callTool(server, ctx.place, entry.tool, args, ctx.signal));
  } catch (err) {
    if (err instanceof McpFailure) return withRetryNote(failure(err.code, err.message), ctx);
    const said = err instanceof Error ? err.message : String(err);
    return failure(
      'tool-failed',
      `${name} failed on MCP server "${entry.server}": ${said}. Check the arguments against the tool's schema.`,
    );
  }
  const read = mcpResultText(raw);
  if (!read.ok)
    return failure(
      'mcp-bad-result',
      `MCP server "${entry.server}" answered \`${name}\` with a result Leviath cannot read (${read.why}); the call may have taken effect, so check before calling it again.`,
    );
  const outcome = read.isError
    ? failure('tool-failed', `${name} reported an error: ${read.text}`)
    : { content: read.text, isError: false };
  if (!resent) return withRetryNote(outcome, ctx);
  return {
    ...outcome,
    content: `${outcome.content}\nnote: the MCP server stopped during this call and it was sent again to a new server process; the first may already have taken effect.`,
    attemptNote: true,
  };
}

/**
 * An MCP name the stage lists that discovery did not find: its server did
 * not answer, or does not offer that tool.
 */
export function missingMcpTool(
  name: string,
  catalog: ToolCatalog | undefined,
  bp: Blueprint,
  stage: string,
): ToolOutcome {
  const server = serverOfName(name);
  const down = catalog?.unreachable.find((u) => u.server === server);
  if (down) return failure('mcp-unavailable', down.reason);
  const offered = catalog ? stageMcpTools(bp, stage, catalog) : [];
  return failure(
    'mcp-unavailable',
    `No MCP server offers \`${name}\` to this run${offered.length > 0 ? `; the stage's MCP tools are ${offered.join(', ')}` : ''}. Run \`lev mcp list\` to see what the servers offer, or use another tool.`,
  );
}
