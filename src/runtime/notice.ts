/**
 * What a run's webhooks are told (docs/reference/cluster-runs.md#notifications):
 * the event, the run, its blueprint, status and cost, and the `lev` command
 * that answers. Pure: the run workflow builds the notice, the `notifyWebhook`
 * activity delivers it.
 */
import type { Notice, NotifyEvent, Webhook } from '../shapes/webhooks.js';
import { utcMinute } from './details.js';
import { answerArguments } from './people/asks.js';
import { toolWorkerCommand } from './tool-queue.js';
import type { PendingAsk, ProviderWait, RunOptions, ToolWorkerAbsence } from './types.js';

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

/**
 * What the run waits for now, as its operators see it: the first ask, else the reply an
 * interactive stage waits for, else the tool worker of the workdir, which someone must start,
 * else a provider that is down (`since` tells one outage from the next).
 */
export interface Question {
  kind: 'approval' | 'answer' | 'checkpoint' | 'reply' | 'tool-worker-missing' | 'provider';
  call?: string;
  subject: string;
  /** A choice's labels, in order. */
  options?: string[];
  /** What follows the call id in the `lev answer` that answers it. */
  answer?: string;
  /** The tool worker the run waits for (docs/reference/long-runs.md#tool_worker_patience). */
  toolWorker?: ToolWorkerAbsence;
  since?: number;
}

export function questionOf(p: {
  asks: readonly PendingAsk[];
  waiting?: string;
  stage: string;
  toolWorker?: ToolWorkerAbsence;
  provider?: ProviderWait;
}): Question | undefined {
  const ask = p.asks[0];
  if (ask?.kind === 'approval') return { kind: ask.kind, call: ask.call, subject: ask.subject };
  if (ask)
    return {
      kind: ask.point !== undefined ? 'checkpoint' : 'answer',
      call: ask.call,
      subject: ask.subject,
      ...(ask.options ? { options: [...ask.options] } : {}),
      answer: answerArguments(ask),
    };
  if (p.waiting === 'message') return { kind: 'reply', subject: `a reply to the interactive stage "${p.stage}"` };
  const away = p.toolWorker;
  if (away)
    return {
      kind: 'tool-worker-missing',
      subject: `a tool worker for the workdir ${away.workdir} (task queue ${away.taskQueue}); the run fails at ${utcMinute(away.failsAt)} without one`,
      toolWorker: away,
    };
  if (p.provider)
    return {
      kind: 'provider',
      subject: `the provider "${p.provider.provider}" (${p.provider.model}) is unavailable: ${p.provider.error}`,
      since: p.provider.since,
    };
  return undefined;
}

/**
 * What a question is told under, once: an ask by its call, a missing tool worker by when it
 * went missing, a provider outage by when it began, a reply by the turn that asked for it.
 */
export function questionKey(q: Question, stage: string, inferences: number): string {
  if (q.call !== undefined) return `${q.kind}:${q.call}`;
  if (q.toolWorker) return `${q.kind}:${q.toolWorker.since}`;
  if (q.since !== undefined) return `${q.kind}:${q.since}`;
  return `${q.kind}:${stage}:${inferences}`;
}

/** Whether a person answers the question (an ask or a reply), rather than a tool worker or a provider coming back. */
export function asksAPerson(q: Question): boolean {
  return q.kind !== 'tool-worker-missing' && q.kind !== 'provider';
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
  const away = q.toolWorker;
  // A provider outage needs nobody: the run goes on by itself, and `lev show` says how it stands.
  const command = away
    ? toolWorkerCommand(away.workdir, away.taskQueue)
    : q.kind === 'approval'
      ? `lev approve ${runId} ${q.call ?? ''}`.trimEnd()
      : q.kind === 'answer' || q.kind === 'checkpoint'
        ? `lev answer ${runId} ${q.call ?? ''} ${q.answer ?? '"…"'}`.replace('  ', ' ')
        : q.kind === 'provider'
          ? `lev show ${runId}`
          : `lev msg ${runId} "…"`;
  return {
    deliveryId: opts.deliveryId,
    event: 'waiting',
    runId,
    blueprint: opts.blueprint,
    status: 'running',
    costUsd: opts.costUsd ?? null,
    command,
    waiting: {
      kind: q.kind,
      ...(q.call ? { call: q.call } : {}),
      subject: q.subject,
      ...(q.options ? { options: q.options } : {}),
    },
    ...(away ? { workdir: away.workdir } : {}),
    at: opts.at.toISOString(),
  };
}

/** How many of the questions told a run hands its next run when it continues as new. */
export const TOLD_CARRIED = 64;

/**
 * The questions told that a run hands its next run, so one still open is not told again: the
 * latest, since an older question was answered long ago and its key never comes back.
 */
export function toldCarried(told: Iterable<string>): string[] {
  return [...told].slice(-TOLD_CARRIED);
}
