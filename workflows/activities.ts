/**
 * The workflows' one door to the activities: every proxy, and the options
 * each kind of call runs with (timeouts, attempts, task queue). A call site
 * picks the kind of call and names it (the summary the Web UI shows); the
 * policy of each kind lives here, so changing a timeout or a retry count is
 * one edit (`test/folders.test.ts` keeps the proxies in this file).
 */
import {
  type ActivityOptions,
  type LocalActivityOptions,
  proxyActivities,
  proxyLocalActivities,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { DeliveryRetry, RunOptions } from '../src/runtime/index.js';
import { INFERENCE_RETRY, LOCAL_RETRY_THRESHOLD_MS, localScheduleToCloseMs } from '../src/runtime/inference-shape.js';
import { onToolQueue } from '../src/runtime/tool-queue.js';

/** Activity handles; every call passes its own options (below) so the Web UI shows what it was. */
export const activities = proxyActivities<Activities>({ startToCloseTimeout: '1 minute' });
/** Local activity handles: short steps the workflow's own worker runs, recorded as one marker each. */
export const localActivities = proxyLocalActivities<Activities>({ startToCloseTimeout: '30 seconds' });
/** `pingWorkflow`'s one activity, called plainly with its own timeout. */
export const { ping } = proxyActivities<Activities>({ startToCloseTimeout: '30 seconds' });

/**
 * Options for a call that may take as long as a model does (an inference, a
 * cut, a snapshot). The heartbeat timeout is what lets another worker retry
 * a call whose worker died.
 */
export function callOptions(options: RunOptions, summary: string, maximumAttempts = 8): ActivityOptions {
  return {
    startToCloseTimeout: `${options.inferenceTimeoutSecs} seconds`,
    heartbeatTimeout: `${options.heartbeatTimeoutSecs} seconds`,
    retry: {
      initialInterval: INFERENCE_RETRY.initialIntervalMs,
      backoffCoefficient: INFERENCE_RETRY.backoffCoefficient,
      maximumInterval: INFERENCE_RETRY.maximumIntervalMs,
      maximumAttempts,
    },
    summary,
  };
}

/**
 * An inference as a local activity (`src/runtime/inference-shape.ts`): the same attempts, timeout and
 * backoff as `callOptions`, no heartbeat (a dead worker's call is taken up when its workflow task times
 * out), a bound on all attempts together, and long backoffs on workflow timers.
 */
export function localCallOptions(options: RunOptions, summary: string, maximumAttempts = 8): LocalActivityOptions {
  const attemptMs = options.inferenceTimeoutSecs * 1000;
  const { retry } = callOptions(options, summary, maximumAttempts);
  return {
    startToCloseTimeout: attemptMs,
    scheduleToCloseTimeout: localScheduleToCloseMs(attemptMs, maximumAttempts),
    localRetryThreshold: LOCAL_RETRY_THRESHOLD_MS,
    ...(retry ? { retry } : {}),
    summary,
  };
}

/**
 * A step that may be long but whose failure a person should see soon: a
 * summary, a fan-out report, a message to an agent. Three attempts.
 */
export function stepOptions(options: RunOptions, summary: string): ActivityOptions {
  return callOptions(options, summary, 3);
}

/** A tool call or seed: a step, on the run's tool queue when it has one (`src/runtime/tool-queue.ts`). */
export function toolOptions(options: RunOptions, summary: string): ActivityOptions {
  return onToolQueue(options, stepOptions(options, summary));
}

/** A short read or write of the blob store: a minute, the default retries. */
export function quickOptions(summary: string): ActivityOptions {
  return { startToCloseTimeout: '1 minute', summary };
}

/** Resolving a run's blueprint reference: a bad or unknown one fails the run after a few tries. */
export function referenceOptions(summary: string): ActivityOptions {
  return { ...quickOptions(summary), retry: { maximumAttempts: 3 } };
}

/** Telling a webhook in a run recorded before `RUN_NOTIFY_PATIENCE`: backed off up to 30 s, 8 attempts. */
export function notifyOptions(summary: string): ActivityOptions {
  return {
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 8 },
    summary,
  };
}

/**
 * Telling a webhook from a delivery workflow: every attempt 30 s at most, backed off from the first
 * wait to the longest, until the webhook's patience runs out (docs/reference/cluster-runs.md#deliveries).
 */
export function deliveryOptions(summary: string, retry: DeliveryRetry): ActivityOptions {
  return {
    startToCloseTimeout: '30 seconds',
    scheduleToCloseTimeout: retry.patienceMs,
    retry: {
      initialInterval: retry.firstWaitMs,
      backoffCoefficient: 2,
      // No count of attempts: the patience (schedule-to-close) is the bound.
      maximumInterval: retry.longestWaitMs,
    },
    summary,
  };
}

/** Counting a text's tokens, as a local activity. */
export function countOptions(): ActivityOptions {
  return { startToCloseTimeout: '30 seconds', summary: 'count tokens' };
}
