/**
 * `lev worker --health`: the checks a container healthcheck runs next to a
 * worker on the same host. Temporal answers, a worker of this host polled
 * the task queue lately (long polls restart at least once a minute), and
 * the blob store answers.
 */
import { hostname } from 'node:os';
import { Client, Connection } from '@temporalio/client';
import { hashText, openBlobStore, PostgresBlobStore, parseBlobSpec } from '../blobs/index.js';
import { codecOption } from '../codec/payload-codec.js';
import { LevError } from '../errors.js';
import type { RuntimeConfig } from '../runtime/node/run-store.js';
import { connectOptions, serverSettings } from './connection.js';
import { probeServer } from './server-probe.js';

/** `TASK_QUEUE_TYPE_ACTIVITY` in Temporal's API; every Leviath worker polls activities. */
const ACTIVITY_QUEUE = 2;
/** A poll older than this means the worker on this host stopped polling. */
const POLL_FRESH_MS = 120_000;

export interface HealthCheck {
  name: 'temporal' | 'poller' | 'blobs';
  ok: boolean;
  detail: string;
}

export async function workerHealth(opts: {
  address: string;
  namespace: string;
  profile?: string;
  taskQueue: string;
  runtime: RuntimeConfig;
  host?: string;
  now?: number;
}): Promise<HealthCheck[]> {
  const checks: HealthCheck[] = [];
  const host = opts.host ?? hostname();
  let connection: Connection | undefined;
  try {
    const settings = serverSettings(opts, opts.runtime.env);
    await probeServer(settings);
    connection = await Connection.connect({ ...connectOptions(settings), connectTimeout: '5 seconds' });
    checks.push({ name: 'temporal', ok: true, detail: `Temporal answers at ${opts.address}` });
    const client = new Client({ connection, namespace: opts.namespace, ...codecOption() });
    const { pollers } = await client.workflowService.describeTaskQueue({
      namespace: opts.namespace,
      taskQueue: { name: opts.taskQueue },
      taskQueueType: ACTIVITY_QUEUE,
    });
    const now = opts.now ?? Date.now();
    const mine = (pollers ?? []).filter((p) => (p.identity ?? '').endsWith(`@${host}`));
    const fresh = mine.some((p) => {
      const seconds = p.lastAccessTime?.seconds;
      return seconds != null && now - Number(String(seconds)) * 1000 < POLL_FRESH_MS;
    });
    checks.push({
      name: 'poller',
      ok: fresh,
      detail: fresh
        ? `a worker on ${host} polls task queue ${opts.taskQueue}`
        : `no worker on ${host} polled task queue ${opts.taskQueue} in the last ${POLL_FRESH_MS / 1000} s`,
    });
  } catch (err) {
    const code = err instanceof LevError ? `[${err.code}] ` : '';
    checks.push({
      name: 'temporal',
      ok: false,
      detail: `${code}Temporal at ${opts.address}: ${(err as Error).message}`,
    });
  } finally {
    await connection?.close();
  }
  const spec = parseBlobSpec(opts.runtime.blobs, opts.runtime.blobDir);
  const store = openBlobStore(spec, 1);
  try {
    await store.has(hashText(''));
    checks.push({ name: 'blobs', ok: true, detail: `the ${spec.kind} blob store answers` });
  } catch (err) {
    checks.push({ name: 'blobs', ok: false, detail: `the ${spec.kind} blob store: ${(err as Error).message}` });
  } finally {
    if (store instanceof PostgresBlobStore) await store.close();
  }
  return checks;
}
