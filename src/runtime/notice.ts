/**
 * What a run's webhooks are told (docs/reference/cluster-runs.md#notifications):
 * the event, the run, its blueprint, status and cost, and the `lev` command
 * that answers. Pure: the run workflow builds the notice, the `notifyWebhook`
 * activity delivers it.
 */
import type { Notice, NotifyEvent, Webhook } from '../shapes/notify.js';
import { answerArguments } from './people/asks.js';
import type { PendingAsk } from './types.js';

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
  kind: 'approval' | 'answer' | 'checkpoint' | 'reply';
  call?: string;
  subject: string;
  /** A choice's labels, in order. */
  options?: string[];
  /** What follows the call id in the `lev answer` that answers it. */
  answer?: string;
}

export function questionOf(p: { asks: readonly PendingAsk[]; waiting?: string; stage: string }): Question | undefined {
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
      : q.kind === 'answer' || q.kind === 'checkpoint'
        ? `lev answer ${runId} ${q.call ?? ''} ${q.answer ?? '"…"'}`.replace('  ', ' ')
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
    at: opts.at.toISOString(),
  };
}
