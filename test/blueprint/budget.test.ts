import { describe, expect, it } from 'vitest';
import { parsePercent, resolveBudget, resolveThreshold, workingSpaceShortfall } from '../../src/blueprint/budget.js';

describe('budget strings (docs/reference/regions.md#budget-strings)', () => {
  it('accepts trimmed percentages and names the rule each bad one breaks', () => {
    expect(parsePercent('35%')).toEqual({ ok: true, percent: 35 });
    expect(parsePercent(' 35 % ')).toEqual({ ok: true, percent: 35 });
    expect(parsePercent('0.6%')).toEqual({ ok: true, percent: 0.6 });
    expect(parsePercent('35')).toEqual({ ok: false, reason: 'no-percent' });
    expect(parsePercent('abc%')).toEqual({ ok: false, reason: 'not-a-number' });
    expect(parsePercent('-10%')).toEqual({ ok: false, reason: 'not-a-number' });
    expect(parsePercent('0%')).toEqual({ ok: false, reason: 'out-of-range' });
    expect(parsePercent('150%')).toEqual({ ok: false, reason: 'out-of-range' });
  });
});

describe('resolution against a window (docs/reference/regions.md#resolving-budgets, scenarios 1 and 2)', () => {
  it('resolves percent budgets with caps and floors', () => {
    expect(resolveBudget({ budgetPercent: 20 }, 200_000)).toBe(40_000);
    expect(resolveBudget({ budgetPercent: 2, maxTokens: 4000 }, 1_000_000)).toBe(4000);
    expect(resolveBudget({ budgetPercent: 10, minTokens: 9000, maxTokens: 4000 }, 200_000)).toBe(9000);
    expect(resolveBudget({ budgetPercent: 35 }, 1_000_000)).toBe(350_000);
    expect(resolveBudget({}, 1_000_000)).toBe(5000);
    expect(resolveBudget({ budgetPercent: 50 }, 3)).toBe(2);
  });

  it('derives the compacting threshold', () => {
    expect(resolveThreshold({ compactAt: 0.8 }, 40_000)).toBe(32_000);
    expect(resolveThreshold({ compactAt: 0.8, thresholdTokens: 25_000 }, 40_000)).toBe(25_000);
    expect(resolveThreshold({ thresholdTokens: 700 }, 1000)).toBe(700);
    expect(resolveThreshold({}, 1001)).toBe(800);
  });

  it('checks working space only on windows of 20000 or more', () => {
    expect(workingSpaceShortfall([15_000], 20_000)).toEqual({ fixed: 15_000, free: 5000 });
    expect(workingSpaceShortfall([12_000], 20_000)).toBeNull();
    expect(workingSpaceShortfall([9000], 10_000)).toBeNull();
  });
});
