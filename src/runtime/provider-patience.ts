/**
 * A stage visit waits out a provider outage instead of failing
 * (docs/reference/long-runs.md#provider-outages): after a retryable provider
 * failure it waits a capped, growing while on a durable timer and tries
 * again, moves a model chain to its next entry after `[run] fallback_after`
 * of failures and comes back to the entry later, and gives up with
 * `provider-unavailable` once nothing answered for `[run] provider_patience`.
 * Pure: the visit's workflow asks these functions and records only what they
 * decide (a timer, a diagnostic).
 */
import type { RuntimeCode } from '../error-codes.js';
import { parseModelRef } from '../providers/builtin-models.js';
import type { Blueprint } from '../shapes/frozen-blueprint.js';
import type { Patience, ProviderWait } from './types.js';

export type { Detour, Patience, ProviderWait } from './types.js';

export const PROVIDER_UNAVAILABLE: RuntimeCode = 'provider-unavailable';

/** `[run] provider_patience` when the blueprint sets none: six hours. */
export const DEFAULT_PROVIDER_PATIENCE_SECS = 6 * 3_600;
/** `[run] fallback_after` when the blueprint sets none: two minutes. */
export const DEFAULT_FALLBACK_AFTER_SECS = 120;

/**
 * Attempts the inference activity makes itself before a retryable provider
 * failure comes back to the workflow: a blip is retried at once, unseen, and
 * anything longer becomes a wait the run shows.
 */
export const HAND_BACK_AFTER = 3;
/** A provider that asks to be left alone longer than this (`Retry-After`) is handed back at once. */
export const HAND_BACK_RETRY_AFTER_MS = 10_000;

/** The workflow's first wait after a failure, doubled after each failure that follows. */
export const FIRST_WAIT_MS = 5_000;
/**
 * The longest wait between two tries, so a provider that comes back is used
 * within two minutes, and a six-hour outage costs the visit about 180 tries
 * (eleven history events each).
 */
export const WAIT_CAP_MS = 120_000;
/** An entry the chain moved past stays skipped at most this long before it is tried again. */
export const DETOUR_CAP_MS = 3_600_000;

/**
 * Failure types (`src/providers/provider-errors.ts`) of an outage: the server failed
 * or is overloaded, rate limiting, unreachable, too slow, or answering with
 * something that is not an answer. A rejected key, a forbidden model or a bad
 * request is not waited out.
 */
const WAITABLE = new Set([
  'ProviderServer',
  'ProviderRateLimit',
  'ProviderTimeout',
  'ProviderConnection',
  'ProviderBadResponse',
  'ProviderEmptyAnswer',
]);

export function isWaitable(type: string | null | undefined): boolean {
  return type !== null && type !== undefined && WAITABLE.has(type);
}

/** What the visit read from a failed inference. */
export interface ProviderFailure {
  type: string;
  /** The chain entry (`provider:model`) that failed. */
  model: string;
  /** The provider's failure, as the activity worded it. */
  message: string;
  retryAfterMs?: number;
}

export const CALM: Patience = Object.freeze({ detours: [] }) as Patience;

export interface PatienceOptions {
  patienceMs: number;
  fallbackAfterMs: number;
}

export function patienceOptions(bp: Pick<Blueprint, 'run'>): PatienceOptions {
  return {
    patienceMs: (bp.run?.providerPatienceSecs ?? DEFAULT_PROVIDER_PATIENCE_SECS) * 1000,
    fallbackAfterMs: (bp.run?.fallbackAfterSecs ?? DEFAULT_FALLBACK_AFTER_SECS) * 1000,
  };
}

export type PatienceStep =
  /** Wait `ms` on a timer, showing `wait`, then try again. */
  | { kind: 'wait'; ms: number; patience: Patience; wait: ProviderWait }
  /** Try the next entry of the chain at once; `detail` is the `provider-unavailable` warning recorded. */
  | { kind: 'switch'; patience: Patience; detail: string }
  /** Nothing answered for the whole patience: the inference fails with `provider-unavailable`. */
  | { kind: 'give-up'; message: string };

/**
 * The entries the next inference may use: those not skipped now. When the
 * chain skips all of them, the one that comes back first is used, so an
 * inference always has a model.
 */
export function usableEntries(p: Patience, chain: readonly string[], now: number): string[] {
  const skipped = (m: string) => p.detours.some((d) => d.model === m && d.until > now);
  const usable = chain.filter((m) => !skipped(m));
  if (usable.length > 0) return usable;
  const soonest = [...p.detours].filter((d) => chain.includes(d.model)).sort((a, b) => a.until - b.until)[0];
  return soonest ? [soonest.model] : [...chain];
}

/** The entries the inference activity skips (`InferInput.avoid`). */
export function avoidedEntries(p: Patience, chain: readonly string[], now: number): string[] {
  const usable = usableEntries(p, chain, now);
  return chain.filter((m) => !usable.includes(m));
}

function span(ms: number): string {
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 7_200_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 3_600_000)} h`;
}

/**
 * What to do after a waitable failure of `failure.model`:
 *
 * - An entry that failed for `fallback_after` (or failed again on its return
 *   from a detour) is skipped and the next usable entry is tried at once. It
 *   is tried again after `fallback_after`, then after twice as long each time
 *   it still fails, up to an hour.
 * - Otherwise, past the patience the inference gives up.
 * - Otherwise the visit waits: 5 s, doubled per failure, at most two minutes
 *   (longer only when the provider's `Retry-After` asks), never past the
 *   moment the chain would move on or the patience end.
 */
export function afterFailure(
  p: Patience,
  failure: ProviderFailure,
  chain: readonly string[],
  opts: PatienceOptions,
  now: number,
): PatienceStep {
  const prior = p.outage;
  const sameEntry = prior !== undefined && prior.model === failure.model;
  const outage = {
    since: prior?.since ?? now,
    model: failure.model,
    error: failure.message,
    tries: (prior?.tries ?? 0) + 1,
    entrySince: sameEntry ? prior.entrySince : now,
  };
  const others = usableEntries(p, chain, now).filter((m) => m !== failure.model);
  const detour = p.detours.find((d) => d.model === failure.model);
  const returned = detour !== undefined && detour.until <= now;
  const failedLongEnough = now - outage.entrySince >= opts.fallbackAfterMs;
  if (others.length > 0 && chain.includes(failure.model) && (returned || failedLongEnough)) {
    const awayMs = returned ? Math.min(detour.awayMs * 2, DETOUR_CAP_MS) : opts.fallbackAfterMs;
    const next = others[0] as string;
    return {
      kind: 'switch',
      patience: {
        outage: { ...outage, model: next, entrySince: now },
        detours: [
          ...p.detours.filter((d) => d.model !== failure.model),
          { model: failure.model, until: now + awayMs, awayMs },
        ],
      },
      detail: `${failure.model} unavailable (${failure.message.slice(0, 200)}); the stage continues on ${next} and tries ${failure.model} again in ${span(awayMs)}`,
    };
  }
  const giveUpAt = outage.since + opts.patienceMs;
  if (now >= giveUpAt)
    return {
      kind: 'give-up',
      message: `the provider ${parseModelRef(failure.model).provider} (${failure.model}) has not answered for ${span(now - outage.since)}, the stage's [run] provider_patience of ${span(opts.patienceMs)}: ${failure.message}`,
    };
  const backoff = Math.min(FIRST_WAIT_MS * 2 ** Math.min(outage.tries - 1, 16), WAIT_CAP_MS);
  let ms = Math.max(backoff, failure.retryAfterMs ?? 0);
  if (others.length > 0) ms = Math.min(ms, Math.max(1000, outage.entrySince + opts.fallbackAfterMs - now));
  ms = Math.max(1000, Math.min(ms, giveUpAt - now));
  return {
    kind: 'wait',
    ms,
    patience: { ...p, outage },
    wait: {
      provider: parseModelRef(failure.model).provider,
      model: failure.model,
      error: failure.message,
      since: outage.since,
      giveUpAt,
    },
  };
}

/** An entry answered: the outage is over, and that entry is no longer skipped. */
export function afterAnswer(p: Patience, model: string | undefined): Patience {
  if (!p.outage && !p.detours.some((d) => d.model === model)) return p;
  return { detours: p.detours.filter((d) => d.model !== model) };
}
