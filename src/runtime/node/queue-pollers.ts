/**
 * Whether a tool worker polls a run's tool queue, as the Temporal server
 * sees it: how long ago it last saw each poller of the queue's activity
 * tasks. The run decides what that means (`checkToolWorker` in
 * `src/runtime/tool-patience.ts`); a worker that died stays listed for a few
 * minutes, with an age that only grows.
 */
import type { Client } from '@temporalio/client';

/** `TASK_QUEUE_TYPE_ACTIVITY` in Temporal's API. */
const ACTIVITY_QUEUE = 2;

export async function pollerAges(
  client: Pick<Client, 'workflowService'>,
  namespace: string,
  taskQueue: string,
  now = Date.now(),
): Promise<{ pollerAgesMs: number[] }> {
  const { pollers } = await client.workflowService.describeTaskQueue({
    namespace,
    taskQueue: { name: taskQueue },
    taskQueueType: ACTIVITY_QUEUE,
  });
  const pollerAgesMs = (pollers ?? []).map((p) => {
    const seen = p.lastAccessTime;
    const at = seen?.seconds ? Number(String(seen.seconds)) * 1000 + Math.floor((seen.nanos ?? 0) / 1e6) : 0;
    return Math.max(0, now - at);
  });
  return { pollerAgesMs };
}
