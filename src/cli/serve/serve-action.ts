/**
 * What `lev serve` does (docs/reference/http-api.md): refuses to listen
 * beyond loopback without a token, connects once to Temporal (with the
 * codec key, so the page never sees a payload), and answers HTTP until
 * SIGINT or SIGTERM.
 */
import { LevError } from '../../errors.js';
import { openClient, type ServerFlags } from '../connect.js';
import { startServe } from './http-server.js';
import { bindingRefusal, serveToken } from './serve-auth.js';

/** The options of `lev serve` (declared in `commands/serve.ts`). */
export interface ServeFlags extends ServerFlags {
  host: string;
  port: number;
  token?: string;
  taskQueue: string;
}

export async function serveCommand(flags: ServeFlags): Promise<void> {
  const token = serveToken(flags.token);
  const refused = bindingRefusal(flags.host, token);
  if (refused) throw refused;
  const say = (line: string) => process.stderr.write(`${line}\n`);
  const { client, close } = await openClient(flags);
  let running: Awaited<ReturnType<typeof startServe>>;
  try {
    running = await startServe({
      host: flags.host,
      port: flags.port,
      ...(token ? { token } : {}),
      ctx: { client, address: flags.address, namespace: flags.namespace, taskQueue: flags.taskQueue, say },
    });
  } catch (err) {
    await close();
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new LevError(
        'serve-port-busy',
        `Port ${flags.port} on ${flags.host} is in use; give lev serve another --port (0 picks a free one).`,
      );
    throw err;
  }
  process.stdout.write(
    `lev serve at ${running.url} (runs on ${flags.address}, namespace ${flags.namespace}${token ? '; API requests need the bearer token' : ''}); the page: ${running.url}/, the API: ${running.url}/openapi.json\n`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await running.close();
  await close();
}
