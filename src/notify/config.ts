/**
 * `[notify]` of the user config (docs/reference/cluster-runs.md#notifications):
 *
 *     [[notify.webhooks]]
 *     url = "https://hooks.example.com/leviath"
 *     secret_env = "LEVIATH_WEBHOOK_SECRET"
 *     events = ["completed", "failed", "cancelled"]
 *
 * Read beside `src/blueprint/user-config.ts`, which leaves other tables to
 * their readers.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'smol-toml';
import { userConfigPath } from '../blueprint/user-config.js';
import { LevError } from '../errors.js';
import { NOTIFY_EVENTS, type NotifyEvent, type Webhook } from './notice.js';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function bad(file: string, detail: string): never {
  throw new LevError(
    'notify-config-bad',
    `[notify] in ${file}: ${detail}; write [[notify.webhooks]] with url = "https://…", and optionally secret_env = "VAR" and events = ["completed", "failed", "cancelled", "waiting"].`,
  );
}

export function parseNotify(doc: Record<string, unknown>, file: string): Webhook[] {
  const notify = doc.notify;
  if (notify === undefined) return [];
  if (typeof notify !== 'object' || notify === null || Array.isArray(notify)) bad(file, 'it must be a table');
  const table = notify as Record<string, unknown>;
  for (const key of Object.keys(table)) if (key !== 'webhooks') bad(file, `"${key}" is not one of its keys`);
  const hooks = table.webhooks ?? [];
  if (!Array.isArray(hooks)) bad(file, '`webhooks` must be an array of tables');
  return hooks.map((raw, i) => {
    if (typeof raw !== 'object' || raw === null) bad(file, `webhook ${i + 1} is not a table`);
    const h = raw as Record<string, unknown>;
    for (const key of Object.keys(h))
      if (!['url', 'secret_env', 'events'].includes(key)) bad(file, `"${key}" is not a key of a webhook`);
    if (typeof h.url !== 'string' || !/^https?:\/\//.test(h.url)) bad(file, `webhook ${i + 1} needs an http(s) url`);
    if (h.secret_env !== undefined && (typeof h.secret_env !== 'string' || !ENV_NAME.test(h.secret_env)))
      bad(file, `secret_env of ${h.url} must be a variable name`);
    const events = h.events ?? [...NOTIFY_EVENTS];
    if (!Array.isArray(events) || events.some((e) => !(NOTIFY_EVENTS as readonly unknown[]).includes(e)))
      bad(file, `events of ${h.url} must be some of ${NOTIFY_EVENTS.join(', ')}`);
    return {
      url: h.url,
      ...(typeof h.secret_env === 'string' ? { secretEnv: h.secret_env } : {}),
      events: events as NotifyEvent[],
    };
  });
}

/** The webhooks of this machine's user config; none when it has no `[notify]` or no file. */
export function notifyConfig(env: NodeJS.ProcessEnv = process.env): Webhook[] {
  const file = userConfigPath(env);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  let doc: Record<string, unknown>;
  try {
    doc = parse(text.replace(/^\uFEFF/, ''));
  } catch {
    // Syntax errors are the user config's own reader's to report.
    return [];
  }
  return parseNotify(doc, file);
}

/** The run option that names this machine's webhooks, or nothing when there are none. */
export function notifyOption(env: NodeJS.ProcessEnv = process.env): { notify?: Webhook[] } {
  const hooks = notifyConfig(env);
  return hooks.length > 0 ? { notify: hooks } : {};
}
