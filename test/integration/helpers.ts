/** Shared pieces for tests that talk to the real dev server. */
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { inject } from 'vitest';
import { createWorker } from '../../src/worker/create-worker.js';

export async function connectClient(): Promise<{ client: Client; connection: Connection }> {
  const connection = await Connection.connect({ address: inject('temporalAddress') });
  return { client: new Client({ connection }), connection };
}

/** A worker on its own task queue, so test files never steal each other's tasks. */
export async function startTestWorker(): Promise<{ worker: Worker; taskQueue: string; stop: () => Promise<void> }> {
  const taskQueue = `test-${randomUUID()}`;
  const { worker, connection } = await createWorker({
    address: inject('temporalAddress'),
    taskQueue,
    bundle: { codePath: inject('workflowBundlePath') },
  });
  const running = worker.run();
  return {
    worker,
    taskQueue,
    stop: async () => {
      worker.shutdown();
      await running;
      await connection.close();
    },
  };
}
