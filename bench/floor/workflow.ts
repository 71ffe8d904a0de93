/**
 * Temporal's own floor for a turn (`npm run bench -- floor`): a workflow that
 * makes one activity call per turn, or one local activity call, and nothing
 * else. No context, no blobs, no spans: what any agent on Temporal pays.
 */
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type * as activities from './activities.js';

const options = { startToCloseTimeout: '1 minute' } as const;
const remote = proxyActivities<typeof activities>(options);
const local = proxyLocalActivities<typeof activities>(options);

/** Calls the model until it answers without a tool call; returns the turns taken. */
export async function floorWorkflow(agent: number, maxTurns: number, useLocal: boolean): Promise<number> {
  const { floorInfer } = useLocal ? local : remote;
  for (let turn = 0; turn < maxTurns; turn++) if (await floorInfer(agent, turn)) return turn + 1;
  return maxTurns;
}
