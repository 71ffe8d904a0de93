/**
 * What a run's webhooks are told (docs/reference/cluster-runs.md#notifications):
 * the event, the run, its blueprint, status and cost, and the `lev` command
 * that answers. Pure: the run workflow builds the notice, the `notifyWebhook`
 * activity delivers it.
 */
import type { Notice, NotifyEvent, Webhook } from '../shapes/notify.js';
import type { RunOptions } from './types.js';

/** How long a delivery keeps trying unless `[notify] patience` says otherwise: six hours. */
export const DEFAULT_NOTIFY_PATIENCE_SECS = 6 * 3_600;
/** The first wait between two attempts of a delivery; it doubles up to `NOTIFY_LONGEST_WAIT_MS`. */
export const NOTIFY_FIRST_WAIT_MS = 1_000;
/** The longest wait between two attempts, so a receiver that comes back is told within five minutes. */
export const NOTIFY_LONGEST_WAIT_MS = 5 * 60_000;

/** How one delivery is retried (docs/reference/cluster-runs.md#deliveries): for `patienceMs` in all, backing off. */
export interface DeliveryRetry {
  patienceMs: number;
  firstWaitMs: number;
  longestWaitMs: number;
}

/** The retry of a delivery to `hook`: its table's patience, and the run's backoff when tests shorten it. */
export function deliveryRetry(
  hook: Pick<Webhook, 'patienceSecs'>,
  options: Pick<RunOptions, 'notifyBackoff'>,
): DeliveryRetry {
  const backoff = options.notifyBackoff;
  return {
    patienceMs: (hook.patienceSecs ?? DEFAULT_NOTIFY_PATIENCE_SECS) * 1000,
    firstWaitMs: backoff?.firstWaitMs ?? NOTIFY_FIRST_WAIT_MS,
    longestWaitMs: backoff?.longestWaitMs ?? NOTIFY_LONGEST_WAIT_MS,
  };
}

/**
 * The workflow id of the deliveries of one notice: beside the run's visits (`<run>.<n>.<stage>`),
 * never one of them, and one per notice, so a run id used again never meets an older delivery.
 */
export function deliveryWorkflowId(runId: string, event: NotifyEvent, deliveryId: string): string {
  return `${runId}.notify-${event}-${deliveryId.slice(0, 8)}`;
}

export function endNotice(opts: {
  deliveryId: string;
  event: Exclude<NotifyEvent, 'waiting'>;
  runId: string;
  blueprint: string;
  costUsd?: number | null;
  error?: string;
  at: Date;
}): Notice {
  return {
    deliveryId: opts.deliveryId,
    event: opts.event,
    runId: opts.runId,
    blueprint: opts.blueprint,
    status: opts.event,
    costUsd: opts.costUsd ?? null,
    command: opts.event === 'completed' ? `lev result ${opts.runId}` : `lev show ${opts.runId}`,
    ...(opts.error !== undefined ? { error: opts.error } : {}),
    at: opts.at.toISOString(),
  };
}

/** The webhooks of a run that want this event. */
export function subscribed(hooks: readonly Webhook[] | undefined, event: NotifyEvent): Webhook[] {
  return (hooks ?? []).filter((h) => h.events.includes(event));
}

/** What a person is asked now, as the run's operators see it: the first ask, else the reply an interactive stage waits for. */
export interface Question {
  kind: 'approval' | 'answer' | 'reply';
  call?: string;
  subject: string;
}

export function questionOf(p: {
  asks: readonly { kind: 'approval' | 'answer'; call: string; subject: string }[];
  waiting?: string;
  stage: string;
}): Question | undefined {
  const ask = p.asks[0];
  if (ask) return { kind: ask.kind, call: ask.call, subject: ask.subject };
  if (p.waiting === 'message') return { kind: 'reply', subject: `a reply to the interactive stage "${p.stage}"` };
  return undefined;
}

export function waitingNotice(opts: {
  deliveryId: string;
  runId: string;
  blueprint: string;
  question: Question;
  costUsd?: number | null;
  at: Date;
}): Notice {
  const { runId, question: q } = opts;
  const command =
    q.kind === 'approval'
      ? `lev approve ${runId} ${q.call ?? ''}`.trimEnd()
      : q.kind === 'answer'
        ? `lev answer ${runId} ${q.call ?? ''} "…"`.replace('  ', ' ')
        : `lev msg ${runId} "…"`;
  return {
    deliveryId: opts.deliveryId,
    event: 'waiting',
    runId,
    blueprint: opts.blueprint,
    status: 'running',
    costUsd: opts.costUsd ?? null,
    command,
    waiting: { kind: q.kind, ...(q.call ? { call: q.call } : {}), subject: q.subject },
    at: opts.at.toISOString(),
  };
}
