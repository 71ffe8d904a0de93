/**
 * Picks the provider for a model ref (`provider:model`) and configures it
 * from the environment. The public API of src/providers is re-exported here.
 */
import { LevError } from '../errors.js';
import type { ProviderScriptDef } from '../shapes/frozen-blueprint.js';
import { PROVIDER_PREFIXES, providerFacts } from '../shapes/providers.js';
import { AnthropicProvider } from './anthropic.js';
import { parseModelRef } from './builtin-models.js';
import { GoogleProvider } from './google.js';
import { OpenAICompatibleProvider } from './openai.js';
import type { ModelProvider } from './provider.js';
import { ProviderError } from './provider-errors.js';
import { ScriptProvider } from './script-provider.js';
import { ScriptedProvider } from './scripted.js';

export { AnthropicProvider, buildMessagesRequest, MAX_CACHE_MARKERS, mapMessageResponse } from './anthropic.js';
export * from './builtin-models.js';
export { buildGenerateRequest, GoogleProvider, mapGenerateResponse } from './google.js';
export { buildChatRequest, mapChatResponse, OpenAICompatibleProvider } from './openai.js';
export type * from './provider.js';
export {
  failureTypeFor,
  type HandBack,
  isProviderError,
  isRetryableKind,
  PROVIDER_ERROR_KINDS,
  ProviderError,
  type ProviderErrorKind,
  parseRetryAfter,
  redactSecrets,
  toActivityFailure,
} from './provider-errors.js';
export { ScriptProvider } from './script-provider.js';
export {
  prefixDigests,
  promptDigest,
  registerScript,
  resetScriptedCalls,
  resolveScript,
  SCRIPT_FINISHED_TEXT,
  type ScriptedCall,
  ScriptedProvider,
  scriptedCalls,
  selectTurn,
  unregisterScript,
} from './scripted.js';
export { gateReached, openGate, resetGates } from './scripted-gates.js';
export { loadScriptFile, parseScript, type Script, type ScriptInput, validateScript } from './scripted-script.js';

/** Per-request timeout when LEVIATH_PROVIDER_TIMEOUT_MS is not set. */
export const DEFAULT_TIMEOUT_MS = 600_000;

/** The per-request timeout of every provider client: `LEVIATH_PROVIDER_TIMEOUT_MS`, else ten minutes. */
export function providerTimeoutMs(env: NodeJS.ProcessEnv): number {
  return timeoutFrom(env);
}

function timeoutFrom(env: NodeJS.ProcessEnv): number {
  const raw = env.LEVIATH_PROVIDER_TIMEOUT_MS;
  if (raw === undefined || raw.trim() === '') return DEFAULT_TIMEOUT_MS;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) {
    throw new LevError(
      'provider-timeout-invalid',
      `LEVIATH_PROVIDER_TIMEOUT_MS is "${raw}"; set it to a whole number of milliseconds above 0.`,
    );
  }
  return n;
}

function requireKey(provider: string, keyEnv: string, env: NodeJS.ProcessEnv): string {
  const key = env[keyEnv];
  if (key && key.trim() !== '') return key;
  throw new ProviderError('auth', `${provider} needs an API key; set ${keyEnv} in the environment.`, { provider });
}

function nonEmpty(v: string | undefined): string | undefined {
  return v && v.trim() !== '' ? v.trim() : undefined;
}

/** SDK clients by their settings; a worker uses a handful of providers, each for every call. */
const clients = new Map<string, ModelProvider>();
const MAX_CLIENTS = 32;

/**
 * The client for these settings, made once: building an SDK client on every inference cost a
 * worker about half a millisecond of CPU a turn (`npm run bench -- burst --profile`). Clients
 * hold no state between calls.
 */
function reused<O>(kind: string, Provider: new (opts: O) => ModelProvider, opts: O): ModelProvider {
  const key = `${kind}\n${JSON.stringify(opts)}`;
  let provider = clients.get(key);
  if (!provider) {
    if (clients.size >= MAX_CLIENTS) clients.clear();
    provider = new Provider(opts);
    clients.set(key, provider);
  }
  return provider;
}

/**
 * The script providers a run may call (docs/reference/script-providers.md): the scripts its
 * blueprint carries, and each one's `[model_providers.<name>]` settings of the worker's config.
 */
export interface ScriptProviders {
  defs: readonly ProviderScriptDef[];
  settings: Readonly<Record<string, Record<string, unknown>>>;
}

/**
 * The provider for `ref` (a model ref such as `ollama:llama3.1`, or a bare
 * prefix such as `anthropic`). Keys and base URLs are read from `env`; a
 * prefix no built-in provider has is one of `scripts`, when it holds one.
 */
export function getProvider(
  ref: string,
  env: NodeJS.ProcessEnv = process.env,
  scripts?: ScriptProviders,
): ModelProvider {
  const prefix = ref.includes(':') ? parseModelRef(ref).provider : ref;
  const facts = providerFacts(prefix);
  const def = facts ? undefined : scripts?.defs.find((d) => d.name === prefix);
  if (def)
    return new ScriptProvider({ def, settings: scripts?.settings[prefix] ?? {}, env, timeoutMs: timeoutFrom(env) });
  if (!facts)
    throw new LevError(
      'unknown-provider',
      `Unknown model provider "${prefix}" in "${ref}"; use one of ${PROVIDER_PREFIXES.join(', ')} (e.g. "ollama:llama3.1"), or write the script providers/${prefix}.rhai in your config folder.`,
    );
  if (facts.wire === 'scripted') return new ScriptedProvider(env);
  const common = {
    name: prefix,
    baseURL: nonEmpty(env[facts.baseEnv]) ?? facts.defaultBaseURL,
    apiKey: nonEmpty(env[facts.keyEnv]) ?? facts.dummyKey ?? requireKey(prefix, facts.keyEnv, env),
    keyEnv: facts.keyEnv,
    timeoutMs: timeoutFrom(env),
  };
  if (facts.wire === 'anthropic') return reused('anthropic', AnthropicProvider, common);
  if (facts.wire === 'google') return reused('google', GoogleProvider, common);
  return reused('openai', OpenAICompatibleProvider, {
    ...common,
    maxTokensField: facts.maxTokensField ?? 'max_tokens',
    ...(facts.promptCacheKey ? { promptCacheKey: true } : {}),
  });
}
