/**
 * Runs `replay.test.ts` after every other test file, so it replays the
 * histories they recorded. Everything else keeps vitest's own order.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const REPLAY = /[\\/]test[\\/]integration[\\/]replay\.test\.ts$/;

export class ReplayLastSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return [...sorted.filter((f) => !REPLAY.test(f.moduleId)), ...sorted.filter((f) => REPLAY.test(f.moduleId))];
  }
}
