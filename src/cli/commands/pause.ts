/** `lev pause` (docs/reference/operators.md#pause-and-resume). */
import type { Command } from 'commander';
import { registerBareUpdate } from './run-update.js';

export function registerPause(program: Command): void {
  registerBareUpdate(
    program,
    'pause',
    "Stop a run before its next inference until `lev resume` (the run's `pause` update).",
  );
}
