/**
 * Spend caps for runs nobody watches (docs/reference/long-runs.md#spend-caps):
 * `[run] max_cost_usd` and `[run] max_tokens` stop a run with
 * `budget-exhausted` once what it spent (its own calls and its sub-agents')
 * reaches either. Checked before each inference of a visit and before each
 * visit. Pure: imported by workflow code.
 */
import type { Blueprint } from '../shapes/frozen-blueprint.js';
import { addSpend } from './spend.js';
import type { Spend, StageInput } from './types.js';

/** A run's caps, as `[run]` sets them; absent keys cap nothing. */
export interface RunBudget {
  maxCostUsd?: number;
  maxTokens?: number;
}

/** The caps of a blueprint's `[run]` table, or undefined when it sets none. */
export function runBudget(bp: Pick<Blueprint, 'run'>): RunBudget | undefined {
  const run = bp.run;
  if (run?.maxCostUsd === undefined && run?.maxTokens === undefined) return undefined;
  return {
    ...(run.maxCostUsd !== undefined ? { maxCostUsd: run.maxCostUsd } : {}),
    ...(run.maxTokens !== undefined ? { maxTokens: run.maxTokens } : {}),
  };
}

/** Tokens a cap counts: every prompt and completion token, cached ones included. */
export function spentTokens(spend: Spend): number {
  return spend.usage.promptTokens + spend.usage.completionTokens;
}

/**
 * Why the run must stop, or undefined while it is within its caps. A cost cap
 * counts only priced models: unpriced usage has no dollar figure to add.
 */
export function budgetExhausted(budget: RunBudget | undefined, spent: Spend): string | undefined {
  if (!budget) return undefined;
  const tokens = spentTokens(spent);
  if (budget.maxTokens !== undefined && tokens >= budget.maxTokens)
    return `the run spent ${tokens} tokens, its [run] max_tokens is ${budget.maxTokens}; raise it to let such a run go on.`;
  const usd = spent.cost.usd ?? 0;
  if (budget.maxCostUsd !== undefined && usd >= budget.maxCostUsd)
    return `the run spent an estimated $${usd.toFixed(4)}, its [run] max_cost_usd is ${budget.maxCostUsd}; raise it to let such a run go on.`;
  return undefined;
}

/**
 * Why a visit must stop before its next inference: what the run spent before
 * the visit and the visit's own spend reach a `[run]` cap
 * (docs/reference/long-runs.md#spend-caps); undefined when it has none.
 */
export function visitOverBudget(
  input: Pick<StageInput, 'blueprint' | 'spentBefore'>,
  spent: Spend,
): string | undefined {
  const before = input.spentBefore;
  return before ? budgetExhausted(runBudget(input.blueprint), addSpend(before, spent)) : undefined;
}
