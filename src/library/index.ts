/**
 * `import … from 'leviath'` (docs/library.md): the client, the worker factory,
 * the blueprint loader and validator, and the simulator. The Temporal SDK
 * loads on the first `connect` or worker, so a program that only checks
 * blueprints or simulates never loads it. `test/library/surface.test.ts`
 * pins what this exports: a change to it is a change to the package's API.
 */

import type { LeviathWorkerOptions } from '../worker/create-worker.js';
import type { ConnectOptions, LeviathClient } from './client.js';
import type { createLeviathWorker as createWorker, LeviathWorkerConfig } from './worker-factory.js';

export { formatDiagnostic, type SimulateOptions, type SimulateResult, simulate } from '../cli/simulate/index.js';
export type { SimOutput } from '../cli/simulate/output.js';
export { type Diagnostic, isLevError as isLeviathError, LevError as LeviathError, type Severity } from '../errors.js';
export type {
  Progress,
  RunResult,
} from '../runtime/types.js';
export type { Blueprint } from '../shapes/frozen-blueprint.js';
export type { LeviathWorkerOptions } from '../worker/create-worker.js';
export { type BlueprintOptions, type BlueprintReport, loadBlueprint, validateBlueprint } from './blueprints.js';
export type { ConnectOptions, LeviathClient, LeviathRun, StartOptions } from './client.js';
export type { LeviathWorkerConfig } from './worker-factory.js';

/** A client of the Temporal server the options (else the environment, else `temporal.toml`) name. */
export async function connect(opts: ConnectOptions = {}): Promise<LeviathClient> {
  return (await import('./client.js')).connect(opts);
}

/** What `Worker.create` takes for Leviath's workflows and activities, besides `connection` and `namespace`. */
export async function leviathWorkerOptions(config: LeviathWorkerConfig = {}): Promise<LeviathWorkerOptions> {
  return (await import('./worker-factory.js')).leviathWorkerOptions(config);
}

/** A Temporal worker of Leviath's workflows and activities, connected as `lev worker` connects. */
export async function createLeviathWorker(
  config: Parameters<typeof createWorker>[0] = {},
): ReturnType<typeof createWorker> {
  return (await import('./worker-factory.js')).createLeviathWorker(config);
}
