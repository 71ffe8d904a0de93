/**
 * What a run's webhooks are told (docs/reference/cluster-runs.md#notifications):
 * the event, the run, its blueprint, status and cost, and the `lev` command
 * that answers. Pure: the run workflow builds the notice, the `notifyWebhook`
 * activity delivers it.
 */
import type { Notice, NotifyEvent, Webhook } from '../shapes/notify.js';
import type { ProviderWait } from './types.js';

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
 * interactive stage waits for, else a provider that is down (`since` tells one outage from the next).
 */
export interface Question {
  kind: 'approval' | 'answer' | 'reply' | 'provider';
  call?: string;
  subject: string;
  since?: number;
}

export function questionOf(p: {
  asks: readonly { kind: 'approval' | 'answer'; call: string; subject: string }[];
  waiting?: string;
  stage: string;
  provider?: ProviderWait;
}): Question | undefined {
  const ask = p.asks[0];
  if (ask) return { kind: ask.kind, call: ask.call, subject: ask.subject };
  if (p.waiting === 'message') return { kind: 'reply', subject: `a reply to the interactive stage "${p.stage}"` };
  if (p.provider)
    return {
      kind: 'provider',
      subject: `the provider "${p.provider.provider}" (${p.provider.model}) is unavailable: ${p.provider.error}`,
      since: p.provider.since,
    };
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
  // A provider outage needs nobody: the run goes on by itself, and `lev show` says how it stands.
  const command =
    q.kind === 'approval'
      ? `lev approve ${runId} ${q.call ?? ''}`.trimEnd()
      : q.kind === 'answer'
        ? `lev answer ${runId} ${q.call ?? ''} "…"`.replace('  ', ' ')
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
    waiting: { kind: q.kind, ...(q.call ? { call: q.call } : {}), subject: q.subject },
    at: opts.at.toISOString(),
  };
}
