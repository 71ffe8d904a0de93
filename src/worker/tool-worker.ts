/**
 * The tool worker: the only activities that touch a run's workdir (tool
 * calls and seeds), on a task queue named for this host and workdir. `lev
 * run` serves one in-process for its own workdir; `lev worker --tools
 * --workdir DIR` serves one on the machine that holds DIR. It refuses calls
 * for any other workdir, so a tool never runs where its workdir is not.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../../activities/index.js';
import { codecOption } from '../codec/payload-codec.js';
import { LevError } from '../errors.js';
import { DEFAULT_ACTIVITY_SLOTS, defaultRuntimeConfig, type RuntimeConfig } from '../runtime/node/run-store.js';
import { toolQueueName } from '../runtime/node/tool-queue-name.js';
import { connectOptions, type ServerChoice, serverSettings } from './connection.js';
import { type DeploymentChoice, versioningOptions, workerDeployment } from './deployment.js';
import { activityInterceptors, installRuntime } from './worker.js';

/** The workdir activities, refusing any call made for another workdir. */
export function workdirActivities(workdir: string, runtime: RuntimeConfig = defaultRuntimeConfig()) {
  const own = resolve(workdir);
  const all = createActivities(runtime);
  const mine = (requested: string) => {
    if (resolve(requested) !== own)
      throw ApplicationFailure.nonRetryable(
        `[tool-workdir-elsewhere] This tool worker serves the workdir ${own}, not ${requested}; start \`lev worker --tools --workdir ${requested}\` on the machine that holds it.`,
        'tool-workdir-elsewhere',
      );
  };
  return {
    async runTool(input: Parameters<typeof all.runTool>[0]) {
      mine(input.workdir);
      return all.runTool(input);
    },
    async discoverTools(input: Parameters<typeof all.discoverTools>[0]) {
      mine(input.workdir);
      return all.discoverTools(input);
    },
    async resolveSeeds(req: Parameters<typeof all.resolveSeeds>[0]) {
      mine(req.workdir);
      return all.resolveSeeds(req);
    },
  };
}

export interface ToolWorkerOptions extends ServerChoice {
  workdir: string;
  /** Defaults to `toolQueueName(workdir)`. */
  taskQueue?: string;
  identity?: string;
  runtime?: RuntimeConfig;
  /** The Worker Deployment version to serve, as the shared workers do (docs/reference/operating.md#safe-deploys). */
  deployment?: DeploymentChoice;
}

export async function createToolWorker(
  opts: ToolWorkerOptions,
): Promise<{ worker: Worker; connection: NativeConnection; taskQueue: string }> {
  const workdir = resolve(opts.workdir);
  if (!statSync(workdir, { throwIfNoEntry: false })?.isDirectory())
    throw new LevError(
      'workdir-missing',
      `The workdir ${workdir} is not a directory on this machine; a tool worker serves a workdir it can see, so create it or run the tool worker where it is.`,
    );
  installRuntime();
  const runtime = opts.runtime ?? defaultRuntimeConfig();
  const taskQueue = opts.taskQueue ?? toolQueueName(workdir);
  const server = serverSettings(opts, runtime.env);
  const connection = await NativeConnection.connect(connectOptions(server));
  const worker = await Worker.create({
    connection,
    namespace: server.namespace,
    taskQueue,
    activities: workdirActivities(workdir, runtime),
    maxConcurrentActivityTaskExecutions: runtime.activitySlots ?? DEFAULT_ACTIVITY_SLOTS,
    // As the shared worker: calls in flight go back at once on shutdown, the rest is bounded.
    shutdownForceTime: '5 seconds',
    ...(opts.identity ? { identity: opts.identity } : {}),
    ...codecOption(runtime.env),
    ...versioningOptions(workerDeployment(opts.deployment, runtime.env)),
    interceptors: { activity: activityInterceptors() },
  });
  return { worker, connection, taskQueue };
}
