/** `lev worker`: a worker alone, the unit docker-compose scales. */
import type { Command } from 'commander';
import { DEFAULT_ADDRESS, DEFAULT_NAMESPACE, DEFAULT_TASK_QUEUE } from '../../runtime/defaults.js';

export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description('Run a Leviath worker (workflows and activities) against a Temporal server until stopped.')
    .option('--address <host:port>', 'Temporal frontend address', process.env.TEMPORAL_ADDRESS ?? DEFAULT_ADDRESS)
    .option('--namespace <name>', 'Temporal namespace', process.env.TEMPORAL_NAMESPACE ?? DEFAULT_NAMESPACE)
    .option('--task-queue <name>', 'task queue to poll', process.env.LEVIATH_TASK_QUEUE ?? DEFAULT_TASK_QUEUE)
    .action(async (opts: { address: string; namespace: string; taskQueue: string }) => {
      const { createWorker, installRuntime } = await import('../../runtime/worker.js');
      installRuntime('INFO');
      const { worker, connection } = await createWorker(opts);
      process.stdout.write(
        `worker polling task queue "${opts.taskQueue}" on ${opts.address} (namespace ${opts.namespace})\n`,
      );
      // Worker.run() already shuts down on SIGINT and SIGTERM: calls in flight are cancelled and handed back.
      try {
        await worker.run();
      } finally {
        await connection.close();
      }
    });
}
