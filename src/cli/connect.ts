/**
 * A Temporal client for one `lev` command, closed when the command is done.
 * Commands that only read or steer a run never start a server.
 */
import type { Client, ClientOptions, Connection } from '@temporalio/client';
import { LevError } from '../errors.js';
import { connectOptions, serverSettings } from '../worker/connection.js';
import { probeServer } from '../worker/server-probe.js';
import { startHint } from './server-access.js';

/** How long a command waits for the server to answer before it says none does. */
const CONNECT_TIMEOUT_MS = 5000;

export interface ServerFlags {
  address: string;
  namespace: string;
  profile?: string;
}

/** A connected client and how to close it: a command's for its one action, `lev serve`'s for its life. */
export interface OpenClient {
  client: Client;
  close(): Promise<void>;
}

export async function openClient(
  flags: ServerFlags,
  extra: Pick<ClientOptions, 'interceptors'> = {},
): Promise<OpenClient> {
  const settings = serverSettings(flags);
  // Unknown namespace, TLS mismatch, refused credentials and nothing listening are each one coded line.
  await probeServer(settings, { startHint: startHint(flags.address), callTimeoutMs: CONNECT_TIMEOUT_MS });
  // The SDK and the codec load after the probe, so a server that is not there is said at once.
  const [{ Client, Connection }, { codecOption }] = await Promise.all([
    import('@temporalio/client'),
    import('../codec/payload-codec.js'),
  ]);
  let connection: Connection;
  try {
    connection = await Connection.connect({ ...connectOptions(settings), connectTimeout: CONNECT_TIMEOUT_MS });
  } catch (err) {
    throw new LevError(
      'server-unreachable',
      `The Temporal server at ${flags.address} stopped answering (${(err as Error).message}); ${startHint(flags.address)}.`,
    );
  }
  return {
    client: new Client({ connection, namespace: flags.namespace, ...codecOption(), ...extra }),
    close: () => connection.close(),
  };
}

export async function withClient<T>(
  flags: ServerFlags,
  work: (client: Client) => Promise<T>,
  extra: Pick<ClientOptions, 'interceptors'> = {},
): Promise<T> {
  const open = await openClient(flags, extra);
  try {
    return await work(open.client);
  } finally {
    await open.close();
  }
}
