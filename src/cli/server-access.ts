/**
 * The embedded dev server of `lev run` and `lev attach`: started on the
 * project's database when nothing answers at a local address, so a run they
 * left there resumes (docs/reference/operators.md#the-embedded-servers-database).
 * The commands that only read or steer (`connect.ts`) never start one.
 */
import { join } from 'node:path';
import { type DevServer, startDevServer, temporalAnswers } from '../devserver/dev-server.js';
import { dataDir } from '../devserver/paths.js';
import { findTemporalCli } from '../devserver/temporal-cli.js';
import { LevError } from '../errors.js';

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
