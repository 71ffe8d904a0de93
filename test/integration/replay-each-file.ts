/**
 * A setup file of the integration project: once a file's tests are done, the
 * histories it recorded are replayed (replay-histories.ts), and the file
 * fails when one would not be produced again.
 */
import { afterAll, expect } from 'vitest';
import { recordedByThisFile, replayFailures } from './replay-histories.js';

afterAll(async () => {
  const recorded = recordedByThisFile();
  if (recorded.length === 0) return;
  expect(await replayFailures(recorded), 'histories that no longer replay').toEqual([]);
}, 180_000);
