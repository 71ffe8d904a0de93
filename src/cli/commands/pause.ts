/** `lev pause` (docs/reference/operators.md#pause-and-resume). */
import type { Command } from 'commander';
import type { OperatorFlags } from '../operator-action.js';
import { withServerOptions } from '../options.js';

export function registerPause(program: Command): void {
  withServerOptions(
    program
      .command('pause')
      .description("Stop a run before its next inference until `lev resume` (the run's `pause` update).")
      .argument('<run-id>', 'the run id `lev run` printed'),
  ).action(async (runId: string, flags: OperatorFlags) => {
    const { runOperatorUpdate } = await import('../operator-action.js');
    await runOperatorUpdate(runId, 'pause', undefined, flags);
  });
}
