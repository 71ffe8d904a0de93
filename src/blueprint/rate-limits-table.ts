/**
 * `[rate_limits.<provider>]` and `[rate_limits."<provider>:<model>"]` of the
 * user config (docs/reference/blueprint.md#user-config): what every worker
 * process holds each provider and model to, for all of its runs
 * (docs/reference/long-runs.md#flow-control). The original Leviath's
 * section, with `max_concurrent` beside its two keys.
 */
import type { RateLimit } from '../providers/flow-control.js';
import type { TableReader } from './fields.js';

export const RATE_LIMIT_KEYS = ['max_concurrent', 'requests_per_minute', 'tokens_per_minute'] as const;

const EXAMPLE = '[rate_limits.openai] max_concurrent = 4';

/** The tables by name (`openai`, `openai:gpt-4o`); one that limits nothing is left out. */
export function readRateLimits(root: TableReader): Record<string, RateLimit> {
  const section = root.table_('rate_limits', EXAMPLE);
  const limits: Record<string, RateLimit> = {};
  for (const name of Object.keys(section?.table ?? {})) {
    const t = section?.table_(name, `{ max_concurrent = 4, requests_per_minute = 50 }`);
    if (!t) continue;
    const limit = readRateLimit(t, `[rate_limits.${name.includes(':') ? `"${name}"` : name}]`);
    if (limit) limits[name] = limit;
  }
  return limits;
}

/** One table of these keys (also a script provider's `rate_limit`); undefined when it limits nothing. */
export function readRateLimit(t: TableReader, label: string): RateLimit | undefined {
  t.unknownKeys(RATE_LIMIT_KEYS, 'unknown-key', label);
  const maxConcurrent = t.integer('max_concurrent', 1);
  const requestsPerMinute = t.integer('requests_per_minute', 1);
  const tokensPerMinute = t.integer('tokens_per_minute', 1);
  const limit: RateLimit = {
    ...(maxConcurrent !== undefined ? { maxConcurrent } : {}),
    ...(requestsPerMinute !== undefined ? { requestsPerMinute } : {}),
    ...(tokensPerMinute !== undefined ? { tokensPerMinute } : {}),
  };
  return Object.keys(limit).length > 0 ? limit : undefined;
}

/** The tables that hold a call to `ref` (`provider:model`): its provider's and its model's. */
export function limitsFor(limits: Readonly<Record<string, RateLimit>>, ref: string): Record<string, RateLimit> {
  const i = ref.indexOf(':');
  const provider = i <= 0 ? 'openai' : ref.slice(0, i);
  const model = i <= 0 ? `openai:${ref}` : ref;
  const out: Record<string, RateLimit> = {};
  const p = limits[provider];
  if (p) out[provider] = p;
  const m = limits[model];
  if (m) out[model] = m;
  return out;
}
