/**
 * Reaching Temporal from the CLI. `lev run` and `lev attach` start the
 * embedded dev server on the project's database when nothing answers at a
 * local address, so a run they left there resumes; the commands that only
 * read (`lev ps`, `lev show`, `lev result`) never start one.
 */
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { type DevServer, startDevServer, temporalAnswers } from '../devserver/dev-server.js';
import { dataDir } from '../devserver/paths.js';
import { findTemporalCli } from '../devserver/temporal-cli.js';
import { LevError } from '../errors.js';
import { tlsOption } from '../worker/tls.js';

export function isLocal(address: string): boolean {
  return /^(127\.0\.0\.1|localhost|\[::1\]):\d+$/.test(address);
}

/** The SQLite file the embedded server keeps its runs in. */
export function embeddedDatabase(): string {
  return join(dataDir(), 'temporal.sqlite');
}

/** Starts the embedded dev server when nothing answers at a local address; its Web UI listens 1000 ports up. */
export async function ensureServer(address: string, say: (line: string) => void): Promise<DevServer | undefined> {
  if (await temporalAnswers(address)) return undefined;
  if (!isLocal(address))
    throw new LevError(
      'server-unreachable',
      `No Temporal server answers at ${address}; start one, or pass --address for one that runs.`,
    );
  const port = Number(address.split(':').at(-1));
  const cli = await findTemporalCli({ log: say });
  const server = await startDevServer({
    cli,
    dbFile: embeddedDatabase(),
    port,
    uiPort: port + 1000,
    logFile: join(dataDir(), 'temporal.log'),
  });
  say(
    `started the Temporal dev server at ${server.address} on ${embeddedDatabase()}; Web UI ${server.uiUrl} (it stops with this command; \`lev server\` keeps it up)`,
  );
  return server;
}

/** A client of the server at `address`, or `server-unreachable` saying how to get one. */
export async function connectOrExplain(address: string, namespace: string): Promise<Client> {
  let connection: Connection;
  try {
    connection = await Connection.connect({ address, connectTimeout: '5 seconds', ...tlsOption() });
  } catch {
    throw new LevError(
      'server-unreachable',
      isLocal(address)
        ? `No Temporal server answers at ${address}; \`lev server\` starts one on the runs \`lev run\` kept in ${embeddedDatabase()}, or pass --address.`
        : `No Temporal server answers at ${address}; start one (lev server) or pass --address.`,
    );
  }
  return new Client({ connection, namespace });
}
