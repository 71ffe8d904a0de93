/**
 * What a run and its sub-agents spent: model calls, tokens, and their
 * estimated cost. A parent's usage includes its workers' and spawned
 * agents', whole trees: each child hands its own total back in its result,
 * and the visit that started it adds it up (docs/reference/sub-agents.md#usage).
 * Costs add as dollars, not as tokens, because a sub-agent may run other
 * models at other prices.
 */
import { addCost, type CostEstimate } from './details.js';
import { addUsage, emptyUsage, type RunResult, type UsageTotals } from './types.js';

export interface Spend {
  usage: UsageTotals;
  cost: CostEstimate;
}

export function noSpend(): Spend {
  return { usage: emptyUsage(), cost: { usd: null, priced: [], unpriced: [] } };
}

export function addSpend(a: Spend, b: Spend): Spend {
  return { usage: addUsage(a.usage, b.usage), cost: addCost(a.cost, b.cost) };
}

/** The sum of many, in order; none sums to no spend. */
export function sumSpend(parts: readonly (Spend | undefined)[]): Spend {
  return parts.reduce<Spend>((sum, s) => (s ? addSpend(sum, s) : sum), noSpend());
}

/**
 * What a child's result (or the partial result its failure carries) says its
 * tree spent; a result of none (a cancelled child) spent nothing we know of.
 */
export function resultSpend(result: Partial<Pick<RunResult, 'usage' | 'cost'>> | undefined): Spend | undefined {
  if (!result?.usage) return undefined;
  const { calls, promptTokens, completionTokens, cacheReadTokens, cacheWriteTokens } = result.usage;
  return {
    usage: { calls, promptTokens, completionTokens, cacheReadTokens, cacheWriteTokens },
    cost: result.cost ?? noSpend().cost,
  };
}
