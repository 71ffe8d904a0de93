/** `lev approve`: run a call that waits for a person (docs/reference/operators.md#approve-and-deny). */
import type { Command } from 'commander';
import { registerDecision } from './run-update.js';

export function registerApprove(program: Command): void {
  registerDecision(
    program,
    'approve',
    "Approve a tool call that waits under an `ask` permission (the run's `approve` update).",
  );
}
