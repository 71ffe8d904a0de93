/**
 * The real `@modelcontextprotocol/server-filesystem` over stdio, started
 * inside the command sandbox beside the workdir: it works on the workdir and
 * cannot see what the sandbox does not mount.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { McpPool } from '../../src/mcp/pool.js';
import { callMcpTool, discoverCatalog } from '../../src/runtime/node/mcp-tools.js';
import { probeSandbox } from '../../src/tools/sandbox.js';
import { FILESYSTEM_SCRIPT, mcpContext, stdioServer } from './servers.js';

const workdir = mkdtempSync(join(tmpdir(), 'lev-mcp-fs-'));
const outside = mkdtempSync(join(tmpdir(), 'lev-mcp-outside-'));
writeFileSync(join(workdir, 'notes.txt'), 'inside the workdir\n');
writeFileSync(join(outside, 'secret.txt'), 'not for the server\n');
const pool = new McpPool();
afterAll(() => pool.closeAll());

// node_modules (the server and its dependencies) is mounted read-only; nothing else of this checkout is.
const packages = dirname(dirname(dirname(dirname(FILESYSTEM_SCRIPT))));
const sandboxed = stdioServer('fs', FILESYSTEM_SCRIPT, [workdir], { sandbox: true, readPaths: [packages] });
const place = { workdir, sandbox: { kind: 'namespace' as const, env: [], readRoots: [] } };

function ctx() {
  return mcpContext(place, [sandboxed]);
}

describe.runIf(probeSandbox().ok)('server-filesystem in the sandbox', () => {
  it('reads and writes the workdir through its tools', async () => {
    const catalog = await discoverCatalog([sandboxed], place, pool);
    expect(catalog.unreachable).toEqual([]);
    const read = catalog.tools.find((t) => t.advertised === 'fs__read_text_file')!;
    const write = catalog.tools.find((t) => t.advertised === 'fs__write_file')!;
    expect((await callMcpTool(read, { path: join(workdir, 'notes.txt') }, ctx(), pool)).content).toBe(
      'inside the workdir\n',
    );
    const wrote = await callMcpTool(write, { path: join(workdir, 'out.txt'), content: 'written' }, ctx(), pool);
    expect(wrote.isError).toBe(false);
    expect(readFileSync(join(workdir, 'out.txt'), 'utf8')).toBe('written');
  });

  it('cannot reach a file outside what the sandbox mounts, even when asked to serve it', async () => {
    const wider = stdioServer('wide', FILESYSTEM_SCRIPT, [workdir, outside], { sandbox: true, readPaths: [packages] });
    const catalog = await discoverCatalog([wider], place, pool);
    const read = catalog.tools.find((t) => t.advertised === 'wide__read_text_file');
    // The server refuses to start on a directory it cannot see, or cannot read the file in it.
    if (!read) {
      expect(catalog.unreachable[0]?.server).toBe('wide');
      return;
    }
    const out = await callMcpTool(read, { path: join(outside, 'secret.txt') }, { ...ctx(), servers: [wider] }, pool);
    expect(out.isError).toBe(true);
    expect(out.content).not.toContain('not for the server');
  });
});
