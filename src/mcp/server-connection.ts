/**
 * One connection to one MCP server, on the official SDK: a stdio server is
 * started beside the run's workdir (in the command sandbox unless its config
 * says `sandbox = false`), an HTTP server is reached over streamable HTTP and,
 * when that is refused, over the legacy HTTP+SSE transport
 * (docs/reference/mcp.md#transports).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from '../blueprint/mcp-servers.js';
import type { RuntimeCode } from '../error-codes.js';
import { bwrapArgs, probeSandbox, type SandboxPolicy, sandboxUnavailableMessage } from '../tools/sandbox.js';

/** A call or a connection that went wrong, as the coded tool error the model reads. */
export class McpFailure extends Error {
  constructor(
    readonly code: Extract<RuntimeCode, 'mcp-unavailable' | 'mcp-timeout' | 'mcp-bad-result' | 'mcp-result-too-large'>,
    message: string,
  ) {
    super(message);
  }
}

/** Where a stdio server runs: beside this workdir, in this sandbox (none when `sandbox = false`). */
export interface LaunchPlace {
  workdir: string;
  sandbox?: SandboxPolicy;
}

/** A tool as the server lists it. */
export interface ListedTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

const MIN_CONNECT_SECS = 30;

/** What the SDK's stdio transport says when a message outgrows its buffer, before it closes the connection. */
const OVERSIZED = /ReadBuffer exceeded maximum size of (\d+) bytes/;

const CLIENT_INFO = { name: 'leviath', version: '0.3.0' };

function quote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function stdioTransport(server: McpServerConfig, place: LaunchPlace): StdioClientTransport {
  const command = server.command as string;
  const policy = server.sandbox ? place.sandbox : undefined;
  if (!policy || policy.kind === 'none')
    return new StdioClientTransport({
      command,
      args: server.args,
      env: server.env,
      cwd: place.workdir,
      stderr: 'pipe',
    });
  const probe = probeSandbox();
  if (!probe.ok) throw new McpFailure('mcp-unavailable', sandboxUnavailableMessage(probe.reason));
  const line = [command, ...server.args].map(quote).join(' ');
  const roots = { ...policy, readRoots: [...policy.readRoots, ...server.readPaths] };
  return new StdioClientTransport({
    command: 'bwrap',
    args: bwrapArgs(line, place.workdir, roots, process.env.HOME),
    env: server.env,
    cwd: place.workdir,
    stderr: 'pipe',
  });
}

/** Streamable HTTP first; a server that answers its POST with 4xx is tried over SSE. */
async function connectHttp(client: Client, server: McpServerConfig, timeoutMs: number): Promise<Transport> {
  const url = new URL(server.url as string);
  const requestInit = { headers: server.headers };
  const streamable = new StreamableHTTPClientTransport(url, { requestInit });
  try {
    await client.connect(streamable, { timeout: timeoutMs });
    return streamable;
  } catch (err) {
    await streamable.close().catch(() => {});
    const status = (err as { code?: unknown }).code;
    if (typeof status !== 'number' || status < 400 || status >= 500) throw err;
  }
  const sse = new SSEClientTransport(url, { requestInit, eventSourceInit: { fetch: withHeaders(server.headers) } });
  await client.connect(sse, { timeout: timeoutMs });
  return sse;
}

function withHeaders(headers: Record<string, string>): typeof fetch {
  return (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as object), ...headers } });
}

/** An MCP connection failure described for the model and the user, with what to check. */
export function describeFailure(server: string, err: unknown, timeoutSecs: number): McpFailure {
  if (err instanceof McpFailure) return err;
  if (err instanceof McpError && err.code === ErrorCode.RequestTimeout)
    return new McpFailure(
      'mcp-timeout',
      `MCP server "${server}" did not answer within ${timeoutSecs} s; try a smaller request, or raise timeout_secs of the server in your config.`,
    );
  // The SDK rejects a result that is not a tool result with the schema's issues.
  if (!(err instanceof McpError) && Array.isArray((err as { issues?: unknown }).issues))
    return new McpFailure(
      'mcp-bad-result',
      `MCP server "${server}" answered with something that is not an MCP result; the call's effect is unknown, so check before calling it again, and report the server's fault to its authors.`,
    );
  const reason = err instanceof Error ? err.message : String(err);
  return new McpFailure(
    'mcp-unavailable',
    `MCP server "${server}" cannot be reached (${reason.split('\n')[0]}); check its [[mcp_servers]] entry with \`lev mcp test ${server}\`.`,
  );
}

function lastLines(text: string): string {
  return text.trim().split('\n').slice(-2).join(' ').trim();
}

export class McpConnection {
  private closedFlag = false;
  private stderrTail = '';
  /** The transport's limit, once a message outgrew it: the connection closes, and the call must not be sent again. */
  private overflowBytes: number | undefined;

  private constructor(
    readonly server: McpServerConfig,
    readonly client: Client,
    readonly transport: Transport,
  ) {}

  static async open(server: McpServerConfig, place: LaunchPlace): Promise<McpConnection> {
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    // Starting a server takes longer than a call to it often does: a connection gets at least 30 s.
    const timeoutMs = Math.max(server.timeoutSecs, MIN_CONNECT_SECS) * 1000;
    let transport: Transport;
    // Kept so a server that dies can say why in the error the model reads.
    let said = '';
    let conn: McpConnection | undefined;
    try {
      if (server.url !== undefined) transport = await connectHttp(client, server, timeoutMs);
      else {
        const stdio = stdioTransport(server, place);
        stdio.stderr?.on('data', (chunk: Buffer) => {
          said = (said + chunk.toString('utf8')).slice(-400);
          if (conn) conn.stderrTail = said;
        });
        await client.connect(stdio, { timeout: timeoutMs });
        transport = stdio;
      }
    } catch (err) {
      await client.close().catch(() => {});
      const failure = describeFailure(server.name, err, server.timeoutSecs);
      const last = lastLines(said);
      if (last && failure.code === 'mcp-unavailable') failure.message += ` The server said: ${last}`;
      throw failure;
    }
    conn = new McpConnection(server, client, transport);
    conn.stderrTail = said;
    const opened = conn;
    client.onclose = () => {
      opened.closedFlag = true;
    };
    client.onerror = (err) => {
      const over = OVERSIZED.exec(err.message);
      if (over) opened.overflowBytes = Number(over[1]);
    };
    return opened;
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  /** The process id of a stdio server (tests kill it to see the call retried). */
  get pid(): number | null {
    return this.transport instanceof StdioClientTransport ? this.transport.pid : null;
  }

  async listTools(): Promise<ListedTool[]> {
    const tools: ListedTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.client.listTools(cursor ? { cursor } : {}, { timeout: this.server.timeoutSecs * 1000 });
      for (const t of page.tools)
        tools.push({
          name: t.name,
          description: t.description ?? '',
          inputSchema: t.inputSchema as Record<string, unknown>,
        });
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  }

  async callTool(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<unknown> {
    try {
      return await this.client.callTool({ name, arguments: args }, undefined, {
        timeout: this.server.timeoutSecs * 1000,
        ...(signal ? { signal } : {}),
      });
    } catch (err) {
      // The call ran and answered; only its answer was too big to carry. Sending it again would run it twice.
      if (this.overflowBytes !== undefined)
        throw new McpFailure(
          'mcp-result-too-large',
          `MCP server "${this.server.name}" answered \`${name}\` with more than the ${(this.overflowBytes / 1048576).toFixed(0)} MiB its stdio transport carries; the call ran once and is not sent again, so ask the tool for less (a narrower query, one page).`,
        );
      throw err;
    }
  }

  /** What the server last wrote to stderr, for an error that says why it died. */
  get lastWords(): string {
    return lastLines(this.stderrTail);
  }

  async close(): Promise<void> {
    this.closedFlag = true;
    await this.client.close().catch(() => {});
  }
}
