/**
 * `[[mcp_servers]]` in the user config (docs/reference/mcp.md#configuring-servers):
 * a stdio server is a `command` with `args` and `env`, an HTTP server a `url`
 * with `headers`. `${VAR}` in any of those strings (and in `read_paths`) is expanded from the
 * environment when the server is started, never when the file is read, so a
 * token stays out of everything the config is copied into.
 */
import type { TableReader } from './fields.js';
import { isTable, TableReader as Reader } from './fields.js';

export interface McpServerConfig {
  name: string;
  /** A stdio server: the program and its arguments. */
  command?: string;
  args: string[];
  env: Record<string, string>;
  /** An HTTP server: streamable HTTP, falling back to the legacy SSE transport. */
  url?: string;
  headers: Record<string, string>;
  /** A stdio server runs in the command sandbox unless this is false. */
  sandbox: boolean;
  /** Directories a sandboxed stdio server may read besides the system and the workdir. */
  readPaths: string[];
  /** How long one call may take before it is answered `mcp-timeout` (seconds). */
  timeoutSecs: number;
}

/** One call's default limit: long enough for a slow search, short enough that a hung server is noticed. */
export const DEFAULT_MCP_TIMEOUT_SECS = 60;

const SERVER_KEYS = ['name', 'command', 'args', 'env', 'url', 'headers', 'sandbox', 'read_paths', 'timeout_secs'];

/** A server name the advertised tool names can carry: what the provider accepts, without `__`. */
export const SERVER_NAME = /^[A-Za-z0-9-]+(_[A-Za-z0-9-]+)*$/;

function stringMap(table: TableReader, key: string): Record<string, string> {
  const raw = table.raw(key);
  if (raw === undefined) return {};
  if (!isTable(raw) || Object.values(raw).some((v) => typeof v !== 'string')) {
    table.findings.add(
      'bad-value',
      `\`${key}\` of an [[mcp_servers]] entry must be a table of strings, such as ${key} = { NAME = "value" }.`,
      table.at(key),
    );
    return {};
  }
  return { ...(raw as Record<string, string>) };
}

/** The `[[mcp_servers]]` array; broken entries are reported and left out. */
export function parseMcpServers(raw: unknown, root: TableReader): McpServerConfig[] {
  const findings = root.findings;
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) {
    findings.add(
      'bad-value',
      'mcp_servers must be an array of tables: write [[mcp_servers]] with name = "..." and command = "..." or url = "...".',
      ['mcp_servers'],
    );
    return [];
  }
  const servers: McpServerConfig[] = [];
  raw.forEach((entry, i) => {
    if (!isTable(entry)) {
      findings.add('bad-value', `mcp_servers[${i}] must be a table with name and command or url.`, ['mcp_servers', i]);
      return;
    }
    const table = new Reader(entry, ['mcp_servers', i], findings);
    table.unknownKeys(SERVER_KEYS, 'unknown-key', `[[mcp_servers]] entry ${i + 1}`);
    const name = table.string('name');
    const command = table.string('command');
    const url = table.string('url');
    if (name === undefined || !SERVER_NAME.test(name)) {
      findings.add(
        'bad-value',
        `[[mcp_servers]] entry ${i + 1} needs a name of letters, digits, \`-\` and single \`_\` (it prefixes its tools' names, as in github__create_issue), such as name = "github".`,
        table.at('name'),
      );
      return;
    }
    if (servers.some((s) => s.name === name)) {
      findings.add(
        'bad-value',
        `Two [[mcp_servers]] entries are named "${name}"; give each server its own name.`,
        table.at('name'),
      );
      return;
    }
    if ((command === undefined) === (url === undefined)) {
      findings.add(
        'bad-value',
        `MCP server "${name}" needs exactly one of command = "..." (a stdio server) or url = "https://..." (an HTTP server).`,
        table.path,
      );
      return;
    }
    servers.push({
      name,
      ...(command !== undefined ? { command } : {}),
      args: table.stringArray('args') ?? [],
      env: stringMap(table, 'env'),
      ...(url !== undefined ? { url } : {}),
      headers: stringMap(table, 'headers'),
      sandbox: table.boolean('sandbox') ?? true,
      readPaths: table.stringArray('read_paths') ?? [],
      timeoutSecs: table.integer('timeout_secs', 1) ?? DEFAULT_MCP_TIMEOUT_SECS,
    });
  });
  return servers;
}

/** `${VAR}` replaced by the variable's value (empty when unset); `$${` keeps a literal `${`. */
export function expandVars(text: string, env: NodeJS.ProcessEnv): string {
  return text.replace(/\$(\$)?\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_all, escaped: string | undefined, name: string) =>
    escaped ? `\${${name}}` : (env[name] ?? ''),
  );
}

/** The server's strings as they are sent: every `${VAR}` expanded. */
export function expandServer(server: McpServerConfig, env: NodeJS.ProcessEnv): McpServerConfig {
  const map = (m: Record<string, string>) =>
    Object.fromEntries(Object.entries(m).map(([k, v]) => [k, expandVars(v, env)]));
  return {
    ...server,
    ...(server.command !== undefined ? { command: expandVars(server.command, env) } : {}),
    args: server.args.map((a) => expandVars(a, env)),
    env: map(server.env),
    ...(server.url !== undefined ? { url: expandVars(server.url, env) } : {}),
    headers: map(server.headers),
    readPaths: server.readPaths.map((p) => expandVars(p, env)),
  };
}

/** The server an advertised-looking tool name names (`github__create_issue` → `github`), if it has the form. */
export function serverOfName(name: string): string | undefined {
  const at = name.indexOf('__');
  return at > 0 ? name.slice(0, at) : undefined;
}
