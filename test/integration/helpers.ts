/** Shared pieces for tests that talk to the real dev server. */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { inject } from 'vitest';
import type { Notice } from '../../src/shapes/webhooks.js';
import { createWorker } from '../../src/worker/create-worker.js';

/**
 * The dev server of this file's lane: integration files run two at a time
 * (vitest's pool workers), each lane on a dev server of its own, so one
 * file's runs, lists and metrics never show in another's.
 */
export function temporalAddress(): string {
  const addresses = inject('temporalAddresses');
  const lane = Number(process.env.VITEST_POOL_ID ?? 1) - 1;
  return addresses[lane % addresses.length] as string;
}

export async function connectClient(): Promise<{ client: Client; connection: Connection }> {
  const connection = await Connection.connect({ address: temporalAddress() });
  return { client: new Client({ connection }), connection };
}

/** A worker on its own task queue, so test files never steal each other's tasks. */
export async function startTestWorker(): Promise<{ worker: Worker; taskQueue: string; stop: () => Promise<void> }> {
  const taskQueue = `test-${randomUUID()}`;
  const { worker, connection } = await createWorker({
    address: temporalAddress(),
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

/** A local webhook receiver: each notice a run posts to `url` joins `notices`, in the order it came. */
export async function startNoticeReceiver(
  notices: Notice[],
  path = '/hook',
): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += String(d);
    });
    req.on('end', () => {
      notices.push(JSON.parse(body) as Notice);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
