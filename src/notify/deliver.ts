/**
 * Delivers a notice to one webhook: a JSON POST whose body is signed with
 * HMAC-SHA256 when the webhook has a secret. Anything but a 2xx answer
 * throws, and the activity is retried with backoff; every attempt carries
 * the same delivery id (docs/reference/cluster-runs.md#notifications).
 */
import { createHmac } from 'node:crypto';
import { LevError } from '../errors.js';
import type { Notice, Webhook } from '../shapes/webhooks.js';

/** `sha256=<hex>` of the body, the value of `X-Leviath-Signature`. */
export function signature(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
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
  const response = await fetch(hook.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'user-agent': 'leviath-notify',
      'x-leviath-delivery': notice.deliveryId,
      'x-leviath-event': notice.event,
      ...(secret ? { 'x-leviath-signature': signature(body, secret) } : {}),
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
