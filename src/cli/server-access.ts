/**
 * The embedded dev server of `lev run` and `lev attach`: started on the
 * project's database when nothing answers at a local address, so a run they
 * left there resumes (docs/reference/operators.md#the-embedded-servers-database).
 * The commands that only read or steer (`connect.ts`) never start one.
 */
import { type DevServer, startDevServer, temporalAnswers } from '../devserver/dev-server.js';
import { findTemporalCli } from '../devserver/temporal-cli.js';
import { embeddedServerFiles } from '../state/locations.js';
import { isSecured, type ServerSettings } from '../worker/connection.js';
import { probeServer } from '../worker/server-probe.js';

export function isLocal(address: string): boolean {
  return /^(127\.0\.0\.1|localhost|\[::1\]):\d+$/.test(address);
}

/** The SQLite file the embedded server keeps its runs in. */
export function embeddedDatabase(): string {
  return embeddedServerFiles().database;
}

/** How to get a server at `address`: the embedded one's database for a local address. */
export function startHint(address: string): string {
  return isLocal(address)
    ? `\`lev server\` starts one on the runs \`lev run\` kept in ${embeddedDatabase()}, or pass --address`
    : 'start it, or pass --address (or TEMPORAL_ADDRESS) for one that runs';
}

/**
 * The server a command that hosts workers uses (`lev run`, `lev attach`, `lev doctor`): the
 * embedded dev server is started when nothing answers at a local address without TLS or an API
 * key; then the probe (src/worker/server-probe.ts) makes any other problem one coded line.
 */
export async function ensureServer(
  settings: ServerSettings,
  say: (line: string) => void,
): Promise<DevServer | undefined> {
  const { address } = settings;
  const started =
    !isSecured(settings) && isLocal(address) && !(await temporalAnswers(address))
      ? await startEmbedded(address, say)
      : undefined;
  try {
    await probeServer(settings, { startHint: startHint(address) });
  } catch (err) {
    await started?.stop();
    throw err;
  }
  return started;
}

/** Starts the embedded dev server at a local address; its Web UI listens 1000 ports up. */
async function startEmbedded(address: string, say: (line: string) => void): Promise<DevServer> {
  const port = Number(address.split(':').at(-1));
  const cli = await findTemporalCli({ log: say });
  const server = await startDevServer({
    cli,
    dbFile: embeddedDatabase(),
    port,
    uiPort: port + 1000,
    logFile: embeddedServerFiles().log,
  });
  say(
    `started the Temporal dev server at ${server.address} on ${embeddedDatabase()}; Web UI ${server.uiUrl} (it stops with this command; \`lev server\` keeps it up)`,
  );
  return server;
}
