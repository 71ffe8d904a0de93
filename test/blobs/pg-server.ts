/**
 * A PostgreSQL database for tests: `LEVIATH_TEST_PG` (an admin URL) when it
 * is set, else a throwaway server from Debian's packages started with
 * `initdb`/`pg_ctl` in a temporary folder on a free port (as the `postgres`
 * user when the tests run as root, since postgres refuses root). Each call
 * gets a fresh database, dropped again by `stop()`.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../../src/devserver/net.js';

export interface TestPg {
  /** URL of the fresh database. */
  url: string;
  stop(): Promise<void>;
}

function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'pg_ctl')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!versions[0])
    throw new Error('PostgreSQL is not installed: run `apt-get install -y postgresql` or set LEVIATH_TEST_PG.');
  return join(root, versions[0], 'bin');
}

/** Runs a postgres program as a user postgres accepts. */
function asPgUser(file: string, args: string[]): void {
  const asRoot = userInfo().uid === 0;
  execFileSync(asRoot ? 'runuser' : file, asRoot ? ['-u', 'postgres', '--', file, ...args] : args, {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}

/** A throwaway PostgreSQL server of its own, trusting every local connection (the real Temporal server uses one). */
export interface PgServer {
  host: string;
  port: number;
  user: string;
  adminUrl: string;
  stop: () => void;
}

export async function startPgServer(): Promise<PgServer> {
  const bin = postgresBin();
  const dir = mkdtempSync(join(tmpdir(), 'leviath-pg-'));
  if (userInfo().uid === 0) execFileSync('chown', ['postgres:postgres', dir]);
  chmodSync(dir, 0o700);
  const data = join(dir, 'data');
  const port = await freePort();
  asPgUser(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'leviath', '--no-sync', '-E', 'UTF8']);
  asPgUser(join(bin, 'pg_ctl'), [
    '-D',
    data,
    '-l',
    join(dir, 'server.log'),
    '-w',
    '-o',
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
    'start',
  ]);
  return {
    host: '127.0.0.1',
    port,
    user: 'leviath',
    adminUrl: `postgres://leviath@127.0.0.1:${port}/postgres`,
    stop: () => {
      try {
        asPgUser(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

export async function startTestPg(): Promise<TestPg> {
  const given = process.env.LEVIATH_TEST_PG?.trim();
  const server = given ? { adminUrl: given, stop: () => {} } : await startPgServer();
  const name = `leviath_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: server.adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(server.adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async stop() {
      try {
        if (given) {
          const c = new pg.Client({ connectionString: server.adminUrl });
          await c.connect();
          await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
          await c.end();
        }
      } finally {
        server.stop();
      }
    },
  };
}
