/**
 * The provider table (`src/shapes/providers.ts`): one record per prefix,
 * read by the loader's model chains, the clients, the model choice and
 * `lev doctor`.
 */
import { describe, expect, it } from 'vitest';
import { guessProvider } from '../../src/blueprint/model-chain.js';
import { getProvider } from '../../src/providers/index.js';
import { providerConfigured } from '../../src/runtime/node/model-choice.js';
import { keyEnvOf, PROVIDER_PREFIXES, providerFacts, providersRanked } from '../../src/shapes/providers.js';

describe('the provider table', () => {
  it('knows every prefix a model ref may start with', () => {
    expect([...PROVIDER_PREFIXES].sort()).toEqual(
      ['anthropic', 'google', 'lmstudio', 'ollama', 'openai', 'openrouter', 'scripted', 'vllm'].sort(),
    );
    expect(providerFacts('gemini')).toBeUndefined();
    expect(providerFacts('toString')).toBeUndefined();
  });

  it('orders the guesses for a bare model and the providers lev doctor tries', () => {
    expect(providersRanked('guessRank')).toEqual(['anthropic', 'openai', 'ollama', 'openrouter']);
    expect(providersRanked('doctorRank')).toEqual(['anthropic', 'openai', 'google', 'openrouter']);
    expect(guessProvider('llama3.1', { 'ollama:llama3.1': { contextWindow: 8192, maxOutputTokens: 1024 } })).toBe(
      'ollama:llama3.1',
    );
  });

  it('names each key variable once, and counts a local server without a key as configured', () => {
    expect(keyEnvOf('google')).toBe('GOOGLE_API_KEY');
    expect(keyEnvOf('scripted')).toBeUndefined();
    expect(providerConfigured('vllm:x', {})).toBe(true);
    expect(providerConfigured('openrouter:x', {})).toBe(false);
    expect(providerConfigured('openrouter:x', { OPENROUTER_API_KEY: 'k' })).toBe(true);
    expect(providerConfigured('nobody:x', {})).toBe(false);
  });

  it('builds each provider’s client from its record', () => {
    expect(getProvider('lmstudio:m', {}).constructor.name).toBe('OpenAICompatibleProvider');
    expect(getProvider('google:m', { GOOGLE_API_KEY: 'k' }).constructor.name).toBe('GoogleProvider');
    expect(getProvider('anthropic:m', { ANTHROPIC_API_KEY: 'k' }).constructor.name).toBe('AnthropicProvider');
    expect(() => getProvider('gemini:pro', {})).toThrow(/use one of openai, openrouter, ollama/);
  });
});
