/** `lev worker`: a worker alone, the unit docker-compose scales; `--tools` serves one workdir's tool calls. */

import type { Command } from 'commander';
import { LevError } from '../../errors.js';
import { workerPool } from '../../mcp/pool.js';
import { DEFAULT_ADDRESS, DEFAULT_NAMESPACE, DEFAULT_TASK_QUEUE } from '../../runtime/defaults.js';

interface WorkerFlags {
  address: string;
  namespace: string;
  taskQueue?: string;
  tools?: boolean;
  workdir?: string;
  health?: boolean;
}

export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description(
      'Run a Leviath worker (workflows and activities) against a Temporal server until stopped; with --tools, only the tool calls and seeds of one workdir.',
    )
    .option('--address <host:port>', 'Temporal frontend address', process.env.TEMPORAL_ADDRESS ?? DEFAULT_ADDRESS)
    .option('--namespace <name>', 'Temporal namespace', process.env.TEMPORAL_NAMESPACE ?? DEFAULT_NAMESPACE)
    .option(
      '--task-queue <name>',
      `task queue to poll (default: ${DEFAULT_TASK_QUEUE}; with --tools, leviath-tools-<host>-<workdir hash>)`,
      process.env.LEVIATH_TASK_QUEUE,
    )
    .option('--tools', 'serve only tool calls and seeds, for the workdir given with --workdir')
    .option('--workdir <dir>', 'with --tools: the workdir on this machine whose tool calls this worker runs')
    .option('--health', 'check that Temporal and the blob store answer and a worker of this host polls; exit 0 or 1')
    .action(async (flags: WorkerFlags) => {
      if (flags.tools && !flags.workdir)
        throw new LevError(
          'bad-input',
          '--tools serves the tool calls of one workdir; pass it with --workdir DIR (the same path the runs use).',
        );
      if (flags.workdir && !flags.tools)
        throw new LevError(
          'bad-input',
          '--workdir only applies to a tool worker; add --tools, or drop --workdir for a shared worker.',
        );
      const { toolQueueName } = await import('../../worker/tool-worker.js');
      const taskQueue =
        flags.taskQueue ?? (flags.tools && flags.workdir ? toolQueueName(flags.workdir) : DEFAULT_TASK_QUEUE);
      const { defaultRuntimeConfig } = await import('../../runtime/node/run-store.js');
      const runtime = defaultRuntimeConfig();
      if (flags.health) {
        const { workerHealth } = await import('../../worker/health.js');
        const checks = await workerHealth({ address: flags.address, namespace: flags.namespace, taskQueue, runtime });
        for (const c of checks) process.stdout.write(`${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.detail}\n`);
        if (checks.some((c) => !c.ok)) process.exitCode = 1;
        return;
      }
      const { bundleFromEnv, createWorker, installRuntime } = await import('../../worker/worker.js');
      const { workerSandboxNote } = await import('../../runtime/node/tool-context.js');
      const note = workerSandboxNote(process.env);
      if (note) process.stderr.write(`${note}\n`);
      installRuntime('INFO');
      const { createToolWorker } = await import('../../worker/tool-worker.js');
      const { worker, connection } =
        flags.tools && flags.workdir
          ? await createToolWorker({ ...flags, workdir: flags.workdir, taskQueue, runtime })
          : await createWorker({
              ...flags,
              taskQueue,
              runtime,
              ...bundleFromEnv(),
            });
      process.stdout.write(
        `${flags.tools ? `tool worker for ${flags.workdir}` : 'worker'} polling task queue "${taskQueue}" on ${flags.address} (namespace ${flags.namespace})\n`,
      );
      // Worker.run() already shuts down on SIGINT and SIGTERM: calls in flight are cancelled and handed back.
      try {
        await worker.run();
      } finally {
        await connection.close();
        await workerPool.closeAll();
      }
    });
}
