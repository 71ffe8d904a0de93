/**
 * Where a tool call or seed runs: on the run's tool task queue, served only
 * by a worker that sees the run's workdir (`lev run` in-process, or
 * `lev worker --tools --workdir DIR`). Without a tool queue the call stays on
 * the run's own queue. Pure: the workflows import it.
 */
import type { ActivityOptions } from '@temporalio/common';
import type { RunOptions } from './types.js';

/** Activity types that touch the workdir and so go to the tool queue. */
export const WORKDIR_ACTIVITIES = ['runTool', 'resolveSeeds'] as const;

export function onToolQueue(options: RunOptions, call: ActivityOptions): ActivityOptions {
  return options.toolTaskQueue ? { ...call, taskQueue: options.toolTaskQueue } : call;
}
