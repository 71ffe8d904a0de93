/**
 * The name of a workdir's tool queue, apart from the tool worker so the
 * activities (which resolve runs by reference) can name it without importing
 * the worker.
 */
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { resolve } from 'node:path';

/** `leviath-tools-<host>-<8 hex of the workdir path>`: the same name whenever this host serves this workdir again. */
export function toolQueueName(workdir: string, host = hostname()): string {
  const safeHost = host.toLowerCase().replace(/[^a-z0-9.-]+/g, '-') || 'host';
  const digest = createHash('sha256').update(resolve(workdir)).digest('hex').slice(0, 8);
  return `leviath-tools-${safeHost}-${digest}`;
}
