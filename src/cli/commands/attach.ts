/** `lev attach`: follow a running run again, resuming it when nothing serves it. */
import type { Command } from 'commander';
import type { AttachFlags } from '../attach-action.js';
import { parseRunId, withServerOptions } from '../options.js';

export function registerAttach(program: Command): void {
  withServerOptions(
    program
      .command('attach')
      .description(
        'Follow a run with the live region bars of `lev run`; when no server or worker serves it, start them here so it resumes.',
      )
      .argument('<run-id>', 'the run id `lev run` or `lev ps` printed', parseRunId),
    'print one JSON object with the result at the end instead of the turn-by-turn report',
  ).action(async (runId: string, flags: AttachFlags) => {
    const { attachToRun } = await import('../attach-action.js');
    await attachToRun(runId, flags);
  });
}
