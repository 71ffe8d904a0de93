/**
 * What a run and its sub-agents spent: model calls, tokens, and their
 * estimated cost. A parent's usage includes its workers' and spawned
 * agents', whole trees: each child hands its own total back in its result,
 * and the visit that started it adds it up (docs/reference/sub-agents.md#usage).
 * Costs add as dollars, not as tokens, because a sub-agent may run other
 * models at other prices. The cost is estimated here too, from the model
 * table's list prices (docs/reference/operators.md#estimated-cost).
 */
import { modelPrices } from '../providers/builtin-models.js';
import type { Blueprint } from '../shapes/frozen-blueprint.js';
import type { ModelTable } from '../shapes/model-info.js';
import { addUsage, type CostEstimate, emptyUsage, type RunResult, type Spend, type UsageTotals } from './types.js';

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

/**
 * The usage priced at each model's list prices: uncached prompt tokens at
 * `input`, cache reads at `cachedRead`, cache writes at `cacheWrite`,
 * completion tokens at `output` (docs/reference/operators.md#estimated-cost).
 */
export function estimateCost(parts: readonly { model: string; usage: UsageTotals }[], table: ModelTable): CostEstimate {
  let usd = 0;
  const priced = new Set<string>();
  const unpriced = new Set<string>();
  for (const { model, usage } of parts) {
    if (usage.calls === 0 && usage.promptTokens === 0 && usage.completionTokens === 0) continue;
    const prices = modelPrices(table, model);
    if (!prices) {
      unpriced.add(model);
      continue;
    }
    priced.add(model);
    const uncached = Math.max(0, usage.promptTokens - usage.cacheReadTokens - usage.cacheWriteTokens);
    usd +=
      (uncached * prices.input +
        usage.cacheReadTokens * prices.cachedRead +
        usage.cacheWriteTokens * prices.cacheWrite +
        usage.completionTokens * prices.output) /
      1_000_000;
  }
  return { usd: priced.size > 0 ? usd : null, priced: [...priced], unpriced: [...unpriced] };
}

/** Two estimates of parts of one run together; unknown only when both are. */
export function addCost(a: CostEstimate, b: CostEstimate): CostEstimate {
  const union = (x: string[], y: string[]) => [...new Set([...x, ...y])];
  return {
    usd: a.usd === null && b.usd === null ? null : (a.usd ?? 0) + (b.usd ?? 0),
    priced: union(a.priced, b.priced),
    unpriced: union(a.unpriced, b.unpriced),
  };
}

/** The usage of a run's stages, each priced at the stage's model (the first of its chain). */
export function runCost(bp: Blueprint, perStage: Readonly<Record<string, UsageTotals>>): CostEstimate {
  const parts = Object.entries(perStage).map(([stage, usage]) => ({
    model: bp.stages.find((s) => s.name === stage)?.model ?? bp.agent.model ?? 'scripted:default',
    usage,
  }));
  return estimateCost(parts, bp.models);
}

/** The usage a run's result and memo show: the totals with its sub-agents', each stage's own calls, and the sub-agents' part. */
export function usageView(total: Spend, perStage: Record<string, UsageTotals>, agents: Spend): RunResult['usage'] {
  return { ...total.usage, perStage, ...(agents.usage.calls > 0 ? { agents: agents.usage } : {}) };
}
