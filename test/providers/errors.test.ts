import { ApplicationFailure } from '@temporalio/common';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LevError } from '../../src/errors.js';
import {
  failureTypeFor,
  isRetryableKind,
  PROVIDER_ERROR_KINDS,
  ProviderError,
  parseRetryAfter,
  redactSecrets,
  toActivityFailure,
} from '../../src/providers/index.js';

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-29T12:00:00Z');
  const h = (init: Record<string, string>) => new Headers(init);

  it('reads seconds, fractional seconds and HTTP dates', () => {
    expect(parseRetryAfter(h({ 'retry-after': '3' }), now)).toBe(3000);
    expect(parseRetryAfter(h({ 'retry-after': '0.5' }), now)).toBe(500);
    expect(parseRetryAfter(h({ 'retry-after': 'Sun, 29 Nov 2026 12:00:42 GMT' }), now)).toBe(42_000);
  });

  it('prefers retry-after-ms and never returns a negative delay', () => {
    expect(parseRetryAfter(h({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250);
    expect(parseRetryAfter(h({ 'retry-after': 'Sun, 29 Nov 2026 11:00:00 GMT' }), now)).toBe(0);
  });

  it('ignores absent or unreadable values', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter(h({}), now)).toBeUndefined();
    expect(parseRetryAfter(h({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(parseRetryAfter(h({ 'retry-after': '-4' }), now)).toBeUndefined();
  });
});

describe('failure classes', () => {
  it('retries only rate limits, server errors, timeouts, connection failures, bad and empty answers', () => {
    const retryable = PROVIDER_ERROR_KINDS.filter(isRetryableKind);
    expect(retryable).toEqual(['rate-limit', 'server', 'timeout', 'connection', 'bad-response', 'empty-answer']);
  });

  it('gives every class its own Temporal failure type', () => {
    const types = PROVIDER_ERROR_KINDS.map(failureTypeFor);
    expect(new Set(types).size).toBe(types.length);
    expect(failureTypeFor('context-length')).toBe('ProviderContextLength');
  });

  it('carries kind, status, delay and the failed chain entry into the failure details', () => {
    const err = new ProviderError('rate-limit', 'slow down', { provider: 'openai', status: 429, retryAfterMs: 2000 });
    expect(toActivityFailure(err).details).toEqual([
      { kind: 'rate-limit', status: 429, retryAfterMs: 2000, model: null },
    ]);
    err.model = 'openai:gpt-5.6-terra';
    const failure = toActivityFailure(err);
    expect(failure.details).toEqual([
      { kind: 'rate-limit', status: 429, retryAfterMs: 2000, model: 'openai:gpt-5.6-terra' },
    ]);
    expect(failure.nextRetryDelay).toBe(2000);
    expect(err.code).toBe('provider-rate-limit');
  });

  it('hands a retryable failure back to a visit that waits out outages, after its attempts or a long Retry-After', () => {
    const handBack = { afterAttempts: 3, retryAfterMs: 10_000 };
    const err = new ProviderError('server', 'OpenAI failed on its side (HTTP 503): down.', {
      provider: 'openai',
      status: 503,
      retryNote: 'The call will be retried with backoff.',
    });
    expect(toActivityFailure(err, { attempt: 2, maximumAttempts: 8 }, handBack).nonRetryable).toBe(false);
    const back = toActivityFailure(err, { attempt: 3, maximumAttempts: 8 }, handBack);
    expect(back).toMatchObject({
      nonRetryable: true,
      type: 'ProviderServer',
      message: '[provider-server] OpenAI failed on its side (HTTP 503): down.',
    });
    const slow = new ProviderError('rate-limit', 'slow down', {
      provider: 'openai',
      status: 429,
      retryAfterMs: 60_000,
    });
    expect(toActivityFailure(slow, { attempt: 1 }, handBack).nonRetryable).toBe(true);
    // Without a visit that waits, the activity's own retries go on as before.
    expect(toActivityFailure(slow, { attempt: 3, maximumAttempts: 8 }).nonRetryable).toBe(false);
  });

  it('turns other coded errors into non-retryable failures and unknown ones into retryable ones', () => {
    const coded = toActivityFailure(new LevError('scripted-script-invalid', 'Script x is invalid.'));
    expect(coded).toMatchObject({
      nonRetryable: true,
      type: 'scripted-script-invalid',
      message: 'Script x is invalid.',
    });
    const unknown = toActivityFailure(new Error('socket hang up'));
    expect(unknown).toMatchObject({ nonRetryable: false, type: 'ProviderUnexpected' });
    const already = ApplicationFailure.nonRetryable('done', 'X');
    expect(toActivityFailure(already)).toBe(already);
  });
});

describe('redactSecrets', () => {
  it('removes a configured secret wherever it appears in any text', () => {
    const key = fc.stringMatching(/^[A-Za-z0-9_-]{8,40}$/);
    fc.assert(
      fc.property(fc.string(), key, fc.string(), (before, secret, after) => {
        fc.pre(!'[redacted]'.includes(secret));
        const out = redactSecrets(`${before}${secret}${after}${secret}`, [secret]);
        expect(out).not.toContain(secret);
      }),
      { numRuns: 300 },
    );
  });

  it('removes key-shaped tokens even when the key is not known', () => {
    expect(redactSecrets('Incorrect API key provided: sk-proj-abcdef123456.', [])).toBe(
      'Incorrect API key provided: [redacted].',
    );
    expect(redactSecrets('header Authorization: Bearer abc.def-ghi_jkl', [])).toBe('header Authorization: [redacted]');
  });
});
