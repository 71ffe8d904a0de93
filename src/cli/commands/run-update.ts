/**
 * The shape the operator commands share (docs/reference/operators.md#commands):
 * `lev <update> <run-id> …`, with the server options, sending one of the
 * run's updates. Each command's own file says what it sends.
 */
import type { Command } from 'commander';
import type { OperatorUpdate } from '../../runtime/people/updates.js';
import type { OperatorFlags } from '../operator-action.js';
import { parseRunId, withServerOptions } from '../options.js';

/** `lev <update> <run-id>` with no argument of its own (`pause`, `resume`). */
export function registerBareUpdate(program: Command, update: OperatorUpdate, description: string): void {
  withServerOptions(
    program.command(update).description(description).argument('<run-id>', 'the run id `lev run` printed', parseRunId),
  ).action(async (runId: string, flags: OperatorFlags) => {
    const { runOperatorUpdate } = await import('../operator-action.js');
    await runOperatorUpdate(runId, update, undefined, flags);
  });
}

/** `lev approve|deny <run-id> [call] [--note T]`. */
export function registerDecision(program: Command, update: 'approve' | 'deny', description: string): void {
  withServerOptions(
    program
      .command(update)
      .description(description)
      .argument('<run-id>', 'the run id `lev run` printed', parseRunId)
      .argument('[call]', 'the tool call id; may be left out when one call waits')
      .option('--note <text>', 'a note recorded with the decision (a denial shows it to the model)'),
  ).action(async (runId: string, call: string | undefined, flags: OperatorFlags & { note?: string }) => {
    const { runOperatorUpdate } = await import('../operator-action.js');
    await runOperatorUpdate(
      runId,
      update,
      { ...(call ? { call } : {}), ...(flags.note ? { note: flags.note } : {}) },
      flags,
    );
  });
}
