/**
 * The slow tier: integration files that take 10 s or more on a quiet
 * two-core machine, left out of `npm run test:fast` (the inner loop) and run
 * by `npm test` like every other file. Measured with
 * `npx vitest run --project integration --reporter=json` (docs/benchmarks.md#the-test-suite);
 * a file that gets faster leaves the list.
 */
export const SLOW_FILES: string[] = [];
