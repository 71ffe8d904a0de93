import { describe, expect, it } from 'vitest';
import { budgetExhausted, runBudget, spentTokens } from '../../src/runtime/guardrails.js';
import type { Spend } from '../../src/runtime/types.js';
import { loadToml } from '../blueprint/helpers.js';

function spend(promptTokens: number, completionTokens: number, usd: number | null): Spend {
  return {
    usage: { calls: 1, promptTokens, completionTokens, cacheReadTokens: 0, cacheWriteTokens: 0 },
    cost: { usd, priced: usd === null ? [] : ['m'], unpriced: usd === null ? ['m'] : [] },
  };
}

describe('spend caps', () => {
  it('reads [run] max_cost_usd and max_tokens, and caps nothing without them', () => {
    const bp = loadToml('[run]\nmax_cost_usd = 2.5\nmax_tokens = 100000\n').blueprint!;
    expect(runBudget(bp)).toEqual({ maxCostUsd: 2.5, maxTokens: 100000 });
    expect(runBudget(loadToml('[run]\nask_timeout = "1h"\n').blueprint!)).toBeUndefined();
    expect(budgetExhausted(undefined, spend(1e9, 1e9, 1e9))).toBeUndefined();
  });

  it('refuses a cap that is not a positive figure', () => {
    const codes = loadToml('[run]\nmax_cost_usd = -1\nmax_tokens = 0\n').diagnostics.map((d) => d.code);
    expect(codes).toEqual(expect.arrayContaining(['bad-value', 'bad-size']));
  });

  it('stops a run at max_tokens, prompt and completion tokens counted', () => {
    expect(spentTokens(spend(900, 100, null))).toBe(1000);
    expect(budgetExhausted({ maxTokens: 1001 }, spend(900, 100, null))).toBeUndefined();
    expect(budgetExhausted({ maxTokens: 1000 }, spend(900, 100, null))).toMatch(
      /spent 1000 tokens.*max_tokens is 1000/,
    );
  });

  it('stops a run at max_cost_usd of its priced models', () => {
    expect(budgetExhausted({ maxCostUsd: 1 }, spend(0, 0, 0.99))).toBeUndefined();
    expect(budgetExhausted({ maxCostUsd: 1 }, spend(0, 0, 1))).toMatch(/\$1\.0000.*max_cost_usd is 1/);
    // Unpriced usage has no dollars to count.
    expect(budgetExhausted({ maxCostUsd: 1 }, spend(1e6, 1e6, null))).toBeUndefined();
  });
});
