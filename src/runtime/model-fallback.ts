/**
 * Model fallback chains (`model = { models = [...] }`): which failures make
 * a provider unusable for the rest of the run, and the `model-fallback`
 * diagnostic that records the move down the chain. The diagnostics are part
 * of the region set, so the inference activity reads the same list back and
 * skips the models it names. Pure: imported by workflow code.
 */

import type { RunDiagnostic } from '../context/state.js';
import type { StageDef } from '../shapes/frozen-blueprint.js';

export const MODEL_FALLBACK = 'model-fallback';

/**
 * Failure types (src/providers/provider-errors.ts) that mean the provider cannot
 * serve the run: the key is rejected or lacks access, the quota is spent, or
 * it stayed unreachable through every retry. A bad request is the request's
 * fault and never moves down the chain.
 */
const UNUSABLE = new Set([
  'ProviderAuth',
  'ProviderForbidden',
  'ProviderRateLimit',
  'ProviderConnection',
  'ProviderTimeout',
  'ProviderServer',
]);

/** The stage's models in order: its chain, or its one model. */
export function stageChain(def: StageDef): string[] {
  return def.models ?? [def.model];
}

/** Models the run has given up on, read from its `model-fallback` diagnostics. */
export function unusableModels(diagnostics: readonly RunDiagnostic[]): string[] {
  return diagnostics.filter((d) => d.code === MODEL_FALLBACK).map((d) => d.detail.split(' ')[0] ?? '');
}

function providerOf(ref: string): string {
  const i = ref.indexOf(':');
  return i <= 0 ? 'openai' : ref.slice(0, i);
}

/**
 * True when `ref`'s provider has failed in this run: a rejected key or a
 * spent quota holds for every model of that provider, so later stages skip
 * them all instead of failing once more each.
 */
export function isUnusable(ref: string, unusable: readonly string[]): boolean {
  return unusable.some((u) => providerOf(u) === providerOf(ref));
}

/**
 * The `model-fallback` detail for a failed inference, or undefined when the
 * stage must fail as before: the failure is not one that makes a provider
 * unusable, the failed model is unknown, or no later model is left.
 */
export function fallbackDetail(
  def: StageDef,
  diagnostics: readonly RunDiagnostic[],
  failure: { type?: string | null; model?: unknown; message: string },
): string | undefined {
  if (!failure.type || !UNUSABLE.has(failure.type) || typeof failure.model !== 'string') return undefined;
  const chain = stageChain(def);
  const skipped = [...unusableModels(diagnostics), failure.model];
  if (!chain.includes(failure.model) || chain.every((m) => isUnusable(m, skipped))) return undefined;
  return `${failure.model} unusable (${failure.message.slice(0, 200)}); stage "${def.name}" continues on the next provider of its chain`;
}
