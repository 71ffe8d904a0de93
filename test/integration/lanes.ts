/**
 * How many integration files run at once, each on a dev server of its own
 * (global-setup.ts). Measured on two cores, two lanes finish the suite
 * sooner than one (docs/benchmarks.md#the-test-suite);
 * `LEVIATH_TEST_LANES=N npm test` measures another count.
 */
const DEFAULT_LANES = 2;

function lanes(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_LANES;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`LEVIATH_TEST_LANES takes a whole number of lanes, 1 or more: "${value}"`);
  return n;
}

export const LANES = lanes(process.env.LEVIATH_TEST_LANES);
