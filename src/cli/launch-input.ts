/**
 * The input of a run a person or a program starts (`lev run`, `lev run
 * --detach`, the library's `start`, docs/library.md): the blueprint with the
 * approvals given at launch, checked where it starts: the sandbox a command
 * needs, and the seeds' paths when the workdir is served from here.
 */
import { notifyOption } from '../notify/config.js';
import { preflight } from '../runtime/node/seeding.js';
import { checkSandbox } from '../runtime/node/tool-context.js';
import { DEFAULT_RUN_OPTIONS } from '../runtime/types.js';
import type { Blueprint } from '../shapes/frozen-blueprint.js';
import type { StartInput } from '../worker/run-client.js';
import { type Approvals, withApprovals } from './launch-flags.js';

export interface Launch {
  task?: string;
  /** The run's named caller values (`--input key=value`). */
  caller: Record<string, string>;
  /** An absolute path. */
  workdir: string;
  seedCommands: boolean;
  attended: boolean;
  approvals: Approvals;
  /** The task queue of the workdir's tool worker; without one, tool calls go to the run's own queue. */
  toolTaskQueue?: string;
  /** The workdir is on another machine (a tool queue a person named), so its seeds are checked there. */
  workdirElsewhere?: boolean;
}

export function launchInput(
  blueprint: Blueprint,
  launch: Launch,
  env: NodeJS.ProcessEnv,
  warn: (line: string) => void,
): StartInput {
  const bp = withApprovals(blueprint, launch.approvals);
  checkSandbox(bp, env, warn, !launch.seedCommands);
  const { task, caller, workdir } = launch;
  if (!launch.workdirElsewhere)
    preflight(
      bp,
      { caller, workdir, noSeedCommands: !launch.seedCommands, ...(task !== undefined ? { task } : {}) },
      env,
    );
  return {
    blueprint: bp,
    ...(task !== undefined ? { task } : {}),
    caller,
    workdir,
    options: {
      ...DEFAULT_RUN_OPTIONS,
      noSeedCommands: !launch.seedCommands,
      unattended: !launch.attended,
      ...(launch.toolTaskQueue !== undefined ? { toolTaskQueue: launch.toolTaskQueue } : {}),
      ...notifyOption(bp, env),
    },
  };
}
