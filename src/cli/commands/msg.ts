/** `lev msg`: a message into a running run's conversation (docs/reference/operators.md#message). */
import type { Command } from 'commander';
import type { OperatorFlags } from '../operator-action.js';
import { parseRunId, withServerOptions } from '../options.js';

export function registerMsg(program: Command): void {
  withServerOptions(
    program
      .command('msg')
      .description("Send a message a running agent reads before its next inference (the run's `message` update).")
      .argument('<run-id>', 'the run id `lev run` printed', parseRunId)
      .argument('<text>', 'the message'),
  ).action(async (runId: string, text: string, flags: OperatorFlags) => {
    const { runOperatorUpdate } = await import('../operator-action.js');
    await runOperatorUpdate(runId, 'message', text, flags);
  });
}
