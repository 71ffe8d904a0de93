/**
 * Where a tool call or seed runs: on the run's tool task queue, served only
 * by a worker that sees the run's workdir (`lev run` in-process, or
 * `lev worker --tools --workdir DIR`). Without a tool queue the call stays on
 * the run's own queue. A workdir's own queue is named by its identity, not
 * by a host or a path (docs/reference/long-runs.md#a-tool-worker-that-outlives-its-process).
 * Pure: the workflows import it.
 */
import type { ActivityOptions } from '@temporalio/common';
import type { RunOptions } from './types.js';

/** Activity types that touch the workdir and so go to the tool queue. */
export const WORKDIR_ACTIVITIES = ['runTool', 'resolveSeeds'] as const;

export function onToolQueue(options: RunOptions, call: ActivityOptions): ActivityOptions {
  return options.toolTaskQueue ? { ...call, taskQueue: options.toolTaskQueue } : call;
}

/** The prefix of a queue named by a workdir's identity; the host-named queues of earlier versions start `leviath-tools-`. */
export const WORKDIR_QUEUE_PREFIX = 'leviath-workdir-';

/** The tool queue of the workdir with this identity (its `.leviath/workdir-id`). */
export function workdirQueue(identity: string): string {
  return `${WORKDIR_QUEUE_PREFIX}${identity}`;
}

export function isWorkdirQueue(taskQueue: string): boolean {
  return taskQueue.startsWith(WORKDIR_QUEUE_PREFIX) && taskQueue.length > WORKDIR_QUEUE_PREFIX.length;
}

/**
 * The command that serves a run's tool queue, run on the machine that holds
 * its workdir: a queue named by the workdir's identity needs only the
 * workdir; any other (a host-named queue of an earlier version, a queue a
 * person named with `--tool-queue`) is named too.
 */
export function toolWorkerCommand(workdir: string, taskQueue: string): string {
  const command = `lev worker --tools --workdir ${workdir}`;
  return isWorkdirQueue(taskQueue) ? command : `${command} --task-queue ${taskQueue}`;
}
