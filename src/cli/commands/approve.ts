/** `lev approve`: decide a call that waits for a person (docs/reference/operators.md#approve-and-deny). */
import type { Command } from 'commander';
import type { OperatorFlags } from '../operator-action.js';
import { withServerOptions } from '../options.js';

export function registerApprove(program: Command): void {
  withServerOptions(
    program
      .command('approve')
      .description("Approve a tool call that waits under an `ask` permission (the run's `approve` update).")
      .argument('<run-id>', 'the run id `lev run` printed')
      .argument('[call]', 'the tool call id; may be left out when one call waits')
      .option('--note <text>', 'a note recorded with the decision (a denial shows it to the model)'),
  ).action(async (runId: string, call: string | undefined, flags: OperatorFlags & { note?: string }) => {
    const { runOperatorUpdate } = await import('../operator-action.js');
    await runOperatorUpdate(
      runId,
      'approve',
      { ...(call ? { call } : {}), ...(flags.note ? { note: flags.note } : {}) },
      flags,
    );
  });
}
