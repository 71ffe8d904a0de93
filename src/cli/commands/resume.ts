/** `lev resume` (docs/reference/operators.md#pause-and-resume). */
import type { Command } from 'commander';
import { registerBareUpdate } from './run-update.js';

export function registerResume(program: Command): void {
  registerBareUpdate(program, 'resume', "Let a paused run go on (the run's `resume` update).");
}
