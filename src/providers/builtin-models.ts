/**
 * The model table: each model's context window, output cap and tokenizer
 * encoding, so `budget = "20%"` resolves to a number of tokens. Pure data;
 * blueprints (`[models]`) and the user config extend it.
 */

import type { Encoding, ModelInfo, ModelPrices, ModelTable } from '../shapes/model-info.js';

function prices(input: number, cachedRead: number, cacheWrite = input): ModelPrices {
  return { input, cachedRead, cacheWrite };
}

/** Window assumed for a model that is not in the table (records `unknown-model-window`). */
export const UNKNOWN_MODEL_WINDOW = 8192;

/**
 * The most a reply of the model may be before the window's room is counted:
 * its own output cap, else a quarter of its window, lowered by a stage's
 * `max_tokens` parameter (docs/providers.md#model-parameters).
 */
export function replyCap(info: ModelInfo | undefined, maxTokens?: number): number {
  const cap = info?.maxOutputTokens ?? Math.floor((info?.contextWindow ?? UNKNOWN_MODEL_WINDOW) / 4);
  return maxTokens === undefined ? cap : Math.min(cap, maxTokens);
}

/**
 * Keys are `provider:model`. Prices are list prices (standard tier, prompts
 * up to 200k tokens), checked on 2026-12-02 against what the reference
 * library holds of the vendors' pages; a model whose price could not be
 * confirmed carries none, and so do local models.
 *
 * Anthropic, from its pricing page (docs.anthropic.com and
 * platform.claude.com "Pricing", "Model pricing" table) and the model
 * overview pages on platform.claude.com:
 * - Opus 4 / 4.1 ($15 input, $18.75 5-minute write, $1.50 read), Sonnet 4
 *   ($3, $3.75, $0.30) and Haiku 3.5 ($0.80, $1, $0.08): the pricing table.
 * - Opus 5 ($5, $6.25, $0.50) and Sonnet 5 ($2, $2.50, $0.20): their overview pages.
 * - Sonnet 5.5 ($2, $2.50, $0.20): its overview page. Price trackers
 *   (kurofune/claudit v1.9.2, TheKrush/PromptFuel v1.0.23) report the read
 *   cut to $0.10 on 2026-10-07; no Anthropic page in the library shows it,
 *   so the table keeps $0.20.
 * - Sonnet 4.5 ($3) and Haiku 4.5 ($1): input from their overview pages;
 *   the write and read prices follow the pricing page's multipliers
 *   (1.25x and 0.1x the input price) and agree with third-party copies of
 *   the table. Sonnet 4.5 retired on 2026-11-30.
 * - Opus 5.5, Haiku 5.5, Sonnet 4.6 and the others: no confirmed cache prices, none here.
 *
 * OpenAI: its pricing page is not in the library, so no price below is
 * confirmed on an OpenAI page. Those kept agree across dated third-party
 * copies of it (a library table "from platform.openai.com/docs/pricing,
 * 2025-06-03", tokenmath.io checked 2026-06-21, the openai-cost crate
 * "2026-Q2", simonw/llm-prices). o4-mini's copies disagree ($1.10 and
 * $0.90 input), so it carries none.
 */
export const BUILTIN_MODELS: Readonly<Record<string, ModelInfo>> = Object.freeze({
  'openai:gpt-5.6-sol': { contextWindow: 1_050_000, maxOutputTokens: 128_000 },
  'openai:gpt-5.6-terra': { contextWindow: 1_050_000, maxOutputTokens: 128_000 },
  'openai:gpt-5.6-luna': { contextWindow: 1_050_000, maxOutputTokens: 128_000 },
  'openai:gpt-5.5': { contextWindow: 1_000_000, maxOutputTokens: 128_000 },
  'openai:gpt-5.4': { contextWindow: 1_050_000, maxOutputTokens: 128_000 },
  'openai:gpt-5.4-mini': { contextWindow: 400_000, maxOutputTokens: 128_000 },
  'openai:gpt-5': { contextWindow: 400_000, maxOutputTokens: 128_000, prices: prices(1.25, 0.125) },
  'openai:gpt-5-mini': { contextWindow: 400_000, maxOutputTokens: 128_000, prices: prices(0.25, 0.025) },
  'openai:gpt-5-nano': { contextWindow: 400_000, maxOutputTokens: 128_000, prices: prices(0.05, 0.005) },
  'openai:gpt-4.1': { contextWindow: 1_047_576, maxOutputTokens: 32_768, prices: prices(2, 0.5) },
  'openai:gpt-4.1-mini': { contextWindow: 1_047_576, maxOutputTokens: 32_768, prices: prices(0.4, 0.1) },
  'openai:gpt-4.1-nano': { contextWindow: 1_047_576, maxOutputTokens: 32_768, prices: prices(0.1, 0.025) },
  'openai:gpt-4o': { contextWindow: 128_000, maxOutputTokens: 16_384, prices: prices(2.5, 1.25) },
  'openai:gpt-4o-mini': { contextWindow: 128_000, maxOutputTokens: 16_384, prices: prices(0.15, 0.075) },
  'openai:o3': { contextWindow: 200_000, maxOutputTokens: 100_000, prices: prices(2, 0.5) },
  'openai:o4-mini': { contextWindow: 200_000, maxOutputTokens: 100_000 },
  'openai:gpt-4-turbo': { contextWindow: 128_000, maxOutputTokens: 4_096, prices: prices(10, 10) },
  'openai:gpt-3.5-turbo': { contextWindow: 16_385, maxOutputTokens: 4_096, prices: prices(0.5, 0.5) },
  'anthropic:claude-opus-5-5': { contextWindow: 1_000_000, maxOutputTokens: 128_000 },
  'anthropic:claude-sonnet-5-5': { contextWindow: 1_000_000, maxOutputTokens: 128_000, prices: prices(2, 0.2, 2.5) },
  'anthropic:claude-haiku-5-5': { contextWindow: 1_000_000, maxOutputTokens: 128_000 },
  'anthropic:claude-opus-5': { contextWindow: 1_000_000, maxOutputTokens: 128_000, prices: prices(5, 0.5, 6.25) },
  'anthropic:claude-sonnet-5': { contextWindow: 1_000_000, maxOutputTokens: 128_000, prices: prices(2, 0.2, 2.5) },
  'anthropic:claude-sonnet-4-6': { contextWindow: 1_000_000, maxOutputTokens: 128_000 },
  'anthropic:claude-opus-4-1': { contextWindow: 200_000, maxOutputTokens: 32_000, prices: prices(15, 1.5, 18.75) },
  'anthropic:claude-opus-4-0': { contextWindow: 200_000, maxOutputTokens: 32_000, prices: prices(15, 1.5, 18.75) },
  'anthropic:claude-sonnet-4-5': { contextWindow: 200_000, maxOutputTokens: 64_000, prices: prices(3, 0.3, 3.75) },
  'anthropic:claude-sonnet-4-0': { contextWindow: 200_000, maxOutputTokens: 64_000, prices: prices(3, 0.3, 3.75) },
  'anthropic:claude-haiku-4-5': { contextWindow: 200_000, maxOutputTokens: 64_000, prices: prices(1, 0.1, 1.25) },
  'anthropic:claude-3-5-haiku-latest': { contextWindow: 200_000, maxOutputTokens: 8_192, prices: prices(0.8, 0.08, 1) },
  // Google and OpenRouter rows: windows and output caps from the original Leviath's model catalog.
  'google:gemini-3.5-flash': { contextWindow: 1_048_576, maxOutputTokens: 65_535 },
  'google:gemini-3.1-pro-preview': { contextWindow: 1_048_576, maxOutputTokens: 65_535 },
  'google:gemini-3-flash': { contextWindow: 1_048_576, maxOutputTokens: 65_535 },
  'google:gemini-3.1-flash-lite': { contextWindow: 1_048_576, maxOutputTokens: 65_535 },
  'openrouter:anthropic/claude-opus-5': { contextWindow: 1_000_000, maxOutputTokens: 128_000 },
  'openrouter:anthropic/claude-sonnet-5': { contextWindow: 1_000_000, maxOutputTokens: 128_000 },
  'openrouter:google/gemini-3.5-flash': { contextWindow: 1_048_576, maxOutputTokens: 65_536 },
  'ollama:llama3.1': { contextWindow: 131_072, maxOutputTokens: 8_192 },
  'ollama:llama3.2': { contextWindow: 131_072, maxOutputTokens: 8_192 },
  'ollama:qwen2.5-coder': { contextWindow: 32_768, maxOutputTokens: 8_192 },
  'ollama:qwen3': { contextWindow: 40_960, maxOutputTokens: 8_192 },
  'ollama:mistral': { contextWindow: 32_768, maxOutputTokens: 8_192 },
  'ollama:gemma3': { contextWindow: 131_072, maxOutputTokens: 8_192 },
  'ollama:gpt-oss': { contextWindow: 131_072, maxOutputTokens: 16_384 },
  'scripted:demo': { contextWindow: 32_000, maxOutputTokens: 4_096 },
  'scripted:default': { contextWindow: 200_000, maxOutputTokens: 8_192 },
});

/**
 * USD per million completion tokens, standard tier, by `provider:model`:
 * the vendors' published list prices (Anthropic's pricing page and OpenAI's,
 * as read in 2026), kept beside the prompt prices of the table above. A model
 * without an entry has no known completion price.
 */
export const COMPLETION_PRICES: Readonly<Record<string, number>> = Object.freeze({
  'openai:gpt-5': 10,
  'openai:gpt-5-mini': 2,
  'openai:gpt-5-nano': 0.4,
  'openai:gpt-4.1': 8,
  'openai:gpt-4.1-mini': 1.6,
  'openai:gpt-4.1-nano': 0.4,
  'openai:gpt-4o': 10,
  'openai:gpt-4o-mini': 0.6,
  'openai:o3': 8,
  'openai:o4-mini': 4.4,
  'openai:gpt-4-turbo': 30,
  'openai:gpt-3.5-turbo': 1.5,
  'anthropic:claude-opus-4-1': 75,
  'anthropic:claude-opus-4-0': 75,
  'anthropic:claude-sonnet-4-5': 15,
  'anthropic:claude-sonnet-4-0': 15,
  'anthropic:claude-haiku-4-5': 5,
  'anthropic:claude-3-5-haiku-latest': 4,
});

/** Splits `provider:model`; a bare name is taken as an OpenAI-compatible model. */
export function parseModelRef(ref: string): { provider: string; model: string } {
  const i = ref.indexOf(':');
  if (i <= 0) return { provider: 'openai', model: ref };
  return { provider: ref.slice(0, i), model: ref.slice(i + 1) };
}

/**
 * Looks a model up, also trying it without a `:tag` suffix (Ollama's
 * `llama3.1:8b` shares the window of `llama3.1`) and without a dated
 * suffix (`claude-sonnet-4-5-20250929`).
 */
export function lookupModel(table: ModelTable, ref: string): ModelInfo | undefined {
  return lookupRef(table, ref);
}

function lookupRef<T>(table: Readonly<Record<string, T>>, ref: string): T | undefined {
  const direct = table[ref];
  if (direct !== undefined) return direct;
  const { provider, model } = parseModelRef(ref);
  const untagged = model.split(':')[0] ?? model;
  const undated = untagged.replace(/-\d{8}$/, '');
  for (const candidate of [`${provider}:${untagged}`, `${provider}:${undated}`]) {
    const hit = table[candidate];
    if (hit !== undefined) return hit;
  }
  return undefined;
}

/** The prices a run's usage is estimated at: the table's prompt prices plus the completion price. */
export function modelPrices(table: ModelTable, ref: string): (ModelPrices & { output: number }) | undefined {
  const prompt = lookupModel(table, ref)?.prices;
  const output = lookupRef(COMPLETION_PRICES, ref);
  return prompt && output !== undefined ? { ...prompt, output } : undefined;
}

/** Encoding by model family (docs/reference/regions.md#encodings) when the table does not name one. */
export function encodingFor(ref: string, info?: ModelInfo): Encoding {
  if (info?.encoding) return info.encoding;
  const { model } = parseModelRef(ref);
  if (/^(gpt-4o|gpt-4\.1|gpt-5|o1|o3|o4)/.test(model)) return 'o200k_base';
  if (/^(gpt-4|gpt-3\.5|text-embedding-)/.test(model)) return 'cl100k_base';
  return 'o200k_base';
}
