/**
 * Delivers a notice to one webhook: a JSON POST signed per the Standard
 * Webhooks scheme when the webhook has a secret (`webhook-id`,
 * `webhook-timestamp`, `webhook-signature`), so a receiver can refuse a
 * replayed or stale delivery. Anything but a 2xx answer throws, and the
 * activity is retried with backoff; every attempt carries the same delivery
 * id and a timestamp and signature of its own (docs/reference/cluster-runs.md#notifications).
 */
import { createHmac } from 'node:crypto';
import { LevError } from '../errors.js';
import type { Notice, Webhook } from '../shapes/webhooks.js';

const SECRET_PREFIX = 'whsec_';

/**
 * The HMAC key of a secret: a Standard Webhooks secret (`whsec_` and base64) is its decoded
 * bytes, as the scheme's libraries read it; any other secret is its own UTF-8 bytes.
 */
function signingKey(secret: string): Buffer {
  return secret.startsWith(SECRET_PREFIX)
    ? Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64')
    : Buffer.from(secret, 'utf8');
}

/** `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`: the value of `webhook-signature`. */
export function signature(id: string, timestamp: number, body: string, secret: string): string {
  const signed = `${id}.${timestamp}.${body}`;
  return `v1,${createHmac('sha256', signingKey(secret)).update(signed, 'utf8').digest('base64')}`;
}

export async function deliver(
  hook: Webhook,
  notice: Notice,
  env: NodeJS.ProcessEnv = process.env,
  signal?: AbortSignal,
): Promise<{ status: number }> {
  const secret = hook.secretEnv ? env[hook.secretEnv] : undefined;
  if (hook.secretEnv && !secret)
    throw new LevError(
      'notify-secret-missing',
      `The webhook ${hook.url} is signed with the secret in $${hook.secretEnv}, which this worker's environment lacks; set it where the workers run.`,
    );
  const body = JSON.stringify(notice);
  // Seconds, per attempt: a receiver refuses a delivery whose timestamp is far from its clock.
  const timestamp = Math.floor(Date.now() / 1000);
  const response = await fetch(hook.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'user-agent': 'leviath-notify',
      'webhook-id': notice.deliveryId,
      'webhook-timestamp': String(timestamp),
      'x-leviath-event': notice.event,
      ...(secret ? { 'webhook-signature': signature(notice.deliveryId, timestamp, body, secret) } : {}),
    },
    body,
    // An attempt ends after 10 s without an answer, and at once when the activity is cancelled.
    signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(10_000)]) : AbortSignal.timeout(10_000),
  });
  // The body is not read: a receiver's answer says nothing the status does not.
  await response.body?.cancel();
  if (!response.ok)
    throw new Error(`webhook ${hook.url} answered ${response.status}; delivery ${notice.deliveryId} is retried`);
  return { status: response.status };
}
