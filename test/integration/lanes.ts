/**
 * How many integration files run at once, each on a dev server of its own
 * (global-setup.ts): measured on two cores, two lanes finish the suite
 * sooner than one (docs/benchmarks.md#the-test-suite).
 */
export const LANES = 2;
