/**
 * A Temporal client for one `lev` command, closed when the command is done.
 * Commands that only read or steer a run never start a server.
 */
import { Client, type ClientOptions, Connection } from '@temporalio/client';
import { codecOption } from '../codec/payload-codec.js';
import { mayAnswer } from '../devserver/net.js';
import { LevError } from '../errors.js';
import { connectOptions, serverSettings } from '../worker/connection.js';
import { embeddedDatabase, isLocal } from './server-access.js';

/** How long a command waits for the server to answer before it says none does. */
const CONNECT_TIMEOUT_MS = 5000;

export interface ServerFlags {
  address: string;
  namespace: string;
  profile?: string;
}

export async function withClient<T>(
  flags: ServerFlags,
  work: (client: Client) => Promise<T>,
  extra: Pick<ClientOptions, 'interceptors'> = {},
): Promise<T> {
  const unreachable = () =>
    new LevError(
      'server-unreachable',
      isLocal(flags.address)
        ? `No Temporal server answers at ${flags.address}; \`lev server\` starts one on the runs \`lev run\` kept in ${embeddedDatabase()}, or pass --address.`
        : `No Temporal server answers at ${flags.address}; start one (lev server) or pass --address.`,
    );
  if (!(await mayAnswer(flags.address, CONNECT_TIMEOUT_MS))) throw unreachable();
  let connection: Connection;
  try {
    connection = await Connection.connect({
      ...connectOptions(serverSettings(flags)),
      connectTimeout: CONNECT_TIMEOUT_MS,
    });
  } catch {
    throw unreachable();
  }
  try {
    return await work(new Client({ connection, namespace: flags.namespace, ...codecOption(), ...extra }));
  } finally {
    await connection.close();
  }
}
