/** `lev worker`: a worker alone, the unit docker-compose scales; `--tools` serves one workdir's tool calls. */
import { type Command, Option } from 'commander';
import { LevError } from '../../errors.js';
import { workerPool } from '../../mcp/pool.js';
import { DEFAULT_TASK_QUEUE } from '../../runtime/defaults.js';
import { LEVIATH_VERSION } from '../../version.js';
import { serverOptions } from '../options.js';

interface WorkerFlags {
  address: string;
  namespace: string;
  profile?: string;
  taskQueue?: string;
  metrics?: string;
  logFormat: 'text' | 'json';
  logLevel: 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  tools?: boolean;
  workdir?: string;
  health?: boolean;
  deployment?: string;
  buildId?: string;
}

export function registerWorker(program: Command): void {
  serverOptions(
    program
      .command('worker')
      .description(
        'Run a Leviath worker (workflows and activities) against a Temporal server until stopped; with --tools, only the tool calls and seeds of one workdir.',
      ),
  )
    .option(
      '--task-queue <name>',
      `task queue to poll (default: ${DEFAULT_TASK_QUEUE}; with --tools, leviath-workdir-<identity> of the workdir's .leviath/workdir-id)`,
      process.env.LEVIATH_TASK_QUEUE,
    )
    .option(
      '--metrics <host:port>',
      'serve Prometheus metrics (SDK Core and leviath_*) here (default: LEVIATH_METRICS_ADDRESS)',
    )
    .addOption(
      new Option('--log-format <format>', 'text, or json: one object a line with the run, stage and turn')
        .choices(['text', 'json'])
        .default('text'),
    )
    .addOption(
      new Option('--log-level <level>', 'the least severe level logged')
        .choices(['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'])
        .default('INFO'),
    )
    .option('--tools', 'serve only tool calls and seeds, for the workdir given with --workdir')
    .option('--workdir <dir>', 'with --tools: the workdir on this machine whose tool calls this worker runs')
    .option('--health', 'check that Temporal and the blob store answer and a worker of this host polls; exit 0 or 1')
    .option(
      '--deployment <name>',
      'serve one version of this Worker Deployment, runs pinned to it until they continue as new (default: LEVIATH_DEPLOYMENT; none: unversioned)',
    )
    .option('--build-id <id>', `the version's build id (default: LEVIATH_BUILD_ID, else ${LEVIATH_VERSION})`)
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
      const { toolQueueName } = await import('../../runtime/node/tool-queue-name.js');
      const taskQueue =
        flags.taskQueue ?? (flags.tools && flags.workdir ? toolQueueName(flags.workdir) : DEFAULT_TASK_QUEUE);
      const { defaultRuntimeConfig } = await import('../../runtime/node/run-store.js');
      const runtime = defaultRuntimeConfig();
      if (flags.health) {
        const { workerHealth } = await import('../../worker/health.js');
        const checks = await workerHealth({ ...flags, taskQueue, runtime });
        for (const c of checks) process.stdout.write(`${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.detail}\n`);
        if (checks.some((c) => !c.ok)) process.exitCode = 1;
        return;
      }
      const { checkToolWorkdir, createToolWorker } = await import('../../worker/tool-worker.js');
      if (flags.tools && flags.workdir) checkToolWorkdir(flags.workdir);
      // A stopped server, an unknown namespace or refused credentials: one coded line at once, not a stack trace.
      const { serverChoice, serverSettings } = await import('../../worker/connection.js');
      const { probeServer } = await import('../../worker/server-probe.js');
      await probeServer(serverSettings(serverChoice(flags), runtime.env));
      const { bundleFromEnv, createWorker, installRuntime } = await import('../../worker/create-worker.js');
      const { workerSandboxNote } = await import('../../runtime/node/tool-context.js');
      const note = workerSandboxNote(process.env);
      if (note) process.stderr.write(`${note}\n`);
      const { metricsAddress } = await import('../options.js');
      const metrics = metricsAddress(flags.metrics);
      installRuntime(flags.logLevel, { ...(metrics ? { metrics } : {}), logFormat: flags.logFormat });
      const { flushTracing, startTracing } = await import('../../telemetry/tracing.js');
      startTracing();
      const { workerDeployment } = await import('../../worker/deployment.js');
      const { stoppedWithoutKey } = await import('../../worker/key-stop.js');
      const deployment = {
        ...(flags.deployment !== undefined ? { deployment: flags.deployment } : {}),
        ...(flags.buildId !== undefined ? { buildId: flags.buildId } : {}),
      };
      const version = workerDeployment(deployment, runtime.env);
      const { worker, connection } =
        flags.tools && flags.workdir
          ? await createToolWorker({ ...flags, workdir: flags.workdir, taskQueue, runtime, deployment })
          : await createWorker({
              ...flags,
              taskQueue,
              runtime,
              deployment,
              ...bundleFromEnv(),
            });
      const serves = version ? `, version ${version.buildId} of deployment ${version.deploymentName}` : '';
      process.stdout.write(
        `${flags.tools ? `tool worker for ${flags.workdir}` : 'worker'} polling task queue "${taskQueue}" on ${flags.address} (namespace ${flags.namespace}${serves})\n`,
      );
      // Worker.run() already shuts down on SIGINT and SIGTERM: calls in flight are cancelled and handed back.
      try {
        await worker.run();
        const stopped = stoppedWithoutKey(worker);
        if (stopped) throw stopped;
      } finally {
        await connection.close();
        await flushTracing();
        await workerPool.closeAll();
      }
    });
}
