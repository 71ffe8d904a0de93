/**
 * A run input by reference made whole: the pushed blueprint it names, and
 * the options `lev run` would have chosen (docs/reference/cluster-runs.md#blueprints-by-reference).
 * The run workflow does this in its `resolveRunInput` activity; `lev run
 * <name@version>` resolves on the client instead.
 */
import { existsSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { isAbsolute } from 'node:path';
import { LevError } from '../errors.js';
import { notifyOption } from '../notify/config.js';
import { toolQueueName } from '../runtime/node/tool-queue-name.js';
import type { RefRunInput } from '../runtime/ref-input.js';
import { DEFAULT_RUN_OPTIONS, type RunInput } from '../runtime/types.js';
import type { Blueprint } from '../shapes/frozen-blueprint.js';
import type { BlueprintStore } from './pushed-blueprints.js';

const KEYS = new Set(['blueprint', 'task', 'workdir', 'inputs', 'toolQueue', 'attended']);

function bad(detail: string): never {
  throw new LevError(
    'run-input-bad',
    `${detail}; a run by reference takes { "blueprint": "name@version", "task": "…", "workdir": "/absolute/dir", "inputs": { "key": "value" } }.`,
  );
}

/** Refuses an input a person typed wrong, naming what is wrong. */
export function checkRefInput(input: RefRunInput): void {
  for (const key of Object.keys(input)) if (!KEYS.has(key)) bad(`"${key}" is not a key of a run's input`);
  if (typeof input.workdir !== 'string' || !isAbsolute(input.workdir)) bad('"workdir" must be an absolute path');
  if (input.task !== undefined && typeof input.task !== 'string') bad('"task" must be a string');
  if (input.toolQueue !== undefined && typeof input.toolQueue !== 'string') bad('"toolQueue" must be a string');
  if (input.attended !== undefined && typeof input.attended !== 'boolean') bad('"attended" must be true or false');
  const inputs = input.inputs ?? {};
  if (typeof inputs !== 'object' || Array.isArray(inputs)) bad('"inputs" must be an object of strings');
  for (const [key, value] of Object.entries(inputs))
    if (typeof value !== 'string') bad(`"inputs.${key}" must be a string`);
}

/**
 * The whole input; the webhooks are the blueprint's and those of the resolving worker's user config (`env`).
 * Its tool queue is the one named, else the workdir's own, which only a worker that sees the workdir can read.
 */
export async function runInputFromRef(
  store: BlueprintStore,
  input: RefRunInput,
  host = hostname(),
  env: NodeJS.ProcessEnv = process.env,
): Promise<RunInput & { blueprint: Blueprint }> {
  checkRefInput(input);
  const { bp } = await store.resolve(input.blueprint);
  if (input.toolQueue === undefined && !statSync(input.workdir, { throwIfNoEntry: false })?.isDirectory())
    bad(
      `"workdir" ${input.workdir} is not a directory on the worker that resolved the run, so its tool queue is unknown: name it with "toolQueue" (the queue \`lev worker --tools --workdir ${input.workdir}\` prints)`,
    );
  return {
    blueprint: bp,
    ...(input.task !== undefined ? { task: input.task } : {}),
    caller: input.inputs ?? {},
    workdir: input.workdir,
    options: {
      ...DEFAULT_RUN_OPTIONS,
      unattended: input.attended !== true,
      toolTaskQueue: input.toolQueue ?? toolQueueName(input.workdir, host),
      ...notifyOption(bp, env),
    },
  };
}

/** `lev run`'s argument: a blueprint on disk when the path exists or looks like one, else a pushed blueprint's reference. */
export function isStoredRef(arg: string): boolean {
  return !existsSync(arg) && !/[\\/]/.test(arg) && !arg.endsWith('.toml') && arg !== '.' && arg !== '..';
}
