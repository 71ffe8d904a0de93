/**
 * Names, at the end of a run, every test that took longer than
 * `LONG_TEST_MS` without being on the documented list (test/tiers.ts), and
 * the listed ones that ran quicker: a timing is reported, never asserted
 * (CONTRIBUTING.md#tiers).
 */
import { relative, resolve } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import { LONG_TEST_MS, LONG_TESTS } from './tiers.js';

const REPO = resolve(import.meta.dirname, '..');

export default class SlowTestsReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const long: string[] = [];
    const quicker: string[] = [];
    for (const module of modules)
      for (const test of module.children.allTests()) {
        const ms = test.diagnostic()?.duration ?? 0;
        const name = `${relative(REPO, module.moduleId)} › ${test.fullName}`;
        const listed = LONG_TESTS.includes(name);
        if (ms > LONG_TEST_MS && !listed) long.push(`  ${Math.round(ms / 1000)} s  ${name}`);
        if (ms > 0 && ms <= LONG_TEST_MS && listed) quicker.push(`  ${Math.round(ms / 1000)} s  ${name}`);
      }
    const seconds = LONG_TEST_MS / 1000;
    if (long.length > 0)
      process.stderr.write(
        `\nTests over ${seconds} s that test/tiers.ts does not list (make them wait on events: CONTRIBUTING.md#tests-that-wait):\n${long.join('\n')}\n`,
      );
    if (quicker.length > 0)
      process.stderr.write(
        `\nTests test/tiers.ts lists as over ${seconds} s that took less this time:\n${quicker.join('\n')}\n`,
      );
  }
}
