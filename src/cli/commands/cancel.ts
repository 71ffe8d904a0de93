/** `lev cancel`: Temporal's cancellation of a run (docs/reference/operators.md#cancellation). */
import type { Command } from 'commander';
import type { OperatorFlags } from '../operator-action.js';
import { parseRunId, withServerOptions } from '../options.js';

export function registerCancel(program: Command): void {
  withServerOptions(
    program
      .command('cancel')
      .description(
        'Cancel a run: its live stage stops at the next safe point, keeps its regions, and the run ends CANCELED.',
      )
      .argument('<run-id>', 'the run id `lev run` printed', parseRunId)
      .option('--wait', 'wait until the run has ended, and print how'),
  ).action(async (runId: string, flags: OperatorFlags & { wait?: boolean }) => {
    const { runCancel } = await import('../operator-action.js');
    await runCancel(runId, flags);
  });
}
