import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { LANES } from './test/integration/lanes.js';
import { SLOW_FILES } from './test/tiers.js';

// A `lev` the tests start runs the sources when dist/ is stale (bin/lev.mjs); the notice it prints then is not under test.
// What a test leaves in the data folder, and the config it reads, stay in the checkout's ignored `.leviath/test-home`,
// never the user's own folders (src/state/locations.ts); tests that need a home of their own set LEVIATH_HOME.
const env = {
  LEVIATH_QUIET_BUILD: '1',
  LEVIATH_HOME: join(dirname(fileURLToPath(import.meta.url)), '.leviath', 'test-home'),
};

// `vitest run --mode fast` (`npm run test:fast`) leaves out the slow tier (test/tiers.ts); `npm test` runs everything.
export default defineConfig(({ mode }) => ({
  test: {
    reporters: ['default', './test/slow-tests-reporter.ts'],
    // `npx vitest run --coverage`: V8's coverage of the library and the adapters, as coverage/coverage-final.json
    // for scripts/coverage-compare.mjs (what a change to the suite may not lose).
    coverage: {
      provider: 'v8',
      include: ['src/**', 'workflows/**', 'activities/**'],
      reporter: ['json', 'text-summary'],
    },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/integration/**'],
          environment: 'node',
          env,
          testTimeout: 20_000,
          maxWorkers: LANES,
          // The files of a worker run one after another in one process, importing each module once: a
          // process per file spent more CPU importing than testing. A file restores what it changes
          // (environment, working folder, spies, module state) before it ends.
          isolate: false,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          exclude: mode === 'fast' ? SLOW_FILES : [],
          environment: 'node',
          env,
          globalSetup: ['test/integration/global-setup.ts'],
          // Each file replays the histories it recorded once its tests are done.
          setupFiles: ['test/integration/replay-each-file.ts'],
          testTimeout: 180_000,
          hookTimeout: 180_000,
          // Two files at a time, each on a dev server of its own (lanes.ts); unit files share the same two workers.
          maxWorkers: LANES,
        },
      },
    ],
  },
}));
