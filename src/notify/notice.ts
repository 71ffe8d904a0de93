/**
 * What a run's webhooks are told (docs/reference/cluster-runs.md#notifications):
 * the event, the run, its blueprint, status and cost, and the `lev` command
 * that answers. Pure: the run workflow builds the notice, the `notifyWebhook`
 * activity delivers it.
 */

export const NOTIFY_EVENTS = ['completed', 'failed', 'cancelled', 'waiting'] as const;
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];

/** One `[[notify.webhooks]]` of the user config. */
export interface Webhook {
  url: string;
  /** The variable, on the worker that delivers, holding the HMAC secret; unset: deliveries are unsigned. */
  secretEnv?: string;
  /** The events it is sent; all of them unless the config lists some. */
  events: NotifyEvent[];
}

export interface Notice {
  /** The same on every attempt of one delivery, so a receiver can drop repeats. */
  deliveryId: string;
  event: NotifyEvent;
  runId: string;
  blueprint: string;
  /** The run's status: completed, failed, cancelled, or running while it waits. */
  status: string;
  /** Estimated dollars so far; null when a model has no price. */
  costUsd: number | null;
  /** The `lev` command that answers: the result, or the reply a person owes. */
  command: string;
  /** What the run failed with, for `failed`. */
  error?: string;
  /** What a person is asked, for `waiting`. */
  waiting?: { kind: 'approval' | 'answer' | 'reply'; call?: string; subject: string };
  /** When the event happened (workflow time), ISO 8601. */
  at: string;
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
