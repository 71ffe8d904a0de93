/**
 * The name of a workdir's tool queue, apart from the tool worker so the
 * activities (which resolve runs by reference) can name it without importing
 * the worker (docs/reference/long-runs.md#a-tool-worker-that-outlives-its-process).
 */
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { workdirQueue } from '../tool-queue.js';
import { readWorkdirIdentity, workdirIdentity } from './workdir-identity.js';

/**
 * `leviath-workdir-<identity>`: the same name wherever these files are
 * served from, whatever path or host reaches them. A workdir that cannot be
 * written keeps the host-named queue of earlier versions.
 */
export function toolQueueName(workdir: string, host = hostname()): string {
  const identity = workdirIdentity(workdir);
  return identity ? workdirQueue(identity) : hostToolQueueName(workdir, host);
}

/** `leviath-tools-<host>-<8 hex of the workdir path>`: the queue runs of earlier versions recorded. */
export function hostToolQueueName(workdir: string, host = hostname()): string {
  const safeHost = host.toLowerCase().replace(/[^a-z0-9.-]+/g, '-') || 'host';
  const digest = createHash('sha256').update(resolve(workdir)).digest('hex').slice(0, 8);
  return `leviath-tools-${safeHost}-${digest}`;
}

/** Whether a run's tool queue is one this host serves for the workdir: its identity's, or the host-named one. */
export function servesHere(workdir: string, taskQueue: string, host = hostname()): boolean {
  if (taskQueue === hostToolQueueName(workdir, host)) return true;
  const identity = readWorkdirIdentity(workdir);
  return identity !== undefined && taskQueue === workdirQueue(identity);
}
