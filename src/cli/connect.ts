/** A Temporal client for one `lev` command, closed when the command is done. */
import { Client, Connection } from '@temporalio/client';
import { LevError } from '../errors.js';
import { tlsOption } from '../worker/tls.js';

export interface ServerFlags {
  address: string;
  namespace: string;
}

export async function withClient<T>(flags: ServerFlags, work: (client: Client) => Promise<T>): Promise<T> {
  let connection: Connection;
  try {
    connection = await Connection.connect({ address: flags.address, connectTimeout: '5 seconds', ...tlsOption() });
  } catch {
    throw new LevError(
      'server-unreachable',
      `No Temporal server answers at ${flags.address}; start one (lev server) or pass --address.`,
    );
  }
  try {
    return await work(new Client({ connection, namespace: flags.namespace }));
  } finally {
    await connection.close();
  }
}
