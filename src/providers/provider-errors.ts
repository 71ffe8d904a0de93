/**
 * Provider failures sorted into the few classes a runtime acts on. Temporal
 * retries activities, so the SDKs' own retries are off and the class decides
 * whether the activity may be retried and how long to wait first.
 */
import { ApplicationFailure } from '@temporalio/common';
import { formatCoded, isLevError, LevError, type RuntimeCode } from '../errors.js';

export const PROVIDER_ERROR_KINDS = [
  'bad-request',
  'auth',
  'forbidden',
  'not-found',
  'context-length',
  'rate-limit',
  'server',
  'timeout',
  'connection',
  'bad-response',
  'empty-answer',
  'answer-too-large',
  'script-failed',
] as const;
export type ProviderErrorKind = (typeof PROVIDER_ERROR_KINDS)[number];

const RETRYABLE: ReadonlySet<ProviderErrorKind> = new Set([
  'rate-limit',
  'server',
  'timeout',
  'connection',
  'bad-response',
  'empty-answer',
]);

/** Temporal failure type per class; workflows and retry policies match on these. */
const FAILURE_TYPES: Record<ProviderErrorKind, string> = {
  'bad-request': 'ProviderBadRequest',
  auth: 'ProviderAuth',
  forbidden: 'ProviderForbidden',
  'not-found': 'ProviderNotFound',
  'context-length': 'ProviderContextLength',
  'rate-limit': 'ProviderRateLimit',
  server: 'ProviderServer',
  timeout: 'ProviderTimeout',
  connection: 'ProviderConnection',
  'bad-response': 'ProviderBadResponse',
  'empty-answer': 'ProviderEmptyAnswer',
  'answer-too-large': 'ProviderAnswerTooLarge',
  'script-failed': 'ProviderScriptFailed',
};

export function isRetryableKind(kind: ProviderErrorKind): boolean {
  return RETRYABLE.has(kind);
}

export function failureTypeFor(kind: ProviderErrorKind): string {
  return FAILURE_TYPES[kind];
}

export interface ProviderErrorInit {
  provider: string;
  status?: number;
  retryAfterMs?: number;
  /** The sentence promising a retry, left out of the message of the last attempt. */
  retryNote?: string;
}

export class ProviderError extends LevError {
  readonly kind: ProviderErrorKind;
  readonly retryable: boolean;
  readonly provider: string;
  readonly status?: number;
  readonly retryAfterMs?: number;
  /** The chain entry (`provider:model`) that failed, so the workflow can move past it. */
  model?: string;
  /** The message without the retry promise. */
  readonly detail: string;

  constructor(kind: ProviderErrorKind, detail: string, init: ProviderErrorInit) {
    super(`provider-${kind}`, init.retryNote ? `${detail} ${init.retryNote}` : detail);
    this.name = 'ProviderError';
    this.detail = detail;
    this.kind = kind;
    this.retryable = isRetryableKind(kind);
    this.provider = init.provider;
    if (init.status !== undefined) this.status = init.status;
    if (init.retryAfterMs !== undefined) this.retryAfterMs = init.retryAfterMs;
  }
}

export function isProviderError(err: unknown): err is ProviderError {
  return err instanceof ProviderError;
}

/**
 * Reads `retry-after-ms` (milliseconds), then `retry-after` (seconds or an
 * HTTP date). Returns undefined when neither is usable.
 */
export function parseRetryAfter(headers: Headers | undefined, nowMs: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '') {
    const n = Number(ms);
    if (Number.isFinite(n) && n >= 0) return Math.round(n);
  }
  const ra = headers.get('retry-after');
  if (ra === null || ra.trim() === '') return undefined;
  const seconds = Number(ra);
  if (Number.isFinite(seconds)) return seconds >= 0 ? Math.round(seconds * 1000) : undefined;
  const at = Date.parse(ra);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

const KEY_PATTERNS: RegExp[] = [/\bsk-[A-Za-z0-9_-]{8,}/g, /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/gi];

/**
 * Removes the configured secrets and anything shaped like an API key, so a
 * server that echoes credentials back cannot leak them into logs or history.
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 4) out = out.split(secret).join('[redacted]');
  }
  for (const pattern of KEY_PATTERNS) out = out.replace(pattern, '[redacted]');
  return out;
}

/** Which attempt failed, and how many the retry policy allows (absent or 0: unlimited). */
export interface AttemptInfo {
  attempt: number;
  maximumAttempts?: number;
}

/**
 * A visit that waits out outages itself (docs/reference/long-runs.md#provider-outages): a
 * retryable failure comes back to it once this many attempts failed, or at once when the
 * provider asks to be left alone longer than `retryAfterMs`.
 */
export interface HandBack {
  afterAttempts: number;
  retryAfterMs: number;
}

/**
 * Converts any failure from an inference activity into the ApplicationFailure
 * Temporal acts on: non-retryable classes stop at once, retryable ones carry
 * the provider's Retry-After as the next retry delay. The message is
 * `[code] sentence`; on the last allowed attempt it says how many attempts
 * failed instead of promising a retry.
 */
// Provider codes are `provider-<kind>`; the registry test checks every kind has one.
export function toActivityFailure(err: unknown, attempts?: AttemptInfo, handBack?: HandBack): ApplicationFailure {
  if (err instanceof ApplicationFailure) return err;
  if (isProviderError(err)) {
    const details = [
      { kind: err.kind, status: err.status ?? null, retryAfterMs: err.retryAfterMs ?? null, model: err.model ?? null },
    ];
    const type = failureTypeFor(err.kind);
    if (!err.retryable)
      return ApplicationFailure.nonRetryable(formatCoded(err.code as RuntimeCode, err.message), type, ...details);
    const handedBack =
      handBack !== undefined &&
      ((attempts?.attempt ?? 1) >= handBack.afterAttempts || (err.retryAfterMs ?? 0) > handBack.retryAfterMs);
    // The visit decides what happens next, and says it; the message is the provider's failure alone.
    if (handedBack)
      return ApplicationFailure.nonRetryable(formatCoded(err.code as RuntimeCode, err.detail), type, ...details);
    const max = attempts?.maximumAttempts ?? 0;
    const last = attempts !== undefined && max > 0 && attempts.attempt >= max;
    const attemptsText = attempts && attempts.attempt === 1 ? '1 attempt' : `${attempts?.attempt} attempts`;
    return ApplicationFailure.create({
      message: formatCoded(
        err.code as RuntimeCode,
        last ? `${err.detail} It failed after ${attemptsText}.` : err.message,
      ),
      type,
      nonRetryable: false,
      details,
      ...(err.retryAfterMs !== undefined ? { nextRetryDelay: err.retryAfterMs } : {}),
    });
  }
  if (isLevError(err)) return ApplicationFailure.nonRetryable(err.message, err.code);
  const message = err instanceof Error ? err.message : String(err);
  return ApplicationFailure.create({ message, type: 'ProviderUnexpected', nonRetryable: false });
}
