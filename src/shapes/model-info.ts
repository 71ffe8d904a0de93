/**
 * The shapes of the model table: a model's context window, output cap,
 * tokenizer encoding and list prices. The table itself and its lookups are
 * in `src/providers/builtin-models.ts`; blueprints, the token counter and the
 * engine share these shapes, so they sit on the ground floor.
 */

export const ENCODINGS = ['o200k_base', 'cl100k_base', 'p50k_base', 'r50k_base'] as const;
export type Encoding = (typeof ENCODINGS)[number];

export interface ModelInfo {
  /** Context window in tokens. */
  contextWindow: number;
  /** Largest reply the model may produce, in tokens. */
  maxOutputTokens: number;
  /** Tokenizer encoding; derived from the model name when absent. */
  encoding?: Encoding;
  /** List prices of prompt tokens; absent when unknown (local models, models without published prices). */
  prices?: ModelPrices;
  /**
   * `local_inference`: whether the model's calls are expected to be short enough to run as a local
   * activity (docs/reference/blueprint.md#runtime); absent: the blueprint's `[runtime]` switch decides.
   */
  localInference?: boolean;
}

/**
 * USD per million prompt tokens: plain input, a read from the provider's
 * prompt cache, and a write into it (Anthropic's 5-minute cache; providers
 * that cache automatically charge writes as plain input).
 */
export interface ModelPrices {
  input: number;
  cachedRead: number;
  cacheWrite: number;
}

export type ModelTable = Readonly<Record<string, ModelInfo>>;
