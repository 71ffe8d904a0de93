/** `lev mcp list` and `lev mcp test` against the real server-everything the config declares. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVERYTHING_SCRIPT } from '../mcp/servers.js';
import { lev as levInProcess } from './lev-in-process.js';

const scratch = mkdtempSync(join(tmpdir(), 'lev-mcp-cli-'));
const config = join(scratch, 'config.toml');
writeFileSync(
  config,
  `[[mcp_servers]]
name = "everything"
command = ${JSON.stringify(process.execPath)}
args = [${JSON.stringify(EVERYTHING_SCRIPT)}, "stdio"]
sandbox = false

[[mcp_servers]]
name = "down"
command = "/nonexistent/mcp-server"
sandbox = false
`,
);

function lev(...args: string[]) {
  return levInProcess(['mcp', ...args, '--workdir', scratch], { env: { LEVIATH_CONFIG: config } });
}

describe('lev mcp', () => {
  it('lists each server with its tools under the names a stage grants, and says which is unreachable', async () => {
    const r = await lev('list');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^everything {2}stdio {2}/m);
    expect(r.stdout).toMatch(/^ {2}everything__echo {2}Echoes back the input/m);
    expect(r.stdout).toMatch(
      /^down {2}stdio {2}\/nonexistent\/mcp-server\n {2}unreachable: MCP server "down" cannot be reached/m,
    );
  });

  it('lists as JSON', async () => {
    const r = await lev('list', '--json');
    const out = JSON.parse(r.stdout) as { servers: string[]; tools: { advertised: string }[] };
    expect(out.servers).toEqual(['everything', 'down']);
    expect(out.tools.map((t) => t.advertised)).toContain('everything__get-sum');
  });

  it('tests one server live', async () => {
    const ok = await lev('test', 'everything');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^ok: MCP server "everything" answered in \d+ ms with \d+ tools: everything__echo/);
    const down = await lev('test', 'down');
    expect(down.code).not.toBe(0);
    expect(down.stderr).toMatch(/\[mcp-unavailable\] MCP server "down" cannot be reached/);
    const unknown = await lev('test', 'nope');
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(
      /\[mcp-server-unknown\] Your config declares no MCP server "nope" \(it declares everything, down\)/,
    );
  });
});
