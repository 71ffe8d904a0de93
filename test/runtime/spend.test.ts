import { describe, expect, it } from 'vitest';
import { addSpend, noSpend, resultSpend, sumSpend, usageView } from '../../src/runtime/spend.js';
import type { Spend } from '../../src/runtime/types.js';

function spend(calls: number, usd: number | null, model: string): Spend {
  return {
    usage: {
      calls,
      promptTokens: calls * 100,
      completionTokens: calls * 10,
      cacheReadTokens: calls,
      cacheWriteTokens: 0,
    },
    cost: usd === null ? { usd: null, priced: [], unpriced: [model] } : { usd, priced: [model], unpriced: [] },
  };
}

describe('spend roll-up', () => {
  it('adds calls and tokens, and costs as dollars with every model named once', () => {
    const sum = addSpend(spend(2, 0.5, 'anthropic:a'), addSpend(spend(3, 0.25, 'anthropic:a'), spend(1, null, 'x:y')));
    expect(sum.usage).toEqual({
      calls: 6,
      promptTokens: 600,
      completionTokens: 60,
      cacheReadTokens: 6,
      cacheWriteTokens: 0,
    });
    expect(sum.cost).toEqual({ usd: 0.75, priced: ['anthropic:a'], unpriced: ['x:y'] });
  });

  it('keeps the cost unknown while no part has a price', () => {
    expect(addSpend(spend(1, null, 'm'), noSpend()).cost).toEqual({ usd: null, priced: [], unpriced: ['m'] });
    expect(sumSpend([])).toEqual(noSpend());
  });

  it('skips children that reported nothing, such as cancelled ones', () => {
    expect(sumSpend([spend(1, 1, 'm'), undefined, spend(2, 2, 'm')]).usage.calls).toBe(3);
  });

  it("reads a child's result (or partial result) as its tree's spend, without the per-stage breakdown", () => {
    const usage = { ...spend(4, null, 'm').usage, perStage: { work: spend(4, null, 'm').usage } };
    expect(resultSpend({ usage, cost: { usd: 1, priced: ['m'], unpriced: [] } })).toEqual({
      usage: spend(4, null, 'm').usage,
      cost: { usd: 1, priced: ['m'], unpriced: [] },
    });
    expect(resultSpend({ usage })?.cost).toEqual(noSpend().cost);
    expect(resultSpend(undefined)).toBeUndefined();
  });
});

describe('usageView', () => {
  it("shows the totals, each stage's calls, and the sub-agents' part only when they made calls", () => {
    const perStage = { main: spend(2, 0.1, 'a').usage };
    expect(usageView(spend(2, 0.1, 'a'), perStage, noSpend())).toEqual({ ...spend(2, 0.1, 'a').usage, perStage });
    expect(usageView(spend(5, 0.3, 'a'), perStage, spend(3, 0.2, 'b'))).toEqual({
      ...spend(5, 0.3, 'a').usage,
      perStage,
      agents: spend(3, 0.2, 'b').usage,
    });
  });
});
