/** `lev resume` (docs/reference/operators.md#pause-and-resume). */
import type { Command } from 'commander';
import type { OperatorFlags } from '../operator-action.js';
import { withServerOptions } from '../options.js';

export function registerResume(program: Command): void {
  withServerOptions(
    program
      .command('resume')
      .description("Let a paused run go on (the run's `resume` update).")
      .argument('<run-id>', 'the run id `lev run` printed'),
  ).action(async (runId: string, flags: OperatorFlags) => {
    const { runOperatorUpdate } = await import('../operator-action.js');
    await runOperatorUpdate(runId, 'resume', undefined, flags);
  });
}
