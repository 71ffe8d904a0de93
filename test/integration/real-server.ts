/**
 * The real Temporal server for the tests that need one: `temporal-server`
 * built from the Go module go.temporal.io/server (scripts/temporal-server.mjs,
 * cached between runs), its default store and visibility set up by
 * `temporal-sql-tool` on a throwaway PostgreSQL from Debian's packages, the
 * frontend on a free port of 127.0.0.1, the `default` namespace and Leviath's
 * search attributes added. `restart()` stops the process and starts it again
 * on the same database and ports, as an operator's restart would.
 */
import type { ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import {
  ensureTemporalServer,
  prepareNamespace,
  serverPorts,
  setupSchema,
  spawnServer,
  waitForFrontend,
  writeConfig,
} from '../../scripts/temporal-server.mjs';
import { startPgServer } from '../blobs/pg-server.js';

export interface RealServer {
  address: string;
  /** A database of its own on the same PostgreSQL, for the Postgres blob store (as the compose file has it). */
  blobsUrl: string;
  /** The server's own log, for a failing test's message. */
  log(): string;
  /** Stops the server process (SIGTERM, then SIGKILL after 20 s). */
  stop(): Promise<void>;
  /** Starts it again on the same database and ports; resolves once the frontend answers. */
  start(): Promise<void>;
  /** Stops everything: the server, PostgreSQL, the folder. */
  close(): Promise<void>;
}

/** The binaries, built when the cache lacks them; a missing Go is an error that says what to install. */
export function temporalServerBinaries(): { dir: string; server: string; sqlTool: string } {
  return ensureTemporalServer({ log: (line: string) => process.stderr.write(`temporal-server: ${line}\n`) });
}

export async function startRealServer(): Promise<RealServer> {
  const bins = temporalServerBinaries();
  const db = await startPgServer();
  const dir = mkdtempSync(join(tmpdir(), 'leviath-real-server-'));
  const logFile = join(dir, 'server.log');
  let child: ChildProcess | undefined;
  try {
    const where = { host: db.host, port: db.port, user: db.user, password: '' };
    setupSchema(bins, where);
    const admin = new pg.Client({ connectionString: db.adminUrl });
    await admin.connect();
    await admin.query('CREATE DATABASE leviath_blobs');
    await admin.end();
    const ports = await serverPorts();
    const config = writeConfig(dir, { pg: where, ports });
    const address = `127.0.0.1:${ports.frontend}`;
    const server: RealServer = {
      address,
      blobsUrl: `postgres://${db.user}@${db.host}:${db.port}/leviath_blobs`,
      log: () => readFileSync(logFile, 'utf8').slice(-4000),
      async start() {
        const out = openSync(logFile, 'a');
        child = spawnServer(bins, config, { stdio: ['ignore', out, out] });
        closeSync(out);
        await waitForFrontend(address, child).catch((err: Error) => {
          throw new Error(`${err.message}; its log ends:\n${server.log()}`);
        });
      },
      async stop() {
        const running = child;
        if (!running || running.exitCode !== null || running.signalCode !== null) return;
        const exited = new Promise((r) => running.once('exit', r));
        running.kill('SIGTERM');
        const timer = setTimeout(() => running.kill('SIGKILL'), 20_000);
        await exited;
        clearTimeout(timer);
      },
      async close() {
        try {
          await server.stop();
        } finally {
          db.stop();
          rmSync(dir, { recursive: true, force: true });
        }
      },
    };
    await server.start();
    await prepareNamespace(address);
    return server;
  } catch (err) {
    child?.kill('SIGKILL');
    db.stop();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
