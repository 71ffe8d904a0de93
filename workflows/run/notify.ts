/**
 * A run tells its webhooks of its end and of its questions (docs/reference/cluster-runs.md#notifications):
 * one `notifyWebhook` activity per webhook, retried with backoff, outside
 * the run's cancellation so a cancelled run still tells. A run started with
 * `RUN_NOTIFY_PATIENCE` hands each notice to a delivery workflow of its own,
 * which keeps trying for the webhook's patience after the run has ended; an
 * older run delivers itself, 8 attempts. A delivery that fails for good is
 * left at that: the run ends as it would have.
 */
import {
  ApplicationFailure,
  CancellationScope,
  condition,
  log,
  ParentClosePolicy,
  startChild,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { RunInput, RunOptions, RunResult } from '../../src/runtime/index.js';
import {
  deliveryRetry,
  deliveryWorkflowId,
  endNotice,
  questionKey,
  questionOf,
  subscribed,
  waitingNotice,
} from '../../src/runtime/notice.js';
import type { Notice, NotifyEvent, Webhook } from '../../src/shapes/webhooks.js';
import { activities, deliveryOptions, notifyOptions } from '../activities.js';
import type { AgentRun } from './run-steps.js';

/** One notice to one webhook, as the run hands it to its delivery workflow. */
interface Delivery {
  webhook: Webhook;
  notice: Notice;
}

/**
 * Delivers the notices of one event (docs/reference/cluster-runs.md#deliveries), each retried
 * with backoff until its webhook's patience runs out; answers how many were delivered.
 */
export async function notifyWorkflow(input: {
  deliveries: Delivery[];
  options: Pick<RunOptions, 'notifyBackoff'>;
}): Promise<{ delivered: number }> {
  const done = await Promise.all(
    input.deliveries.map(async ({ webhook, notice }) => {
      try {
        await activities.notifyWebhook.executeWithOptions(
          deliveryOptions(
            `notify ${notice.event}: ${new URL(webhook.url).host}`,
            deliveryRetry(webhook, input.options),
          ),
          [{ webhook, notice }],
        );
        return true;
      } catch (err) {
        log.warn('a webhook was not told of the run', { url: webhook.url, event: notice.event, error: String(err) });
        return false;
      }
    }),
  );
  return { delivered: done.filter(Boolean).length };
}

/** The webhooks of a run a person or a program started; a sub-agent's run tells none. */
export function runWebhooks(input: RunInput): boolean {
  return !input.child && (input.options.notify?.length ?? 0) > 0;
}

export async function notifyEnd(
  input: RunInput,
  blueprint: string,
  event: Exclude<NotifyEvent, 'waiting'>,
  outcome: { result?: Pick<Partial<RunResult>, 'cost'>; error?: unknown },
  patient: boolean,
): Promise<void> {
  const hooks = subscribed(input.options.notify, event);
  if (hooks.length === 0) return;
  const partial =
    outcome.result ??
    (outcome.error instanceof ApplicationFailure
      ? (outcome.error.details?.[0] as Partial<RunResult> | undefined)
      : undefined);
  const error = outcome.error instanceof Error ? outcome.error.message : undefined;
  await tell(input.options, hooks, event, patient, () =>
    endNotice({
      deliveryId: uuid4(),
      event,
      runId: workflowInfo().workflowId,
      blueprint,
      costUsd: partial?.cost?.usd ?? null,
      ...(error !== undefined ? { error } : {}),
      at: new Date(),
    }),
  );
}

/**
 * One delivery per webhook, each with its own id, outside the run's cancellation. A patient run
 * waits only for its delivery workflow to start; an older one for the deliveries, logging a
 * failure for good.
 */
async function tell(
  options: RunOptions,
  hooks: Webhook[],
  event: NotifyEvent,
  patient: boolean,
  notice: () => Notice,
): Promise<void> {
  if (patient) {
    const deliveries = hooks.map((webhook) => ({ webhook, notice: notice() }));
    await CancellationScope.nonCancellable(() =>
      startChild(notifyWorkflow, {
        workflowId: deliveryWorkflowId(workflowInfo().workflowId, event, uuid4()),
        args: [{ deliveries, options: options.notifyBackoff ? { notifyBackoff: options.notifyBackoff } : {} }],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        staticSummary: `notify ${event}: ${hooks.map((h) => new URL(h.url).host).join(', ')}`,
      }),
    );
    return;
  }
  await CancellationScope.nonCancellable(() =>
    Promise.all(
      hooks.map(async (webhook) => {
        try {
          await activities.notifyWebhook.executeWithOptions(
            notifyOptions(`notify ${event}: ${new URL(webhook.url).host}`),
            [{ webhook, notice: notice() }],
          );
        } catch (err) {
          log.warn('a webhook was not told of the run', { url: webhook.url, event, error: String(err) });
        }
      }),
    ),
  );
}

/**
 * Tells `waiting` each time a person is asked something new: an approval, an
 * answer, a reply to an interactive stage, or a tool worker for the workdir
 * (docs/reference/long-runs.md#tool_worker_patience); and once for each
 * provider outage a visit starts waiting out. It waits on the run's own
 * state, so watching records nothing until there is something to tell.
 */
export async function watchQuestions(run: AgentRun, patient: boolean): Promise<void> {
  const hooks = subscribed(run.input.options.notify, 'waiting');
  if (hooks.length === 0) return;
  // A question is told once: a visit's reports can pass through "nothing asked" and back, and
  // what was told comes along when the run continues as new (`NOTIFY_TOLD_CARRIED`).
  // A reply is told again only after a new inference asked for it.
  const told = run.book.told;
  const asked = () => {
    const stage = run.driver.stage;
    const question = questionOf({ ...run.operators.progress(), stage });
    if (!question) return undefined;
    const key = questionKey(question, stage, run.progress().inferences);
    return told.has(key) ? undefined : { key, question };
  };
  for (;;) {
    await condition(() => asked() !== undefined);
    const next = asked();
    if (!next) continue;
    told.add(next.key);
    const { question } = next;
    await tell(run.input.options, hooks, 'waiting', patient, () =>
      waitingNotice({
        deliveryId: uuid4(),
        runId: workflowInfo().workflowId,
        blueprint: run.bp.agent.name,
        question,
        at: new Date(),
      }),
    );
  }
}
