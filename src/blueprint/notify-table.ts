/**
 * The webhooks of a `[notify]` table, in a blueprint or the user config
 * (docs/reference/cluster-runs.md#the-notify-table): each reader reports
 * what is wrong its own way (a finding, a coded error).
 */
import { NOTIFY_EVENTS, type NotifyEvent, type Webhook } from '../shapes/webhooks.js';
import { parseDuration } from './duration.js';

/** The events a webhook may ask for. */
const EVENTS: readonly NotifyEvent[] = NOTIFY_EVENTS;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The webhooks of `[notify]`; `report` is called with a sentence for each problem, and the webhook is left out. */
export function readWebhooks(notify: unknown, report: (problem: string) => void): Webhook[] {
  if (notify === undefined) return [];
  if (typeof notify !== 'object' || notify === null || Array.isArray(notify)) {
    report('it must be a table');
    return [];
  }
  const table = notify as Record<string, unknown>;
  for (const key of Object.keys(table))
    if (key !== 'webhooks' && key !== 'patience') report(`"${key}" is not one of its keys`);
  let patienceSecs: number | undefined;
  if (table.patience !== undefined) {
    patienceSecs = typeof table.patience === 'string' ? parseDuration(table.patience) : undefined;
    if (patienceSecs === undefined) report('`patience` must be a duration such as "6h", "30m" or "1d"');
  }
  const hooks = table.webhooks ?? [];
  if (!Array.isArray(hooks)) {
    report('`webhooks` must be an array of tables');
    return [];
  }
  const out: Webhook[] = [];
  hooks.forEach((raw, i) => {
    const hook = webhookOf(raw, i);
    if (typeof hook === 'string') report(hook);
    else out.push(patienceSecs === undefined ? hook : { ...hook, patienceSecs });
  });
  return out;
}

/** One webhook of the array, or the sentence that says what is wrong with it. */
function webhookOf(raw: unknown, i: number): Webhook | string {
  if (typeof raw !== 'object' || raw === null) return `webhook ${i + 1} is not a table`;
  const h = raw as Record<string, unknown>;
  const unknown = Object.keys(h).filter((key) => !['url', 'secret_env', 'events'].includes(key));
  if (unknown.length > 0) return `"${unknown[0]}" is not a key of a webhook`;
  if (typeof h.url !== 'string' || !/^https?:\/\//.test(h.url)) return `webhook ${i + 1} needs an http(s) url`;
  if (h.secret_env !== undefined && (typeof h.secret_env !== 'string' || !ENV_NAME.test(h.secret_env)))
    return `secret_env of ${h.url} must be a variable name`;
  const events = h.events ?? [...EVENTS];
  if (!Array.isArray(events) || events.some((e) => !(EVENTS as readonly unknown[]).includes(e)))
    return `events of ${h.url} must be some of ${EVENTS.join(', ')}`;
  return {
    url: h.url,
    ...(typeof h.secret_env === 'string' ? { secretEnv: h.secret_env } : {}),
    events: events as NotifyEvent[],
  };
}

export const NOTIFY_EXAMPLE =
  '[[notify.webhooks]] with url = "https://…", and optionally secret_env = "VAR" and events = ["completed", "failed", "cancelled", "waiting"], beside [notify] patience = "6h"';
