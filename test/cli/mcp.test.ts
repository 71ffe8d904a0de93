/** `lev mcp list` and `lev mcp test` against the real server-everything the config declares. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVERYTHING_SCRIPT } from '../mcp/servers.js';

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

function lev(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['bin/lev.mjs', 'mcp', ...args, '--workdir', scratch], {
    encoding: 'utf8',
    env: { ...process.env, LEVIATH_CONFIG: config },
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('lev mcp', () => {
  it('lists each server with its tools under the names a stage grants, and says which is unreachable', () => {
    const r = lev('list');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^everything {2}stdio {2}/m);
    expect(r.stdout).toMatch(/^ {2}everything__echo {2}Echoes back the input/m);
    expect(r.stdout).toMatch(
      /^down {2}stdio {2}\/nonexistent\/mcp-server\n {2}unreachable: MCP server "down" cannot be reached/m,
    );
  });

  it('lists as JSON', () => {
    const r = lev('list', '--json');
    const out = JSON.parse(r.stdout) as { servers: string[]; tools: { advertised: string }[] };
    expect(out.servers).toEqual(['everything', 'down']);
    expect(out.tools.map((t) => t.advertised)).toContain('everything__get-sum');
  });

  it('tests one server live', () => {
    const ok = lev('test', 'everything');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^ok: MCP server "everything" answered in \d+ ms with \d+ tools: everything__echo/);
    const down = lev('test', 'down');
    expect(down.code).not.toBe(0);
    expect(down.stderr).toMatch(/\[mcp-unavailable\] MCP server "down" cannot be reached/);
    const unknown = lev('test', 'nope');
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(
      /\[mcp-server-unknown\] Your config declares no MCP server "nope" \(it declares everything, down\)/,
    );
  });
});
