/**
 * What a run starts from, built one way for `lev run` (attached or detached)
 * and `lev serve`'s `POST /api/runs`: the blueprint loaded as `lev run` loads
 * it, the launch's output and approvals applied, the sandbox and the seeds
 * checked before anything is started (docs/reference/cli.md#running-and-steering-a-run).
 */
import { resolve } from 'node:path';
import { withModel } from '../blueprint/model-switch.js';
import { LevError } from '../errors.js';
import { notifyOption } from '../notify/config.js';
import { withLaunchOutput } from '../outputs/spec.js';
import { preflight } from '../runtime/node/seeding.js';
import { checkSandbox } from '../runtime/node/tool-context.js';
import { toolQueueName } from '../runtime/node/tool-queue-name.js';
import { checkWorkdir } from '../runtime/node/workdir.js';
import { DEFAULT_RUN_OPTIONS } from '../runtime/types.js';
import type { StartInput } from '../worker/run-client.js';
import { withApprovals } from './launch-flags.js';
import { blueprintArgument } from './load-blueprint.js';

/** The launch's choices, as flags or a request body give them (values, not `@file`s). */
export interface Launch {
  task?: string;
  /** Named caller values (`--input key=value`). */
  caller: Record<string, string>;
  model?: string;
  workdir: string;
  seedCommands: boolean;
  toolQueue?: string;
  outputFormat?: string;
  outputInstructions?: string;
  outputSchema?: Record<string, unknown>;
  allow?: string[];
  yolo?: boolean;
  attended?: boolean;
}

/**
 * The run's input from a blueprint argument (path, installed agent or pushed
 * reference). `quiet` leaves a blueprint's findings in the error instead of
 * printing them; `say` hears the sandbox's notes.
 */
export async function launchInput(
  path: string,
  launch: Launch,
  opts: { say: (line: string) => void; quiet?: boolean },
): Promise<StartInput> {
  if (launch.yolo && launch.attended)
    throw new LevError('bad-input', '--yolo runs without a person and --attended with one; give only one of them.');
  const { task, caller, outputSchema: schema } = launch;
  const workdir = resolve(launch.workdir);
  checkWorkdir(workdir);
  let bp = await blueprintArgument(path, { workdir, ...(opts.quiet ? { quiet: true } : {}) });
  if (launch.model) bp = withModel(bp, launch.model);
  bp = withLaunchOutput(bp, {
    ...(launch.outputFormat ? { format: launch.outputFormat } : schema ? { format: 'json' } : {}),
    ...(launch.outputInstructions ? { instructions: launch.outputInstructions } : {}),
    ...(schema ? { schema } : {}),
  });
  bp = withApprovals(bp, { ...(launch.yolo ? { yolo: true } : {}), allow: launch.allow ?? [] });
  checkSandbox(bp, process.env, opts.say, !launch.seedCommands);
  const toolTaskQueue = launch.toolQueue ?? toolQueueName(workdir);
  const input: StartInput = {
    blueprint: bp,
    ...(task !== undefined ? { task } : {}),
    caller,
    workdir,
    options: {
      ...DEFAULT_RUN_OPTIONS,
      noSeedCommands: !launch.seedCommands,
      unattended: launch.attended !== true,
      toolTaskQueue,
      ...notifyOption(bp),
    },
  };
  // With a remote tool worker the workdir is on its machine, so its seeds are checked there.
  if (!launch.toolQueue)
    preflight(
      bp,
      { caller, workdir, noSeedCommands: !launch.seedCommands, ...(task !== undefined ? { task } : {}) },
      process.env,
    );
  return input;
}
