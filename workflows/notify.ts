/**
 * A run tells its webhooks of its end (docs/reference/cluster-runs.md#notifications):
 * one `notifyWebhook` activity per webhook, retried with backoff, outside
 * the run's cancellation so a cancelled run still tells. A delivery that
 * fails for good is left at that: the run ends as it would have.
 */
import { ApplicationFailure, CancellationScope, log, uuid4, workflowInfo } from '@temporalio/workflow';
import { endNotice, type NotifyEvent, subscribed } from '../src/notify/notice.js';
import type { RunInput, RunResult } from '../src/runtime/index.js';
import { acts } from './engine-driver.js';

/** The webhooks of a run a person or a program started; a sub-agent's run tells none. */
export function runWebhooks(input: RunInput): boolean {
  return !input.child && (input.options.notify?.length ?? 0) > 0;
}

export async function notifyEnd(
  input: RunInput,
  blueprint: string,
  event: Exclude<NotifyEvent, 'waiting'>,
  outcome: { result?: Pick<Partial<RunResult>, 'cost'>; error?: unknown } = {},
): Promise<void> {
  const hooks = subscribed(input.options.notify, event);
  if (hooks.length === 0) return;
  const partial =
    outcome.result ??
    (outcome.error instanceof ApplicationFailure
      ? (outcome.error.details?.[0] as Partial<RunResult> | undefined)
      : undefined);
  const error = outcome.error instanceof Error ? outcome.error.message : undefined;
  await CancellationScope.nonCancellable(() =>
    Promise.all(
      hooks.map(async (webhook) => {
        const notice = endNotice({
          deliveryId: uuid4(),
          event,
          runId: workflowInfo().workflowId,
          blueprint,
          costUsd: partial?.cost?.usd ?? null,
          ...(error !== undefined ? { error } : {}),
          at: new Date(),
        });
        try {
          await acts.notifyWebhook.executeWithOptions(
            {
              startToCloseTimeout: '30 seconds',
              retry: {
                initialInterval: '1 second',
                backoffCoefficient: 2,
                maximumInterval: '30 seconds',
                maximumAttempts: 8,
              },
              summary: `notify ${event}: ${new URL(webhook.url).host}`,
            },
            [{ webhook, notice }],
          );
        } catch (err) {
          log.warn('a webhook was not told of the run', { url: webhook.url, event, error: String(err) });
        }
      }),
    ),
  );
}
