/**
 * The MCP client against the real `@modelcontextprotocol/server-everything`
 * over stdio: discovery, a call, a tool that errors, a large result, a slow
 * call past its timeout, a server killed between and during calls.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_MCP_RESULT_CHARS } from '../../src/mcp/call-result.js';
import { McpPool } from '../../src/mcp/pool.js';
import { callMcpTool, discoverCatalog } from '../../src/runtime/node/mcp-tools.js';
import type { ToolContext } from '../../src/tools/tool.js';
import { everything, mcpContext, stdioServer } from './servers.js';

const workdir = mkdtempSync(join(tmpdir(), 'lev-mcp-'));
const place = { workdir };
const pool = new McpPool();
afterAll(() => pool.closeAll());

function ctx(servers = [everything()], extra: Partial<ToolContext> = {}) {
  return mcpContext(place, servers, extra);
}

describe('server-everything over stdio', () => {
  it('lists its tools under <server>__<tool> names', async () => {
    const catalog = await discoverCatalog([everything()], place, pool);
    expect(catalog.unreachable).toEqual([]);
    const names = catalog.tools.map((t) => t.advertised);
    expect(names).toContain('everything__echo');
    expect(names).toContain('everything__trigger-long-running-operation');
    const echo = catalog.tools.find((t) => t.tool === 'echo');
    expect(echo?.parameters).toMatchObject({ type: 'object' });
  });

  it('answers a call with the tool text', async () => {
    const catalog = await discoverCatalog([everything()], place, pool);
    const echo = catalog.tools.find((t) => t.tool === 'echo')!;
    const out = await callMcpTool(echo, { message: 'hello there' }, ctx(), pool);
    expect(out).toMatchObject({ isError: false });
    expect(out.content).toContain('hello there');
  });

  it('passes a tool error on as a coded result', async () => {
    const catalog = await discoverCatalog([everything()], place, pool);
    const sum = catalog.tools.find((t) => t.tool === 'get-sum')!;
    const out = await callMcpTool(sum, { a: 'not a number' }, ctx(), pool);
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(/^\[tool-failed\] everything__get-sum/);
  });

  it('cuts a large result', async () => {
    const catalog = await discoverCatalog([everything()], place, pool);
    const echo = catalog.tools.find((t) => t.tool === 'echo')!;
    const out = await callMcpTool(echo, { message: 'x'.repeat(MAX_MCP_RESULT_CHARS + 5000) }, ctx(), pool);
    expect(out.isError).toBe(false);
    expect(out.content.length).toBeLessThan(MAX_MCP_RESULT_CHARS + 200);
    expect(out.content).toContain('the result was cut at 200,000');
  });

  it('answers mcp-timeout when a call outlasts timeout_secs', async () => {
    const slow = everything({ timeoutSecs: 1 });
    const catalog = await discoverCatalog([slow], place, pool);
    const long = catalog.tools.find((t) => t.tool === 'trigger-long-running-operation')!;
    const out = await callMcpTool(long, { duration: 5, steps: 1 }, ctx([slow]), pool);
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(/^\[mcp-timeout\] MCP server "everything" did not answer within 1 s/);
  });

  it('starts a server again that died between calls', async () => {
    const server = everything();
    const catalog = await discoverCatalog([server], place, pool);
    const echo = catalog.tools.find((t) => t.tool === 'echo')!;
    const first = await pool.connection(server, place);
    process.kill(first.pid as number, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 300));
    const out = await callMcpTool(echo, { message: 'after the kill' }, ctx([server]), pool);
    expect(out.content).toContain('after the kill');
    expect((await pool.connection(server, place)).pid).not.toBe(first.pid);
  });

  it('sends a call again on a new process when the server dies under it', async () => {
    const server = everything();
    const catalog = await discoverCatalog([server], place, pool);
    const long = catalog.tools.find((t) => t.tool === 'trigger-long-running-operation')!;
    const first = await pool.connection(server, place);
    const call = callMcpTool(long, { duration: 1, steps: 1 }, ctx([server], { attempt: 1 }), pool);
    setTimeout(() => process.kill(first.pid as number, 'SIGKILL'), 300);
    const out = await call;
    expect(out.isError).toBe(false);
    expect(out.content).toContain('Long running operation completed');
    expect(out.content).toContain('sent again to a new server process');
    expect((await pool.connection(server, place)).pid).not.toBe(first.pid);
  });

  it('reports a server that cannot start as unreachable, and its calls as mcp-unavailable', async () => {
    const broken = everything({ name: 'broken', command: '/nonexistent/node' });
    const catalog = await discoverCatalog([broken], place, pool);
    expect(catalog.tools).toEqual([]);
    expect(catalog.unreachable[0]?.reason).toMatch(/MCP server "broken" cannot be reached/);
    const out = await callMcpTool(
      { advertised: 'broken__echo', server: 'broken', tool: 'echo', description: '', parameters: {} },
      { message: 'x' },
      ctx([broken]),
      pool,
    );
    expect(out.content).toMatch(/^\[mcp-unavailable\] MCP server "broken" cannot be reached/);
  });

  it('answers mcp-bad-result when a server returns something that is no MCP result', async () => {
    const garbage = stdioServer('garbage', join(import.meta.dirname, 'fixtures', 'garbage-server.mjs'), []);
    const catalog = await discoverCatalog([garbage], place, pool);
    const noise = catalog.tools.find((t) => t.advertised === 'garbage__noise')!;
    const out = await callMcpTool(noise, {}, ctx([garbage]), pool);
    expect(out).toMatchObject({ isError: true, code: 'mcp-bad-result' });
    expect(out.content).toMatch(/^\[mcp-bad-result\] MCP server "garbage" answered/);
  });

  it('refuses a call its permissions deny before the server is asked', async () => {
    const catalog = await discoverCatalog([everything()], place, pool);
    const echo = catalog.tools.find((t) => t.tool === 'echo')!;
    const out = await callMcpTool(
      echo,
      { message: 'x' },
      ctx([everything()], { permissions: { tools: { everything__echo: 'deny' } } }),
      pool,
    );
    expect(out).toMatchObject({ isError: true, denied: true, code: 'permission-denied' });
  });
});

describe('outsized answers (test/mcp/fixtures/huge-server.mjs)', () => {
  it('ends a call whose answer outgrows the stdio transport once, with mcp-result-too-large', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lev-mcp-huge-'));
    const huge = stdioServer('huge', join(import.meta.dirname, 'fixtures', 'huge-server.mjs'), []);
    const catalog = await discoverCatalog([huge], { workdir: dir }, pool);
    const dump = catalog.tools.find((t) => t.tool === 'dump')!;
    const out = await callMcpTool(dump, { chars: 11_000_000 }, mcpContext({ workdir: dir }, [huge]), pool);
    expect(out).toMatchObject({ isError: true, code: 'mcp-result-too-large' });
    expect(out.content).toMatch(
      /^\[mcp-result-too-large\] MCP server "huge" answered `dump` with more than the 10 MiB/,
    );
    expect(readFileSync(join(dir, 'calls.log'), 'utf8')).toBe('dump\n');
    // The next call starts the server anew and is answered.
    const small = await callMcpTool(dump, { chars: 5 }, mcpContext({ workdir: dir }, [huge]), pool);
    expect(small).toMatchObject({ isError: false, content: 'xxxxx' });
    expect(readFileSync(join(dir, 'calls.log'), 'utf8')).toBe('dump\ndump\n');
  });
});
