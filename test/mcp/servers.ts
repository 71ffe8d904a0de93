/**
 * The real MCP servers from npm the tests run (pinned devDependencies),
 * started with this node from node_modules, never downloaded at test time.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { McpServerConfig } from '../../src/blueprint/mcp-servers.js';
import type { LaunchPlace } from '../../src/mcp/server-connection.js';
import { NO_READ_PATHS } from '../../src/tools/read-paths.js';
import type { ToolContext } from '../../src/tools/tool.js';

const require = createRequire(import.meta.url);

function packageDir(name: string): string {
  return dirname(require.resolve(`${name}/package.json`));
}

export const EVERYTHING_SCRIPT = join(packageDir('@modelcontextprotocol/server-everything'), 'dist', 'index.js');
export const FILESYSTEM_SCRIPT = join(packageDir('@modelcontextprotocol/server-filesystem'), 'dist', 'index.js');

export function stdioServer(
  name: string,
  script: string,
  args: string[],
  extra: Partial<McpServerConfig> = {},
): McpServerConfig {
  return {
    name,
    command: process.execPath,
    args: [script, ...args],
    env: {},
    headers: {},
    sandbox: false,
    readPaths: [],
    timeoutSecs: 20,
    ...extra,
  };
}

/** server-everything over stdio, outside the sandbox. */
export function everything(extra: Partial<McpServerConfig> = {}): McpServerConfig {
  return stdioServer('everything', EVERYTHING_SCRIPT, ['stdio'], extra);
}

/** What an MCP call of a test runs with: no grants outside the workdir, unattended, first attempt. */
export function mcpContext(
  place: LaunchPlace,
  servers: McpServerConfig[],
  extra: Partial<ToolContext> = {},
): ToolContext & { place: LaunchPlace; servers: McpServerConfig[] } {
  return {
    workdir: place.workdir,
    readPolicy: NO_READ_PATHS,
    permissions: { tools: {} },
    safeCommands: [],
    unattended: true,
    attempt: 1,
    place,
    servers,
    ...extra,
  };
}
