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
import { NOTIFY_EXAMPLE, readWebhooks } from '../blueprint/notify-table.js';
import { LevError } from '../errors.js';
import type { Blueprint } from '../shapes/frozen-blueprint.js';
import type { Webhook } from '../shapes/webhooks.js';
import { userConfigPath } from '../state/locations.js';

export function parseNotify(doc: Record<string, unknown>, file: string): Webhook[] {
  return readWebhooks(doc.notify, (problem) => {
    throw new LevError('notify-config-bad', `[notify] in ${file}: ${problem}; write ${NOTIFY_EXAMPLE}.`);
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

/** The run option that names the webhooks of this machine's user config and of the blueprint, or nothing when there are none. */
export function notifyOption(
  bp: Pick<Blueprint, 'notify'>,
  env: NodeJS.ProcessEnv = process.env,
): { notify?: Webhook[] } {
  const hooks = [...notifyConfig(env), ...(bp.notify ?? [])];
  return hooks.length > 0 ? { notify: hooks } : {};
}
