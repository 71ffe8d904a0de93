/**
 * What a run starts from, built one way for `lev run` (attached or detached),
 * `lev serve`'s `POST /api/runs` and the library's `start` (docs/library.md):
 * the blueprint loaded as `lev run` loads it (or one a program loaded), the
 * launch's model, output and approvals applied, the sandbox and the seeds
 * checked before anything is started (docs/reference/cli.md#running-and-steering-a-run).
 */
import { resolve } from 'node:path';
import { withModel } from '../blueprint/model-switch.js';
import { LevError } from '../errors.js';
import { notifyOption } from '../notify/config.js';
import { withLaunchOutput } from '../outputs/spec.js';
import { SUMMARY_BYTES } from '../runtime/details.js';
import { preflight } from '../runtime/node/seeding.js';
import { checkSandbox } from '../runtime/node/tool-context.js';
import { toolQueueName } from '../runtime/node/tool-queue-name.js';
import { checkWorkdir } from '../runtime/node/workdir.js';
import { DEFAULT_RUN_OPTIONS } from '../runtime/types.js';
import type { Blueprint } from '../shapes/frozen-blueprint.js';
import type { StartInput } from '../worker/run-client.js';
import { withApprovals } from './launch-flags.js';
import { blueprintArgument } from './load-blueprint.js';

/** The launch's choices, as flags, a request body or a program give them (values, not `@file`s). */
export interface Launch {
  task?: string;
  /** Named caller values (`--input key=value`). */
  caller: Record<string, string>;
  model?: string;
  /** Resolved against the current folder. */
  workdir: string;
  seedCommands: boolean;
  /** The task queue of a tool worker a person named: the workdir is on its machine, so its seeds are checked there. */
  toolQueue?: string;
  outputFormat?: string;
  outputInstructions?: string;
  outputSchema?: Record<string, unknown>;
  allow?: string[];
  yolo?: boolean;
  attended?: boolean;
  /** What people call the run: `lev ps` and the Web UI show it (docs/reference/cli.md#run-titles). */
  title?: string;
}

export interface LaunchOptions {
  /** Hears the sandbox's notes. */
  say: (line: string) => void;
  /** Leaves a blueprint's findings in the error instead of printing them (`lev serve`, a program). */
  quiet?: boolean;
  env?: NodeJS.ProcessEnv;
  /**
   * Without a named tool queue, tool calls go to the workdir's own tool queue (`lev run` hosts its
   * worker, `lev serve` leaves it to `lev worker --tools`); false keeps them on the run's queue,
   * which a program's own worker answers.
   */
  workdirToolQueue?: boolean;
}

/** A run's title, trimmed; one that is empty, spans lines or would not fit the Web UI's summary is `title-invalid`. */
export function checkTitle(title: string): string {
  const trimmed = title.trim();
  const problem =
    trimmed === ''
      ? 'is empty'
      : /[\r\n]/.test(trimmed)
        ? 'spans lines'
        : Buffer.byteLength(trimmed, 'utf8') > SUMMARY_BYTES
          ? `is over ${SUMMARY_BYTES} bytes`
          : undefined;
  if (problem)
    throw new LevError('title-invalid', `The run's title ${problem}; give one line of at most ${SUMMARY_BYTES} bytes.`);
  return trimmed;
}

/** The run's input from a blueprint argument (path, installed agent or pushed reference) or a loaded blueprint. */
export async function launchInput(
  blueprint: string | Blueprint,
  launch: Launch,
  opts: LaunchOptions,
): Promise<StartInput> {
  if (launch.yolo && launch.attended)
    throw new LevError('bad-input', '--yolo runs without a person and --attended with one; give only one of them.');
  const env = opts.env ?? process.env;
  const { task, caller, outputSchema: schema } = launch;
  const title = launch.title === undefined ? undefined : checkTitle(launch.title);
  const workdir = resolve(launch.workdir);
  checkWorkdir(workdir);
  let bp =
    typeof blueprint === 'string'
      ? await blueprintArgument(blueprint, { workdir, env, explain: opts.quiet !== true })
      : blueprint;
  if (launch.model) bp = withModel(bp, launch.model);
  bp = withLaunchOutput(bp, {
    ...(launch.outputFormat ? { format: launch.outputFormat } : schema ? { format: 'json' } : {}),
    ...(launch.outputInstructions ? { instructions: launch.outputInstructions } : {}),
    ...(schema ? { schema } : {}),
  });
  bp = withApprovals(bp, { ...(launch.yolo ? { yolo: true } : {}), allow: launch.allow ?? [] });
  checkSandbox(bp, env, opts.say, !launch.seedCommands);
  const toolTaskQueue = launch.toolQueue ?? (opts.workdirToolQueue === false ? undefined : toolQueueName(workdir));
  // With a remote tool worker the workdir is on its machine, so its seeds are checked there.
  if (!launch.toolQueue)
    preflight(
      bp,
      { caller, workdir, noSeedCommands: !launch.seedCommands, ...(task !== undefined ? { task } : {}) },
      env,
    );
  return {
    blueprint: bp,
    ...(title !== undefined ? { title } : {}),
    ...(task !== undefined ? { task } : {}),
    caller,
    workdir,
    options: {
      ...DEFAULT_RUN_OPTIONS,
      noSeedCommands: !launch.seedCommands,
      unattended: launch.attended !== true,
      ...(toolTaskQueue !== undefined ? { toolTaskQueue } : {}),
      ...notifyOption(bp, env),
    },
  };
}
