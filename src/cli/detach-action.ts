/**
 * `lev run --detach`: starts the run and returns at once with its id
 * (docs/reference/cluster-runs.md#detached-runs). This process hosts no worker and no
 * server: the cluster's workers run the workflow and the workdir's tool
 * worker (`lev worker --tools`) its tool calls, so a detached run needs a
 * server that outlives this command.
 */
import type { Client } from '@temporalio/client';
import { toolWorkerCommand } from '../runtime/tool-queue.js';
import { flushTracing, startTracing, tracingClientInterceptors } from '../telemetry/tracing.js';
import { type StartInput, startRun } from '../worker/run-client.js';
import { withClient } from './connect.js';

/** `TASK_QUEUE_TYPE_WORKFLOW` and `TASK_QUEUE_TYPE_ACTIVITY` in Temporal's API. */
const WORKFLOW_QUEUE = 1;
const ACTIVITY_QUEUE = 2;

export interface DetachFlags {
  address: string;
  namespace: string;
  profile?: string;
  taskQueue: string;
  json?: boolean;
  id?: string;
}

/** What `lev run --detach --json` prints. */
export interface Detached {
  runId: string;
  address: string;
  namespace: string;
  taskQueue: string;
  toolTaskQueue: string;
}

export async function startDetached(input: StartInput, flags: DetachFlags): Promise<Detached> {
  const toolTaskQueue = input.options.toolTaskQueue ?? '';
  // The start carries the trace context, so the workers trace the run (docs/reference/operating.md#traces).
  startTracing();
  try {
    return await started(input, flags, toolTaskQueue);
  } finally {
    await flushTracing();
  }
}

async function started(input: StartInput, flags: DetachFlags, toolTaskQueue: string): Promise<Detached> {
  return withClient(
    flags,
    async (client) => {
      const handle = await startRun(client, input, {
        taskQueue: flags.taskQueue,
        ...(flags.id ? { workflowId: flags.id } : {}),
      });
      const started: Detached = {
        runId: handle.workflowId,
        address: flags.address,
        namespace: flags.namespace,
        taskQueue: flags.taskQueue,
        toolTaskQueue,
      };
      if (flags.json) process.stdout.write(`${JSON.stringify(started)}\n`);
      else process.stdout.write(`${handle.workflowId}\n`);
      // The run is started either way; a missing worker only means it waits, which is worth saying now.
      for (const line of await missingWorkers(client, flags.namespace, flags.taskQueue, toolTaskQueue, input.workdir))
        process.stderr.write(`${line}\n`);
      if (!flags.json)
        process.stderr.write(
          `run ${handle.workflowId} started on ${flags.address}; \`lev result ${handle.workflowId} --wait\` waits for its answer, \`lev attach ${handle.workflowId}\` follows it\n`,
        );
      return started;
    },
    { interceptors: tracingClientInterceptors() },
  );
}

/** A sentence for each queue of the run that no worker polls now: the run waits there until one does. */
export async function missingWorkers(
  client: Client,
  namespace: string,
  taskQueue: string,
  toolTaskQueue: string,
  workdir: string,
): Promise<string[]> {
  const polled = async (name: string, type: number) => {
    try {
      const { pollers } = await client.workflowService.describeTaskQueue({
        namespace,
        taskQueue: { name },
        taskQueueType: type,
      });
      return (pollers ?? []).length > 0;
    } catch {
      // Not knowing is no reason to warn.
      return true;
    }
  };
  const lines: string[] = [];
  if (!(await polled(taskQueue, WORKFLOW_QUEUE)))
    lines.push(
      `no worker polls task queue ${taskQueue} yet; the run waits until one does (\`lev worker --task-queue ${taskQueue}\`)`,
    );
  if (toolTaskQueue && !(await polled(toolTaskQueue, ACTIVITY_QUEUE)))
    lines.push(
      `no tool worker polls ${toolTaskQueue} yet; its tool calls and seeds wait until one does (\`${toolWorkerCommand(workdir, toolTaskQueue)}\` where the workdir is)`,
    );
  return lines;
}
