/**
 * The MCP client over HTTP against the real server-everything: streamable
 * HTTP, and the legacy HTTP+SSE transport it falls back to when a server
 * refuses streamable HTTP.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpServerConfig } from '../../src/blueprint/mcp-servers.js';
import { freePort } from '../../src/devserver/net.js';
import { McpPool } from '../../src/mcp/pool.js';
import { callMcpTool, discoverCatalog } from '../../src/runtime/node/mcp-tools.js';
import { EVERYTHING_SCRIPT, mcpContext } from './servers.js';

const workdir = mkdtempSync(join(tmpdir(), 'lev-mcp-http-'));
const place = { workdir };
const pool = new McpPool();
const children: ChildProcess[] = [];

/** Starts server-everything on a free port and waits until it listens. */
async function startEverything(transport: 'streamableHttp' | 'sse'): Promise<number> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING_SCRIPT, transport], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    const seen = (chunk: Buffer) => {
      if (/listening|running/i.test(chunk.toString())) resolve();
    };
    child.stderr?.on('data', seen);
    child.stdout?.on('data', seen);
    child.on('exit', (code) => reject(new Error(`server-everything ${transport} exited with ${code}`)));
  });
  return port;
}

function httpServer(url: string): McpServerConfig {
  return {
    name: 'remote',
    url,
    args: [],
    env: {},
    headers: { 'X-Test': 'yes' },
    sandbox: true,
    readPaths: [],
    timeoutSecs: 20,
  };
}

function ctx(server: McpServerConfig) {
  return mcpContext(place, [server]);
}

let streamablePort = 0;
let ssePort = 0;
beforeAll(async () => {
  [streamablePort, ssePort] = await Promise.all([startEverything('streamableHttp'), startEverything('sse')]);
}, 60_000);
afterAll(async () => {
  await pool.closeAll();
  for (const child of children) child.kill();
});

describe('server-everything over HTTP', () => {
  it('lists and calls tools over streamable HTTP', async () => {
    const server = httpServer(`http://127.0.0.1:${streamablePort}/mcp`);
    const catalog = await discoverCatalog([server], place, pool);
    expect(catalog.unreachable).toEqual([]);
    const echo = catalog.tools.find((t) => t.advertised === 'remote__echo')!;
    const out = await callMcpTool(echo, { message: 'over streamable http' }, ctx(server), pool);
    expect(out.content).toBe('Echo: over streamable http');
  });

  it('falls back to HTTP+SSE when the server does not take streamable HTTP', async () => {
    const server = httpServer(`http://127.0.0.1:${ssePort}/sse`);
    const catalog = await discoverCatalog([server], place, pool);
    expect(catalog.unreachable).toEqual([]);
    const echo = catalog.tools.find((t) => t.advertised === 'remote__echo')!;
    const out = await callMcpTool(echo, { message: 'over sse' }, ctx(server), pool);
    expect(out.content).toBe('Echo: over sse');
  });

  it('reports a URL where nothing listens as unreachable', async () => {
    const port = await freePort();
    const catalog = await discoverCatalog([httpServer(`http://127.0.0.1:${port}/mcp`)], place, pool);
    expect(catalog.unreachable[0]?.reason).toMatch(/^MCP server "remote" cannot be reached/);
  });
});
