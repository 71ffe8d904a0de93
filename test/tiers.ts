/**
 * The suite's tiers (CONTRIBUTING.md#tiers), measured on a quiet two-core
 * machine (docs/benchmarks.md#the-test-suite); a file or test that gets
 * faster leaves its list.
 */

/** Integration files of 10 s or more, left out of `npm run test:fast` and run by `npm test` like every other. */
export const SLOW_FILES: string[] = [];

/** Tests allowed over 30 s, as `file › full name`, with why; `slow-tests-reporter.ts` names any other. */
export const LONG_TESTS: string[] = [];

/** A test longer than this is named at the end of a run unless `LONG_TESTS` lists it. */
export const LONG_TEST_MS = 30_000;
