import { defineConfig } from 'vitest/config';
import { ReplayLastSequencer } from './test/integration/sequencer.js';

// A `lev` the tests start runs the sources when dist/ is stale (bin/lev.mjs); the notice it prints then is not under test.
const env = { LEVIATH_QUIET_BUILD: '1' };

export default defineConfig({
  test: {
    // vitest reads the sequencer from the root config only; it moves replay.test.ts last.
    sequence: { sequencer: ReplayLastSequencer },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/integration/**'],
          environment: 'node',
          env,
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          environment: 'node',
          env,
          globalSetup: ['test/integration/global-setup.ts'],
          testTimeout: 180_000,
          hookTimeout: 180_000,
          // One dev server for the whole run; files share it one at a time so
          // two cores are not oversubscribed by parallel workers.
          fileParallelism: false,
        },
      },
    ],
  },
});
