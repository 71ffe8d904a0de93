/**
 * `lev mcp list` and `lev mcp test <name>`: the `[[mcp_servers]]` of the
 * user config, what each one offers under the names a stage grants, and a
 * live check (docs/reference/mcp.md#lev-mcp).
 */
import type { Command } from 'commander';
import { LevError } from '../../errors.js';

interface ListFlags {
  json?: boolean;
  workdir: string;
}

export function registerMcp(program: Command): void {
  const mcp = program.command('mcp').description('The MCP tool servers of your config ([[mcp_servers]]).');
  mcp
    .command('list')
    .description('List the configured MCP servers and the tools each offers, by the names a stage grants them.')
    .option('--json', 'print the servers and tools as JSON')
    .option('--workdir <dir>', 'where stdio servers start (as beside a run’s workdir)', process.cwd())
    .action(async (flags: ListFlags) => {
      const { servers, place } = await setup(flags.workdir);
      const { discoverCatalog } = await import('../../runtime/node/mcp-tools.js');
      const { workerPool } = await import('../../mcp/pool.js');
      try {
        const catalog = await discoverCatalog(servers, place);
        if (flags.json) {
          process.stdout.write(`${JSON.stringify({ servers: servers.map((s) => s.name), ...catalog })}\n`);
          return;
        }
        if (servers.length === 0) {
          process.stdout.write(
            'No MCP servers are configured; add [[mcp_servers]] entries to your config (docs/reference/mcp.md).\n',
          );
          return;
        }
        for (const server of servers) {
          const where = server.url ?? [server.command, ...server.args].join(' ');
          process.stdout.write(`${server.name}  ${server.url ? 'http' : 'stdio'}  ${where}\n`);
          const down = catalog.unreachable.find((u) => u.server === server.name);
          if (down) process.stdout.write(`  unreachable: ${down.reason}\n`);
          for (const tool of catalog.tools.filter((t) => t.server === server.name)) {
            process.stdout.write(`  ${tool.advertised}${tool.description ? `  ${firstLine(tool.description)}` : ''}\n`);
            for (const note of tool.trimmed ?? []) process.stdout.write(`    warning [mcp-tool-trimmed]: ${note}\n`);
          }
        }
      } finally {
        await workerPool.closeAll();
      }
    });
  mcp
    .command('test <name>')
    .description('Start or reach one configured MCP server and list its tools: a live check.')
    .option('--workdir <dir>', 'where a stdio server starts', process.cwd())
    .action(async (name: string, flags: ListFlags) => {
      const { servers, place } = await setup(flags.workdir);
      const server = servers.find((s) => s.name === name);
      if (!server)
        throw new LevError(
          'mcp-server-unknown',
          `Your config declares no MCP server "${name}"${servers.length > 0 ? ` (it declares ${servers.map((s) => s.name).join(', ')})` : ''}; add a [[mcp_servers]] entry named "${name}".`,
        );
      const { discoverCatalog } = await import('../../runtime/node/mcp-tools.js');
      const { workerPool } = await import('../../mcp/pool.js');
      const started = Date.now();
      try {
        const catalog = await discoverCatalog([server], place);
        const down = catalog.unreachable[0];
        if (down) throw new LevError('mcp-unavailable', down.reason);
        process.stdout.write(
          `ok: MCP server "${name}" answered in ${Date.now() - started} ms with ${catalog.tools.length} tool${catalog.tools.length === 1 ? '' : 's'}: ${catalog.tools.map((t) => t.advertised).join(', ')}\n`,
        );
        for (const tool of catalog.tools)
          for (const note of tool.trimmed ?? [])
            process.stdout.write(`warning [mcp-tool-trimmed]: ${tool.advertised}: ${note}\n`);
      } finally {
        await workerPool.closeAll();
      }
    });
}

function firstLine(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}

/** The configured servers (`${VAR}` expanded) and where a stdio one starts: the user's sandbox around the workdir. */
async function setup(workdir: string) {
  const { resolve } = await import('node:path');
  const { loadUserConfig } = await import('../../blueprint/user-config.js');
  const { expandServer } = await import('../../blueprint/mcp-servers.js');
  const { config, diagnostics } = loadUserConfig(process.env);
  // A broken entry is left out; say why rather than list fewer servers without a word.
  for (const d of diagnostics) process.stderr.write(`${d.severity}: [${d.code}] ${d.message}\n`);
  return {
    servers: config.mcpServers.map((s) => expandServer(s, process.env)),
    place: {
      workdir: resolve(workdir),
      sandbox: { kind: config.sandbox.kind, env: config.sandbox.env, readRoots: [] },
    },
  };
}
