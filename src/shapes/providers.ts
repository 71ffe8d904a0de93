/**
 * One record per model provider, by the prefix a model ref starts with
 * (`ollama:llama3.1`): its wire format, where its key and address come from,
 * and where it stands among the providers tried for a model named without
 * one. The blueprint loader, the provider clients, the model choice and
 * `lev doctor` all read it, so a provider is added in one place
 * (docs/providers.md). It sits on the ground floor because they all import it.
 */

import { type ParameterWires, sameEfforts } from './model-parameters.js';

/** The wire a provider speaks: OpenAI's chat completions, Anthropic's messages, Google's generateContent, or the offline scripted provider. */
export type ProviderWire = 'openai' | 'anthropic' | 'google' | 'scripted';

/**
 * The offline scripted provider (docs/scripted.md): no key, no address. It
 * takes every model parameter and answers from its script whatever they are;
 * it records them with each call (`scriptedCalls()`), which is how a test sees
 * what a stage would send.
 */
export interface ScriptedFacts {
  wire: 'scripted';
}

/** A provider reached over HTTP. */
export interface ServedFacts {
  wire: Exclude<ProviderWire, 'scripted'>;
  /** The environment variable of its API key. */
  keyEnv: string;
  /** The environment variable that moves its base URL. */
  baseEnv: string;
  defaultBaseURL: string;
  /** Sent when no key is set, by local servers that need none; a provider with one counts as configured. */
  dummyKey?: string;
  /** The name of the reply-size field of an OpenAI-compatible server. */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /** The server reads `prompt_cache_key`. */
  promptCacheKey?: boolean;
  /** Its place among the providers whose model table rows name a model written without its provider (1 first). */
  guessRank?: number;
  /** Its place among the providers `lev doctor` picks a model of when its key is set (1 first). */
  doctorRank?: number;
  /** Where its requests carry a stage's model parameters (docs/providers.md#model-parameters); one left out is refused. */
  parameters: ParameterWires;
}

/** What every OpenAI-compatible server reads at the top level of a chat completion. */
const SAMPLING = { temperature: { path: 'temperature' }, top_p: { path: 'top_p' }, stop: { path: 'stop' } } as const;

export type ProviderFacts = ScriptedFacts | ServedFacts;

export const PROVIDERS = {
  openai: {
    wire: 'openai',
    baseEnv: 'OPENAI_BASE_URL',
    defaultBaseURL: 'https://api.openai.com/v1',
    keyEnv: 'OPENAI_API_KEY',
    maxTokensField: 'max_completion_tokens',
    promptCacheKey: true,
    guessRank: 2,
    doctorRank: 2,
    parameters: {
      ...SAMPLING,
      reasoning_effort: {
        path: 'reasoning_effort',
        values: sameEfforts('none', 'minimal', 'low', 'medium', 'high', 'xhigh'),
      },
    },
  },
  openrouter: {
    wire: 'openai',
    baseEnv: 'OPENROUTER_BASE_URL',
    defaultBaseURL: 'https://openrouter.ai/api/v1',
    keyEnv: 'OPENROUTER_API_KEY',
    maxTokensField: 'max_tokens',
    guessRank: 4,
    doctorRank: 4,
    parameters: {
      ...SAMPLING,
      reasoning_effort: {
        path: 'reasoning.effort',
        values: sameEfforts('none', 'minimal', 'low', 'medium', 'high', 'xhigh'),
      },
    },
  },
  ollama: {
    wire: 'openai',
    baseEnv: 'OLLAMA_BASE_URL',
    defaultBaseURL: 'http://localhost:11434/v1',
    keyEnv: 'OLLAMA_API_KEY',
    dummyKey: 'ollama',
    maxTokensField: 'max_tokens',
    guessRank: 3,
    // Its OpenAI-compatible endpoint turns `reasoning_effort` into its own `think`: "none" is off.
    parameters: {
      ...SAMPLING,
      reasoning_effort: { path: 'reasoning_effort', values: sameEfforts('none', 'low', 'medium', 'high') },
      think: { path: 'reasoning_effort', values: { false: 'none', true: 'medium' } },
    },
  },
  vllm: {
    wire: 'openai',
    baseEnv: 'VLLM_BASE_URL',
    defaultBaseURL: 'http://localhost:8000/v1',
    keyEnv: 'VLLM_API_KEY',
    dummyKey: 'EMPTY',
    maxTokensField: 'max_tokens',
    parameters: {
      ...SAMPLING,
      reasoning_effort: { path: 'reasoning_effort', values: sameEfforts('low', 'medium', 'high') },
    },
  },
  lmstudio: {
    wire: 'openai',
    baseEnv: 'LMSTUDIO_BASE_URL',
    defaultBaseURL: 'http://localhost:1234/v1',
    keyEnv: 'LMSTUDIO_API_KEY',
    dummyKey: 'lm-studio',
    maxTokensField: 'max_tokens',
    parameters: SAMPLING,
  },
  anthropic: {
    wire: 'anthropic',
    baseEnv: 'ANTHROPIC_BASE_URL',
    defaultBaseURL: 'https://api.anthropic.com',
    keyEnv: 'ANTHROPIC_API_KEY',
    guessRank: 1,
    doctorRank: 1,
    // The Messages API of its current models takes no temperature or top_p.
    parameters: {
      stop: { path: 'stop_sequences' },
      reasoning_effort: { path: 'output_config.effort', values: sameEfforts('low', 'medium', 'high', 'xhigh', 'max') },
    },
  },
  // The original Leviath's names: GOOGLE_API_KEY and GOOGLE_BASE_URL (docs/providers.md#google-gemini).
  google: {
    wire: 'google',
    baseEnv: 'GOOGLE_BASE_URL',
    defaultBaseURL: 'https://generativelanguage.googleapis.com',
    keyEnv: 'GOOGLE_API_KEY',
    doctorRank: 3,
    // Paths into the SDK's arguments, which it sends as `generationConfig`.
    parameters: {
      temperature: { path: 'config.temperature' },
      top_p: { path: 'config.topP' },
      stop: { path: 'config.stopSequences' },
      reasoning_effort: {
        path: 'config.thinkingConfig.thinkingLevel',
        values: { minimal: 'MINIMAL', low: 'LOW', medium: 'MEDIUM', high: 'HIGH' },
      },
    },
  },
  scripted: { wire: 'scripted' },
} as const satisfies Record<string, ProviderFacts>;

export type ProviderPrefix = keyof typeof PROVIDERS;

/** Every provider prefix, in the table's order. */
export const PROVIDER_PREFIXES = Object.keys(PROVIDERS) as readonly ProviderPrefix[];

/** The facts of the provider with this prefix; undefined for a prefix no provider has. */
export function providerFacts(prefix: string): ProviderFacts | undefined {
  return Object.hasOwn(PROVIDERS, prefix) ? PROVIDERS[prefix as ProviderPrefix] : undefined;
}

/** The providers that have a rank of this kind, first rank first. */
export function providersRanked(rank: 'guessRank' | 'doctorRank'): ProviderPrefix[] {
  const rankOf = (p: ProviderPrefix): number | undefined => {
    const facts: ProviderFacts = PROVIDERS[p];
    return facts.wire === 'scripted' ? undefined : facts[rank];
  };
  return PROVIDER_PREFIXES.filter((p) => rankOf(p) !== undefined).sort((a, b) => (rankOf(a) ?? 0) - (rankOf(b) ?? 0));
}

/** The environment variable of the provider's API key; undefined for one that needs none or no provider. */
export function keyEnvOf(prefix: string): string | undefined {
  const facts = providerFacts(prefix);
  return facts && facts.wire !== 'scripted' ? facts.keyEnv : undefined;
}
