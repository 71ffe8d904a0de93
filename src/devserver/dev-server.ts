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
import { mayAnswer, portAnswers } from './net.js';

/** Search attributes operators filter runs by in the Web UI. */
export const SEARCH_ATTRIBUTES = {
  LeviathBlueprint: 'Keyword',
  LeviathStage: 'Keyword',
  LeviathStatus: 'Keyword',
  LeviathParent: 'Keyword',
  LeviathForkOf: 'Keyword',
} as const;

/**
 * SQLite's default journal syncs the file twice on every commit, and the
 * server commits on every event: a write-ahead log synced at checkpoints
 * halves the server's CPU time per event and more than halves the wall time
 * of a fan-out (bench/fanout.ts). A crash of the process loses nothing; a
 * crash of the machine may lose the last commits, never the database.
 */
export const SQLITE_PRAGMAS: Record<string, string> = { journal_mode: 'wal', synchronous: 'normal' };

export interface DevServerOptions {
  cli: string;
  /** SQLite file; created with its folder when missing. Empty: the database lives in memory and dies with the server. */
  dbFile: string;
  port: number;
  uiPort: number;
  ip?: string;
  headless?: boolean;
  /** Server output goes here; by default it is discarded. */
  logFile?: string;
  /** How long to wait for the frontend to answer (default 60 s). */
  readyTimeoutMs?: number;
  /** More `temporal server start-dev` flags, after Leviath's own (the benches try server settings with them). */
  extraArgs?: string[];
  /** SQLite pragmas (`--sqlite-pragma name=value`), over `SQLITE_PRAGMAS`. */
  sqlitePragmas?: Record<string, string>;
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
  if (!(await mayAnswer(address, timeoutMs))) return false;
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
  if (opts.dbFile) mkdirSync(dirname(opts.dbFile), { recursive: true });
  const args = [
    'server',
    'start-dev',
    ...(opts.dbFile ? ['--db-filename', opts.dbFile] : []),
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
  for (const [name, value] of Object.entries({ ...SQLITE_PRAGMAS, ...opts.sqlitePragmas }))
    args.push('--sqlite-pragma', `${name}=${value}`);
  args.push(...(opts.extraArgs ?? []));

  let out: 'ignore' | number = 'ignore';
  if (opts.logFile) {
    mkdirSync(dirname(opts.logFile), { recursive: true });
    out = openSync(opts.logFile, 'a');
  }
  // The server runs under a watchdog holding the read end of a pipe from this
  // process; its own process group lets a forced stop reach both.
  const child = spawn('/bin/sh', ['-c', WATCHDOG, 'temporal-watchdog', opts.cli, ...args], {
    stdio: ['pipe', out, out],
    detached: true,
  });
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

/**
 * Node cannot ask the kernel to kill a child when its parent dies, so the
 * server is started by this shell: it runs the server in the background and
 * waits on a pipe from Leviath's process. The pipe closes when that process
 * ends in any way, SIGKILL included, and the watchdog then stops the server
 * with SIGTERM (which lets it flush SQLite) and exits with its status. The
 * pipe is duplicated to fd 3 first because a background job's stdin is
 * /dev/null.
 */
const WATCHDOG = `exec 3<&0
"$@" &
server=$!
( while read -r _ <&3; do :; done; kill -TERM "$server" 2>/dev/null ) &
watcher=$!
wait "$server"
status=$?
kill "$watcher" 2>/dev/null
exit "$status"`;

/** How long a stopping server may take to flush before it is killed: with a worker's 5 s shutdown, lev run stops within 10 s. */
const STOP_GRACE_MS = 4000;

/** Closing the pipe makes the watchdog send SIGTERM; the process group is killed only if that hangs. */
async function stopChild(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.stdin?.end();
  const timer = setTimeout(() => {
    if (child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // The group is already gone.
      }
    }
  }, STOP_GRACE_MS);
  await exited;
  clearTimeout(timer);
}
