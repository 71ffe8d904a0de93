/** `lev deny`: refuse a call that waits for a person; the model reads the note (docs/reference/operators.md#approve-and-deny). */
import type { Command } from 'commander';
import { registerDecision } from './run-update.js';

export function registerDeny(program: Command): void {
  registerDecision(
    program,
    'deny',
    "Deny a tool call that waits under an `ask` permission; the model reads the note (the run's `deny` update).",
  );
}
