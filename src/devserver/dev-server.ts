/**
 * Runs `temporal server start-dev` as a child process: SQLite persistence,
 * the search attributes the runtime writes, a wait until the frontend
 * answers, and a clean stop. Used by `lev server`, `lev run` and the
 * integration tests, so all three start the server the same way.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { Connection } from '@temporalio/client';
import { LevError } from '../errors.js';
import { portAnswers } from './net.js';

/** Search attributes operators filter runs by in the Web UI. */
export const SEARCH_ATTRIBUTES = {
  LeviathBlueprint: 'Keyword',
  LeviathStage: 'Keyword',
  LeviathStatus: 'Keyword',
} as const;

export interface DevServerOptions {
  cli: string;
  /** SQLite file; created with its folder when missing. */
  dbFile: string;
  port: number;
  uiPort: number;
  ip?: string;
  headless?: boolean;
  /** Server output goes here; by default it is discarded. */
  logFile?: string;
  /** How long to wait for the frontend to answer (default 60 s). */
  readyTimeoutMs?: number;
}

export interface DevServer {
  address: string;
  uiUrl: string;
  child: ChildProcess;
  /** Resolves once the process has exited. */
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

/** True when a Temporal frontend answers a health check at the address. */
export async function temporalAnswers(address: string, timeoutMs = 2000): Promise<boolean> {
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ address, connectTimeout: timeoutMs });
    await connection.workflowService.getSystemInfo({});
    return true;
  } catch {
    return false;
  } finally {
    await connection?.close().catch(() => {});
  }
}

async function waitUntilReady(address: string, exited: Promise<number | null>, timeoutMs: number): Promise<void> {
  let processGone = false;
  void exited.then(() => {
    processGone = true;
  });
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (processGone) {
      throw new LevError(
        'server-exited',
        'The Temporal dev server exited while starting; see its log (lev server --log FILE) for why.',
      );
    }
    if (await temporalAnswers(address, 1000)) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new LevError(
    'server-timeout',
    `The Temporal dev server did not answer at ${address} within ${Math.round(timeoutMs / 1000)} s.`,
  );
}

export async function startDevServer(opts: DevServerOptions): Promise<DevServer> {
  const ip = opts.ip ?? '127.0.0.1';
  for (const [what, port] of [
    ['gRPC', opts.port],
    ['Web UI', opts.uiPort],
  ] as const) {
    if (await portAnswers(port, ip)) {
      throw new LevError(
        'port-busy',
        `Port ${port} (${what}) on ${ip} is already in use, perhaps by another \`lev server\`. ` +
          `Stop that process or choose other ports with --port and --ui-port.`,
      );
    }
  }
  mkdirSync(dirname(opts.dbFile), { recursive: true });
  const args = [
    'server',
    'start-dev',
    '--db-filename',
    opts.dbFile,
    '--port',
    String(opts.port),
    '--ui-port',
    String(opts.uiPort),
    '--ip',
    ip,
    '--log-level',
    'warn',
  ];
  if (opts.headless) args.push('--headless');
  else args.push('--ui-disable-news-fetch');
  for (const [name, type] of Object.entries(SEARCH_ATTRIBUTES)) args.push('--search-attribute', `${name}=${type}`);

  let stdio: ('ignore' | number)[] = ['ignore', 'ignore', 'ignore'];
  if (opts.logFile) {
    mkdirSync(dirname(opts.logFile), { recursive: true });
    const fd = openSync(opts.logFile, 'a');
    stdio = ['ignore', fd, fd];
  }
  const child = spawn(opts.cli, args, { stdio });
  const exited = new Promise<number | null>((resolvePromise) => {
    child.once('exit', (code) => resolvePromise(code));
    child.once('error', () => resolvePromise(null));
  });
  const address = `${ip}:${opts.port}`;
  const server: DevServer = {
    address,
    uiUrl: `http://${ip}:${opts.uiPort}`,
    child,
    exited,
    stop: () => stopChild(child, exited),
  };
  try {
    await waitUntilReady(address, exited, opts.readyTimeoutMs ?? 60_000);
  } catch (err) {
    await server.stop();
    throw err;
  }
  return server;
}

/** SIGTERM lets the server flush SQLite; SIGKILL only if it hangs. */
async function stopChild(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}
