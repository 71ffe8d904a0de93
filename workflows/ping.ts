/**
 * The smallest round trip through a worker: a workflow that calls one
 * activity. `lev doctor` and the integration suite use it to prove the
 * server, the task queue and the worker are wired together.
 */
import { ping } from './activities.js';

export async function pingWorkflow(message: string): Promise<string> {
  return await ping(message);
}
