import { describe, expect, it } from 'vitest';
import { fallbackDetail, isUnusable, MODEL_FALLBACK, unusableModels } from '../../src/runtime/model-fallback.js';
import { chooseModel, providerConfigured } from '../../src/runtime/node/model-choice.js';
import type { StageDef } from '../../src/shapes/frozen-blueprint.js';
import { loadToml } from '../blueprint/helpers.js';

const def: StageDef = {
  name: 'gather',
  model: 'anthropic:claude-opus-5',
  models: ['anthropic:claude-opus-5', 'openai:gpt-5.6-terra', 'ollama:qwen3'],
  allowComplete: false,
  transitions: [],
};

describe('moving down a fallback chain', () => {
  it('moves on auth, quota and unreachable failures, never on a bad request', () => {
    for (const type of ['ProviderAuth', 'ProviderForbidden', 'ProviderRateLimit', 'ProviderConnection']) {
      expect(fallbackDetail(def, [], { type, model: 'anthropic:claude-opus-5', message: 'no' })).toMatch(
        /^anthropic:claude-opus-5 unusable \(no\); stage "gather"/,
      );
    }
    for (const type of ['ProviderBadRequest', 'ProviderContextLength', undefined])
      expect(fallbackDetail(def, [], { type, model: 'anthropic:claude-opus-5', message: 'no' })).toBeUndefined();
  });

  it('stops at the end of the chain, and ignores a model outside it', () => {
    const given = [
      { code: MODEL_FALLBACK, severity: 'warning' as const, detail: 'anthropic:claude-opus-5 unusable (x)' },
      { code: MODEL_FALLBACK, severity: 'warning' as const, detail: 'openai:gpt-5.6-terra unusable (x)' },
    ];
    expect(unusableModels(given)).toEqual(['anthropic:claude-opus-5', 'openai:gpt-5.6-terra']);
    expect(fallbackDetail(def, given, { type: 'ProviderAuth', model: 'ollama:qwen3', message: 'x' })).toBeUndefined();
    expect(fallbackDetail(def, [], { type: 'ProviderAuth', model: 'openai:gpt-4o', message: 'x' })).toBeUndefined();
  });
});

describe('choosing the model to call', () => {
  const bp = () => {
    const r = loadToml(
      '[stages.gather]\nmodel = { models = [{ provider = "anthropic", model = "claude-opus-5" }, { provider = "openai", model = "gpt-5.6-terra" }, { provider = "ollama", model = "qwen3" }] }\n',
    );
    if (!r.blueprint) throw new Error(JSON.stringify(r.diagnostics));
    return r.blueprint;
  };

  it('takes the first entry whose provider has credentials', () => {
    expect(chooseModel(bp(), 'gather', [], { ANTHROPIC_API_KEY: 'k' })).toBe('anthropic:claude-opus-5');
    expect(chooseModel(bp(), 'gather', [], { OPENAI_API_KEY: 'k' })).toBe('openai:gpt-5.6-terra');
    expect(chooseModel(bp(), 'gather', [], {})).toBe('ollama:qwen3');
    expect(providerConfigured('anthropic:x', { ANTHROPIC_API_KEY: ' ' })).toBe(false);
  });

  it('skips the entries a visit avoids while their provider is down, unless that leaves none', () => {
    const env = { ANTHROPIC_API_KEY: 'k', OPENAI_API_KEY: 'k' };
    expect(chooseModel(bp(), 'gather', [], env, ['anthropic:claude-opus-5'])).toBe('openai:gpt-5.6-terra');
    const all = ['anthropic:claude-opus-5', 'openai:gpt-5.6-terra', 'ollama:qwen3'];
    expect(chooseModel(bp(), 'gather', [], env, all)).toBe('anthropic:claude-opus-5');
  });

  it('skips every model of a provider the run gave up on', () => {
    const given = [{ code: MODEL_FALLBACK, severity: 'warning' as const, detail: 'openai:gpt-5.6-terra unusable (x)' }];
    expect(chooseModel(bp(), 'gather', given, { OPENAI_API_KEY: 'k' })).toBe('ollama:qwen3');
    expect(isUnusable('openai:gpt-5.6-sol', unusableModels(given))).toBe(true);
    expect(isUnusable('anthropic:claude-opus-5', unusableModels(given))).toBe(false);
  });
});
