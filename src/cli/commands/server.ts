/** `lev server`: the embedded Temporal dev server, kept in the foreground. */
import type { Command } from 'commander';
import { embeddedServerFiles } from '../../state/locations.js';
import { parsePort } from '../options.js';

export function registerServer(program: Command): void {
  program
    .command('server')
    .description('Run a local Temporal dev server with SQLite persistence until Ctrl-C.')
    .option('--db <file>', 'SQLite file that keeps workflows across restarts', embeddedServerFiles().database)
    .option('--port <port>', 'gRPC port of the Temporal frontend', parsePort, 7233)
    .option('--ui-port <port>', 'port of the Temporal Web UI', parsePort, 8233)
    .option('--ip <ip>', 'address to bind', '127.0.0.1')
    .option('--log <file>', 'append the server log to this file')
    .action(async (opts: { db: string; port: number; uiPort: number; ip: string; log?: string }) => {
      const { findTemporalCli } = await import('../../devserver/temporal-cli.js');
      const { startDevServer } = await import('../../devserver/dev-server.js');
      const cli = await findTemporalCli({ log: (line) => process.stderr.write(`${line}\n`) });
      const server = await startDevServer({
        cli,
        dbFile: opts.db,
        port: opts.port,
        uiPort: opts.uiPort,
        ip: opts.ip,
        logFile: opts.log,
      });
      const stop = () => {
        process.stdout.write('stopping the Temporal dev server ...\n');
        void server.stop();
      };
      // Handlers first: a supervisor may send SIGTERM as soon as it reads the ready line.
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      process.stdout.write(
        `Temporal dev server ready at ${server.address}\nWeb UI: ${server.uiUrl}\nData: ${opts.db}\nPress Ctrl-C to stop.\n`,
      );
      const code = await server.exited;
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      process.stdout.write('Temporal dev server stopped.\n');
      if (code !== 0 && code !== null) process.exitCode = 1;
    });
}
