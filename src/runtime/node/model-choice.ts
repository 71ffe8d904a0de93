/**
 * Which model of a stage's chain the inference activity calls: the first
 * one whose provider is configured (credentials present, or a local server
 * that needs none) and that the run has not given up on. When none is
 * configured the first remaining one is called, so the missing key is
 * reported as it always was.
 */

import type { RunDiagnostic } from '../../context/state.js';
import { parseModelRef } from '../../providers/builtin-models.js';
import type { Blueprint } from '../../shapes/frozen-blueprint.js';
import { providerFacts } from '../../shapes/providers.js';
import { isUnusable, stageChain, unusableModels } from '../model-fallback.js';

function present(value: string | undefined): boolean {
  return value !== undefined && value.trim() !== '';
}

/** `scripts`: the script providers the blueprint carries, which need nothing more. */
export function providerConfigured(ref: string, env: NodeJS.ProcessEnv, scripts: readonly string[] = []): boolean {
  const prefix = parseModelRef(ref).provider;
  const facts = providerFacts(prefix);
  if (!facts) return scripts.includes(prefix);
  if (facts.wire === 'scripted') return true;
  return facts.dummyKey !== undefined || present(env[facts.keyEnv]);
}

/**
 * `avoid`: entries the visit skips for now while their provider is down
 * (docs/reference/long-runs.md#provider-outages); ignored when it would leave none.
 */
export function chooseModel(
  bp: Blueprint,
  stage: string,
  diagnostics: readonly RunDiagnostic[],
  env: NodeJS.ProcessEnv,
  avoid: readonly string[] = [],
): string {
  const def = bp.stages.find((s) => s.name === stage);
  if (!def) return bp.agent.model ?? 'scripted:default';
  const chain = stageChain(def);
  if (chain.length === 1) return chain[0] ?? def.model;
  const skipped = unusableModels(diagnostics);
  const remaining = chain.filter((m) => !isUnusable(m, skipped));
  const present = remaining.filter((m) => !avoid.includes(m));
  const choice = present.length > 0 ? present : remaining;
  const scripts = (bp.providerScripts ?? []).map((p) => p.name);
  return choice.find((m) => providerConfigured(m, env, scripts)) ?? choice[0] ?? def.model;
}
