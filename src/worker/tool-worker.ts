/**
 * The tool worker: the only activities that touch a run's workdir (tool
 * calls and seeds), on the task queue named by the workdir's identity. `lev
 * run` serves one in-process for its own workdir; `lev worker --tools
 * --workdir DIR` serves one on the machine that holds DIR, at whatever path
 * it has there (docs/reference/long-runs.md#a-tool-worker-that-outlives-its-process).
 * It refuses calls for any other workdir, so a tool never runs where its
 * workdir is not.
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
import { readWorkdirIdentity } from '../runtime/node/workdir-identity.js';
import { workdirQueue } from '../runtime/tool-queue.js';
import { connectOptions, type ServerChoice, serverSettings } from './connection.js';
import { activityInterceptors, installRuntime } from './create-worker.js';
import { type DeploymentChoice, versioningOptions, workerDeployment } from './deployment.js';
import { stopWithoutKey } from './key-stop.js';

/**
 * The workdir activities, refusing any call made for another workdir. On
 * the queue of the workdir's identity a call is for these files whatever
 * path its run names them by, and runs here at this worker's path; on any
 * other queue (host-named, or one a person named) the paths must match.
 */
export function workdirActivities(
  workdir: string,
  runtime: RuntimeConfig = defaultRuntimeConfig(),
  taskQueue?: string,
) {
  const own = resolve(workdir);
  const identity = readWorkdirIdentity(own);
  const byIdentity = identity !== undefined && taskQueue === workdirQueue(identity);
  const all = createActivities(runtime);
  const otherIdentity = (path: string): string | undefined => {
    const there = statSync(path, { throwIfNoEntry: false })?.isDirectory() ? readWorkdirIdentity(path) : undefined;
    return there !== undefined && there !== identity ? there : undefined;
  };
  const mine = (requested: string): string => {
    const asked = resolve(requested);
    if (asked === own) return own;
    // A path the run names that holds other files here is another workdir, whatever the queue says.
    if (byIdentity && otherIdentity(asked) === undefined) return own;
    throw ApplicationFailure.nonRetryable(
      `[tool-workdir-elsewhere] This tool worker serves the workdir ${own}, not ${requested}; start \`lev worker --tools --workdir ${requested}\` on the machine that holds it.`,
      'tool-workdir-elsewhere',
    );
  };
  return {
    async runTool(input: Parameters<typeof all.runTool>[0]) {
      return all.runTool({ ...input, workdir: mine(input.workdir) });
    },
    async discoverTools(input: Parameters<typeof all.discoverTools>[0]) {
      return all.discoverTools({ ...input, workdir: mine(input.workdir) });
    },
    async resolveSeeds(req: Parameters<typeof all.resolveSeeds>[0]) {
      return all.resolveSeeds({ ...req, workdir: mine(req.workdir) });
    },
  };
}

export interface ToolWorkerOptions extends ServerChoice {
  workdir: string;
  /** Defaults to `toolQueueName(workdir)`, the queue of the workdir's identity. */
  taskQueue?: string;
  identity?: string;
  runtime?: RuntimeConfig;
  /** The Worker Deployment version to serve, as the shared workers do (docs/reference/operating.md#safe-deploys). */
  deployment?: DeploymentChoice;
}

/** The workdir a tool worker serves, as an absolute path; refused when this machine has no such directory. */
export function checkToolWorkdir(dir: string): string {
  const workdir = resolve(dir);
  if (!statSync(workdir, { throwIfNoEntry: false })?.isDirectory())
    throw new LevError(
      'workdir-missing',
      `The workdir ${workdir} is not a directory on this machine; a tool worker serves a workdir it can see, so create it or run the tool worker where it is.`,
    );
  return workdir;
}

export async function createToolWorker(
  opts: ToolWorkerOptions,
): Promise<{ worker: Worker; connection: NativeConnection; taskQueue: string }> {
  const workdir = checkToolWorkdir(opts.workdir);
  installRuntime();
  const runtime = opts.runtime ?? defaultRuntimeConfig();
  const taskQueue = opts.taskQueue ?? toolQueueName(workdir);
  const server = serverSettings(opts, runtime.env);
  const connection = await NativeConnection.connect(connectOptions(server));
  const keyStop = stopWithoutKey();
  const worker = await Worker.create({
    connection,
    namespace: server.namespace,
    taskQueue,
    activities: workdirActivities(workdir, runtime, taskQueue),
    maxConcurrentActivityTaskExecutions: runtime.activitySlots ?? DEFAULT_ACTIVITY_SLOTS,
    // As the shared worker: calls in flight go back at once on shutdown, the rest is bounded.
    shutdownForceTime: '5 seconds',
    ...(opts.identity ? { identity: opts.identity } : {}),
    ...codecOption(runtime.env, keyStop.onMissing),
    ...versioningOptions(workerDeployment(opts.deployment, runtime.env)),
    interceptors: { activity: activityInterceptors() },
  });
  keyStop.attach(worker);
  return { worker, connection, taskQueue };
}
