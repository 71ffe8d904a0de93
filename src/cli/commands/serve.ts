/** `lev serve`: the HTTP front door and the live page; the work lives in `../serve/serve-action.ts`. */
import type { Command } from 'commander';
import { DEFAULT_TASK_QUEUE } from '../../runtime/defaults.js';
import { parsePort, serverOptions } from '../options.js';
import type { ServeFlags } from '../serve/serve-action.js';

export function registerServe(program: Command): void {
  serverOptions(
    program
      .command('serve')
      .description(
        "Serve runs over HTTP (JSON, Server-Sent Events, /openapi.json) and the live page of each run's window, until stopped.",
      ),
  )
    .option('--host <host>', 'address to listen on; beyond loopback a token is required', '127.0.0.1')
    .option('--port <n>', 'port to listen on (0 picks a free one)', (v) => (v === '0' ? 0 : parsePort(v)), 8740)
    .option('--token <token>', 'the bearer token every API request must carry (default: LEVIATH_SERVE_TOKEN)')
    .option('--task-queue <name>', 'task queue the runs started here go to', DEFAULT_TASK_QUEUE)
    .action(async (flags: ServeFlags) => {
      const { serveCommand } = await import('../serve/serve-action.js');
      await serveCommand(flags);
    });
}
