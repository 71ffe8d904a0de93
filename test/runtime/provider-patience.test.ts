/**
 * The decisions of a visit that waits out a provider outage
 * (docs/reference/long-runs.md#provider-outages): how long it waits, when a
 * chain moves on and comes back, and when it gives up.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { providerWaitText, stageDetails, waitingLines } from '../../src/runtime/details.js';
import { runStatus, waitingKind } from '../../src/runtime/people/status.js';
import {
  afterAnswer,
  afterFailure,
  avoidedEntries,
  CALM,
  DEFAULT_FALLBACK_AFTER_SECS,
  DEFAULT_PROVIDER_PATIENCE_SECS,
  isWaitable,
  type Patience,
  type PatienceOptions,
  patienceOptions,
  usableEntries,
  WAIT_CAP_MS,
} from '../../src/runtime/provider-patience.js';
import { loadToml } from '../blueprint/helpers.js';

const OPTS: PatienceOptions = { patienceMs: 6 * 3_600_000, fallbackAfterMs: 120_000 };
const T0 = 1_000_000_000_000;
const ONE = ['openai:gpt-4o'];
const CHAIN = ['openai:gpt-4o', 'anthropic:claude-sonnet-4-5'];

function fail(model = 'openai:gpt-4o', extra: { retryAfterMs?: number; type?: string } = {}) {
  return {
    type: extra.type ?? 'ProviderServer',
    model,
    message: 'OpenAI failed on its side (HTTP 503): down.',
    ...extra,
  };
}

describe('which failures a visit waits out', () => {
  it('waits out 5xx, 429, timeouts, refused connections and non-answers, never a refused key or a bad request', () => {
    for (const type of [
      'ProviderServer',
      'ProviderRateLimit',
      'ProviderTimeout',
      'ProviderConnection',
      'ProviderBadResponse',
      'ProviderEmptyAnswer',
    ])
      expect(isWaitable(type)).toBe(true);
    for (const type of ['ProviderAuth', 'ProviderForbidden', 'ProviderBadRequest', 'ProviderContextLength', undefined])
      expect(isWaitable(type)).toBe(false);
  });
});

describe('[run] provider_patience and fallback_after', () => {
  it('default to six hours and two minutes, and read durations', () => {
    expect(patienceOptions({})).toEqual({
      patienceMs: DEFAULT_PROVIDER_PATIENCE_SECS * 1000,
      fallbackAfterMs: DEFAULT_FALLBACK_AFTER_SECS * 1000,
    });
    const bp = loadToml('[run]\nprovider_patience = "30m"\nfallback_after = "45s"\n').blueprint!;
    expect(patienceOptions(bp)).toEqual({ patienceMs: 1_800_000, fallbackAfterMs: 45_000 });
  });

  it('refuses a value that is not a duration with bad-duration', () => {
    const loaded = loadToml('[run]\nprovider_patience = "six hours"\nfallback_after = 0\n');
    const findings = loaded.diagnostics.map((d) => [d.code, d.message]);
    expect(findings).toContainEqual([
      'bad-duration',
      expect.stringContaining('[run] provider_patience = "six hours" is not a duration'),
    ]);
    expect(loaded.diagnostics.map((d) => d.code)).toContain('bad-value');
  });
});

describe('waiting out an outage', () => {
  it('waits 5 s after the first failure, doubling to a two-minute cap, and shows the provider and the error', () => {
    let p: Patience = CALM;
    const waits: number[] = [];
    let now = T0;
    for (let i = 0; i < 8; i++) {
      const step = afterFailure(p, fail(), ONE, OPTS, now);
      if (step.kind !== 'wait') throw new Error(`expected a wait, got ${step.kind}`);
      waits.push(step.ms);
      expect(step.wait).toEqual({
        provider: 'openai',
        model: 'openai:gpt-4o',
        error: 'OpenAI failed on its side (HTTP 503): down.',
        since: T0,
        giveUpAt: T0 + OPTS.patienceMs,
      });
      p = step.patience;
      now += step.ms + 3000;
    }
    expect(waits).toEqual([5000, 10_000, 20_000, 40_000, 80_000, WAIT_CAP_MS, WAIT_CAP_MS, WAIT_CAP_MS]);
  });

  it("waits as long as the provider's Retry-After asks", () => {
    const step = afterFailure(CALM, fail('openai:gpt-4o', { retryAfterMs: 300_000 }), ONE, OPTS, T0);
    expect(step).toMatchObject({ kind: 'wait', ms: 300_000 });
  });

  it('gives up with the provider named once nothing answered for the whole patience, and never waits past it', () => {
    const opts = { patienceMs: 60_000, fallbackAfterMs: 120_000 };
    let p: Patience = CALM;
    let now = T0;
    let step = afterFailure(p, fail(), ONE, opts, now);
    while (step.kind === 'wait') {
      expect(now + step.ms).toBeLessThanOrEqual(T0 + 60_000);
      p = step.patience;
      now += step.ms + 500;
      step = afterFailure(p, fail(), ONE, opts, now);
    }
    expect(step.kind).toBe('give-up');
    if (step.kind === 'give-up')
      expect(step.message).toMatch(/^the provider openai \(openai:gpt-4o\) has not answered/);
  });

  it('starts the clock again after an answer', () => {
    const first = afterFailure(CALM, fail(), ONE, OPTS, T0);
    if (first.kind !== 'wait') throw new Error('expected a wait');
    const calm = afterAnswer(first.patience, 'openai:gpt-4o');
    expect(calm).toEqual({ detours: [] });
    const later = afterFailure(calm, fail(), ONE, OPTS, T0 + 7 * 3_600_000);
    expect(later).toMatchObject({ kind: 'wait', ms: 5000, wait: { since: T0 + 7 * 3_600_000 } });
  });

  it('never waits less than a second or past the patience, whatever the failures (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ gap: fc.nat(600_000), retryAfter: fc.option(fc.nat(3_600_000), { nil: undefined }) }), {
          minLength: 1,
          maxLength: 40,
        }),
        fc.integer({ min: 1000, max: 10 * 3_600_000 }),
        (failures, patienceMs) => {
          const opts = { patienceMs, fallbackAfterMs: 120_000 };
          let p: Patience = CALM;
          let now = T0;
          const since = T0 + (failures[0]?.gap ?? 0);
          for (const f of failures) {
            now += f.gap;
            const step = afterFailure(p, fail('openai:gpt-4o', { retryAfterMs: f.retryAfter }), ONE, opts, now);
            if (step.kind === 'give-up') {
              expect(now - since).toBeGreaterThanOrEqual(patienceMs);
              return;
            }
            expect(step.kind).toBe('wait');
            if (step.kind !== 'wait') return;
            expect(step.ms).toBeGreaterThanOrEqual(1000);
            expect(now + step.ms).toBeLessThanOrEqual(Math.max(now + 1000, since + patienceMs));
            p = step.patience;
          }
        },
      ),
    );
  });
});

describe('a fallback chain during an outage', () => {
  it('waits no longer than fallback_after before it moves to the next entry, and says so', () => {
    const first = afterFailure(CALM, fail(), CHAIN, OPTS, T0);
    expect(first.kind).toBe('wait');
    if (first.kind !== 'wait') return;
    // The wait never runs past the moment the chain moves on.
    const late = afterFailure(first.patience, fail(), CHAIN, OPTS, T0 + 119_000);
    expect(late).toMatchObject({ kind: 'wait', ms: 1000 });
    const moved = afterFailure(first.patience, fail(), CHAIN, OPTS, T0 + 120_000);
    expect(moved.kind).toBe('switch');
    if (moved.kind !== 'switch') return;
    expect(moved.detail).toBe(
      'openai:gpt-4o unavailable (OpenAI failed on its side (HTTP 503): down.); the stage continues on anthropic:claude-sonnet-4-5 and tries openai:gpt-4o again in 2 min',
    );
    expect(avoidedEntries(moved.patience, CHAIN, T0 + 120_000)).toEqual(['openai:gpt-4o']);
    expect(usableEntries(moved.patience, CHAIN, T0 + 120_000)).toEqual(['anthropic:claude-sonnet-4-5']);
    // fallback_after later the first entry is tried again.
    expect(avoidedEntries(moved.patience, CHAIN, T0 + 240_000)).toEqual([]);
  });

  it('moves on at once when a returning entry still fails, and stays away twice as long', () => {
    const first = afterFailure(CALM, fail(), CHAIN, OPTS, T0);
    if (first.kind !== 'wait') throw new Error('expected a wait');
    const moved = afterFailure(first.patience, fail(), CHAIN, OPTS, T0 + 120_000);
    if (moved.kind !== 'switch') throw new Error('expected a switch');
    // The second entry answers meanwhile; at the return the first still fails.
    const calm = afterAnswer(moved.patience, 'anthropic:claude-sonnet-4-5');
    expect(calm.outage).toBeUndefined();
    const again = afterFailure(calm, fail(), CHAIN, OPTS, T0 + 250_000);
    expect(again).toMatchObject({ kind: 'switch', detail: expect.stringContaining('again in 4 min') });
    if (again.kind !== 'switch') return;
    expect(avoidedEntries(again.patience, CHAIN, T0 + 250_000 + 239_000)).toEqual(['openai:gpt-4o']);
    // When it answers on its return, it is the stage's entry again.
    const back = afterAnswer(again.patience, 'openai:gpt-4o');
    expect(avoidedEntries(back, CHAIN, T0 + 250_000 + 240_000)).toEqual([]);
    expect(back.detours).toEqual([]);
  });

  it('waits when every entry is down, using the one that comes back first', () => {
    const p: Patience = {
      detours: [
        { model: 'openai:gpt-4o', until: T0 + 60_000, awayMs: 120_000 },
        { model: 'anthropic:claude-sonnet-4-5', until: T0 + 30_000, awayMs: 120_000 },
      ],
    };
    expect(usableEntries(p, CHAIN, T0)).toEqual(['anthropic:claude-sonnet-4-5']);
    const step = afterFailure(p, fail('anthropic:claude-sonnet-4-5'), CHAIN, OPTS, T0);
    expect(step.kind).toBe('wait');
  });

  it('keeps one patience clock across the entries, and gives up when the whole chain stayed down', () => {
    const opts = { patienceMs: 300_000, fallbackAfterMs: 60_000 };
    let p: Patience = CALM;
    let now = T0;
    let model = CHAIN[0] as string;
    for (let i = 0; i < 200; i++) {
      const step = afterFailure(p, fail(model), CHAIN, opts, now);
      if (step.kind === 'give-up') {
        expect(now - T0).toBeGreaterThanOrEqual(300_000);
        return;
      }
      p = step.patience;
      if (step.kind === 'wait') now += step.ms;
      model = usableEntries(p, CHAIN, now)[0] as string;
    }
    throw new Error('never gave up');
  });
});

describe('how a run waiting for a provider shows', () => {
  const provider = {
    provider: 'openai',
    model: 'openai:gpt-4o',
    error: '[provider-server] OpenAI failed on its side (HTTP 503): down.',
    since: Date.UTC(2026, 11, 5, 10, 0),
    giveUpAt: Date.UTC(2026, 11, 5, 16, 0),
  };
  const none = { asks: [], waitingReply: false, paused: false, stuck: false };

  it('is waiting, for provider-unavailable, after a person and a pause', () => {
    expect(runStatus({ ...none, provider })).toBe('waiting');
    expect(waitingKind({ ...none, provider })).toBe('provider-unavailable');
    expect(runStatus({ ...none, paused: true, provider })).toBe('paused');
    expect(waitingKind({ ...none, waitingReply: true, provider })).toBe('message');
    expect(runStatus(none)).toBe('running');
  });

  it('names a person first, then a missing tool worker, then a pause, then the provider', () => {
    const away = { taskQueue: 'leviath-workdir-w-0123456789ab', workdir: '/srv/w', since: 0, failsAt: 1 };
    const point = {
      kind: 'answer' as const,
      call: 'c-1',
      subject: 'Plan',
      tool: 'checkpoint',
      since: 0,
      deadline: 1,
      point: 'plan',
    };
    expect(waitingKind({ ...none, asks: [point], toolWorker: away, provider })).toBe('checkpoint');
    expect(waitingKind({ ...none, toolWorker: away, provider })).toBe('tool-worker-missing');
    expect(runStatus({ ...none, toolWorker: away, provider })).toBe('waiting');
    expect(waitingKind({ ...none, paused: true, provider })).toBe('resume');
  });

  it('names the provider, the last error, the next try and the end of the patience in the current details', () => {
    expect(providerWaitText(provider)).toBe(
      'the provider `openai` (`openai:gpt-4o`), unavailable since 2026-12-05 10:00 UTC: [provider-server] OpenAI failed on its side (HTTP 503): down. It tries again by itself, at least every two minutes, and fails with `provider-unavailable` at 2026-12-05 16:00 UTC',
    );
    expect(waitingLines({ runId: 'r', asks: [], paused: false, waiting: 'provider-unavailable', provider })).toEqual([
      `**Waiting for** ${providerWaitText(provider)}.`,
    ]);
    const details = stageDetails({
      runId: 'r',
      status: 'waiting',
      stage: 'main',
      inferences: 0,
      visitTurns: 0,
      regions: [],
      window: { max: 1000, used: 0, gap: 0 },
      gatesForced: [],
      usage: { calls: 0, promptTokens: 0, completionTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
      cost: { usd: null, priced: [], unpriced: [] },
      asks: [],
      paused: false,
      heldMessages: 0,
      recentCalls: [],
      gates: { attempts: 0, blocked: 0 },
      waiting: 'provider-unavailable',
      provider,
    });
    expect(details.split('\n').slice(0, 2)).toEqual([
      '**main** · turn 0 (run inference 0) · waiting',
      `**Waiting for** ${providerWaitText(provider)}.`,
    ]);
  });
});
