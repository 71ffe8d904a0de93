import { defineConfig } from 'vitest/config';
import { ReplayLastSequencer } from './test/integration/sequencer.js';

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
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          environment: 'node',
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
