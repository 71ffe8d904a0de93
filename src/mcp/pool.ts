/**
 * The worker's MCP connections, one per server and workdir, opened on first
 * use and kept for the next call. A server process that died is started
 * again: on the next call, and once within a call it died during, which is
 * then sent again to the new process (at least once, as every tool call),
 * unless the call's answer was too large for the transport: it ran, so it is not sent again.
 * `closeAll` ends them when the worker shuts down
 * (docs/reference/mcp.md#server-processes).
 */
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from '../blueprint/mcp-servers.js';
import { describeFailure, type LaunchPlace, type ListedTool, McpConnection, McpFailure } from './server-connection.js';

function connectionLost(err: unknown): boolean {
  return err instanceof McpError && err.code === ErrorCode.ConnectionClosed;
}

export class McpPool {
  private readonly open = new Map<string, Promise<McpConnection>>();

  private key(server: McpServerConfig, place: LaunchPlace): string {
    // A changed config entry or sandbox is a different process.
    return JSON.stringify([server, server.url === undefined ? place : null]);
  }

  /** The live connection for this server and place, opening one when there is none or it died. */
  async connection(server: McpServerConfig, place: LaunchPlace): Promise<McpConnection> {
    const key = this.key(server, place);
    const known = this.open.get(key);
    if (known) {
      const conn = await known.catch(() => undefined);
      if (conn && !conn.closed) return conn;
      if (this.open.get(key) === known) this.open.delete(key);
    }
    const opening = McpConnection.open(server, place);
    this.open.set(key, opening);
    opening.catch(() => {
      if (this.open.get(key) === opening) this.open.delete(key);
    });
    return opening;
  }

  /** Runs `work` on the server; when the process died under it, once more on a new process. */
  private async withServer<T>(
    server: McpServerConfig,
    place: LaunchPlace,
    work: (conn: McpConnection) => Promise<T>,
  ): Promise<{ value: T; resent: boolean }> {
    const conn = await this.connection(server, place);
    try {
      return { value: await work(conn), resent: false };
    } catch (err) {
      if (err instanceof McpFailure && err.code === 'mcp-result-too-large') throw err;
      if (!conn.closed && !connectionLost(err)) throw describeOrKeep(server, err);
      await conn.close();
      const fresh = await this.connection(server, place);
      try {
        return { value: await work(fresh), resent: true };
      } catch (again) {
        const said = fresh.lastWords || conn.lastWords;
        const failure = describeOrKeep(server, again);
        if (said && failure instanceof McpFailure && failure.code === 'mcp-unavailable')
          failure.message += ` The server said: ${said}`;
        throw failure;
      }
    }
  }

  async listTools(server: McpServerConfig, place: LaunchPlace): Promise<ListedTool[]> {
    return (await this.withServer(server, place, (conn) => conn.listTools())).value;
  }

  async callTool(
    server: McpServerConfig,
    place: LaunchPlace,
    tool: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<{ value: unknown; resent: boolean }> {
    // `resent`: the process died during the call, which was sent again to a new one.
    return this.withServer(server, place, (conn) => conn.callTool(tool, args, signal));
  }

  /** Ends every server process and connection (worker shutdown). */
  async closeAll(): Promise<void> {
    const all = [...this.open.values()];
    this.open.clear();
    await Promise.all(all.map(async (p) => (await p.catch(() => undefined))?.close()));
  }

  get size(): number {
    return this.open.size;
  }
}

/**
 * A server's own JSON-RPC error answer (a bad argument, a failing tool) is
 * passed on as it is, for the caller to route as the tool's error; anything
 * else becomes a coded MCP failure.
 */
function describeOrKeep(server: McpServerConfig, err: unknown): Error {
  if (err instanceof McpError && err.code !== ErrorCode.RequestTimeout && err.code !== ErrorCode.ConnectionClosed)
    return err;
  return describeFailure(server.name, err, server.timeoutSecs);
}

/** This worker process's connections. */
export const workerPool = new McpPool();
