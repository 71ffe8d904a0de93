/**
 * Leviath's workflows and activities in a program's own Temporal worker
 * (docs/library.md#the-worker): the options `Worker.create` takes, or a
 * worker made as `lev worker` makes one (`src/worker/create-worker.ts`).
 */
import { resolve } from 'node:path';
import type { NativeConnection, Worker } from '@temporalio/worker';
import { defaultRuntimeConfig, type RuntimeConfig } from '../runtime/node/run-store.js';
import { bundleFromEnv, createWorker, leviathWorkerOptions as workerOptions } from '../worker/create-worker.js';

export interface LeviathWorkerConfig {
  /** The task queue runs are started on; `leviath` by default. */
  taskQueue?: string;
  /** The folder of the local blob store; `LEVIATH_BLOB_DIR`, else `blobs/` in the Leviath home. */
  blobDir?: string;
  /**
   * The workflow bundle, as code or a path; else `LEVIATH_BUNDLE`, else the one the
   * build made beside the package, else bundled now (seconds of CPU).
   */
  bundle?: { code: string } | { codePath: string };
  identity?: string;
  /** The environment activities run with (provider keys, `LEVIATH_*`, the user config); `process.env` by default. */
  env?: NodeJS.ProcessEnv;
}

function runtimeOf(config: LeviathWorkerConfig): RuntimeConfig {
  const runtime = defaultRuntimeConfig(config.env ?? process.env);
  return config.blobDir ? { ...runtime, blobDir: resolve(config.blobDir) } : runtime;
}

function choiceOf(config: LeviathWorkerConfig) {
  const bundle = config.bundle ?? bundleFromEnv(config.env ?? process.env).bundle;
  return {
    runtime: runtimeOf(config),
    ...(config.taskQueue ? { taskQueue: config.taskQueue } : {}),
    ...(bundle ? { bundle } : {}),
    ...(config.identity ? { identity: config.identity } : {}),
  };
}

/**
 * What `Worker.create` takes for Leviath besides `connection` and `namespace`: the
 * workflow bundle, the activities, their interceptors, the payload codec and the task queue.
 */
export function leviathWorkerOptions(config: LeviathWorkerConfig = {}) {
  return workerOptions(choiceOf(config));
}

/**
 * A worker connected as `lev worker` connects (address, namespace and profile, else the
 * environment and `temporal.toml`); `worker.run()` serves until `worker.shutdown()`, then
 * close `connection`.
 */
export function createLeviathWorker(
  config: LeviathWorkerConfig & { address?: string; namespace?: string; profile?: string } = {},
): Promise<{ worker: Worker; connection: NativeConnection }> {
  return createWorker({
    ...choiceOf(config),
    ...(config.address ? { address: config.address } : {}),
    ...(config.namespace ? { namespace: config.namespace } : {}),
    ...(config.profile ? { profile: config.profile } : {}),
  });
}
