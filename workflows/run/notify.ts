/**
 * A run tells its webhooks of its end (docs/reference/cluster-runs.md#notifications):
 * one `notifyWebhook` activity per webhook, retried with backoff, outside
 * the run's cancellation so a cancelled run still tells. A delivery that
 * fails for good is left at that: the run ends as it would have.
 */
import { ApplicationFailure, CancellationScope, condition, log, uuid4, workflowInfo } from '@temporalio/workflow';
import type { RunInput, RunResult } from '../../src/runtime/index.js';
import { endNotice, questionKey, questionOf, subscribed, waitingNotice } from '../../src/runtime/notice.js';
import type { Notice, NotifyEvent, Webhook } from '../../src/shapes/notify.js';
import { activities, notifyOptions } from '../activities.js';
import type { AgentRun } from './run-steps.js';

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
  await tell(hooks, event, () =>
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

/** One delivery per webhook, each with its own id, outside the run's cancellation; a failure for good is logged. */
async function tell(hooks: Webhook[], event: NotifyEvent, notice: () => Notice): Promise<void> {
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
export async function watchQuestions(run: AgentRun): Promise<void> {
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
    await tell(hooks, 'waiting', () =>
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
