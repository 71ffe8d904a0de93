import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { metricsAddress } from '../../src/cli/options.js';
import type { LevError } from '../../src/errors.js';
import { callCostMicroUsd, modelTags } from '../../src/metrics/leviath.js';
import { BUILTIN_MODELS } from '../../src/providers/builtin-models.js';
import { LEVIATH_METRICS } from '../../src/runtime/fleet-metrics.js';

describe("Leviath's metrics", () => {
  it('label a model call by provider and model', () => {
    expect(modelTags('openai:gpt-5')).toEqual({ provider: 'openai', model: 'gpt-5' });
    expect(modelTags('local-thing')).toEqual({ provider: 'unknown', model: 'local-thing' });
  });

  it('price a call in millionths of a dollar at list prices, uncached, cached and completion tokens apart', () => {
    const usage = { promptTokens: 1_000, completionTokens: 100, cacheReadTokens: 400, cacheWriteTokens: 0 };
    // gpt-5: $1.25 in, $0.125 cached, $10 out per million tokens.
    expect(callCostMicroUsd({ models: BUILTIN_MODELS }, 'openai:gpt-5', usage)).toBeCloseTo(
      600 * 1.25 + 400 * 0.125 + 100 * 10,
    );
    expect(callCostMicroUsd({ models: BUILTIN_MODELS }, 'scripted:script.toml', usage)).toBeUndefined();
  });
});

describe('the metrics address', () => {
  it('comes from --metrics, else LEVIATH_METRICS_ADDRESS, else serves nothing', () => {
    expect(metricsAddress('127.0.0.1:9464', { LEVIATH_METRICS_ADDRESS: '0.0.0.0:1' })).toBe('127.0.0.1:9464');
    expect(metricsAddress(undefined, { LEVIATH_METRICS_ADDRESS: '[::1]:9464' })).toBe('[::1]:9464');
    expect(metricsAddress(undefined, {})).toBeUndefined();
  });

  it('refuses what is not HOST:PORT', () => {
    expect(() => metricsAddress(undefined, { LEVIATH_METRICS_ADDRESS: '9464' })).toThrow(
      expect.objectContaining({ code: 'metrics-bad-address' }) as LevError,
    );
  });
});

describe('the Grafana dashboard under deploy/', () => {
  it('charts only leviath_ metrics the workers emit, each of them', () => {
    // The activities and the workflows emit only the metrics of this one table.
    const root = resolve(import.meta.dirname, '..', '..');
    const dashboard = JSON.parse(readFileSync(join(root, 'deploy', 'grafana', 'leviath-dashboard.json'), 'utf8')) as {
      panels: { targets: { expr: string }[] }[];
    };
    const charted = new Set(
      dashboard.panels.flatMap((p) => p.targets.flatMap((t) => t.expr.match(/leviath_[a-z_]+/g) ?? [])),
    );
    const emitted = new Set(Object.values(LEVIATH_METRICS).map((m) => m.name));
    expect([...charted].sort()).toEqual([...emitted].sort());
  });
});
