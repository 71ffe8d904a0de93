/**
 * The smallest round trip through a worker: a workflow that calls one
 * activity. `lev doctor` and the integration suite use it to prove the
 * server, the task queue and the worker are wired together.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';

const { ping } = proxyActivities<Activities>({ startToCloseTimeout: '30 seconds' });

export async function pingWorkflow(message: string): Promise<string> {
  return await ping(message);
}
