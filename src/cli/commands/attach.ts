/** `lev attach`: follow a running run again, resuming it when nothing serves it. */
import type { Command } from 'commander';
import { DEFAULT_ADDRESS, DEFAULT_NAMESPACE } from '../../runtime/defaults.js';

export interface AttachFlags {
  address: string;
  namespace: string;
  json?: boolean;
}

export function registerAttach(program: Command): void {
  program
    .command('attach')
    .description(
      'Follow a run with the live region bars of `lev run`; when no server or worker serves it, start them here so it resumes.',
    )
    .argument('<run-id>', 'the run id `lev run` or `lev ps` printed')
    .option('--address <host:port>', 'Temporal frontend address', process.env.TEMPORAL_ADDRESS ?? DEFAULT_ADDRESS)
    .option('--namespace <name>', 'Temporal namespace', process.env.TEMPORAL_NAMESPACE ?? DEFAULT_NAMESPACE)
    .option('--json', 'print one JSON object with the result at the end instead of the turn-by-turn report')
    .action(async (runId: string, flags: AttachFlags) => {
      const { attachToRun } = await import('../attach-action.js');
      await attachToRun(runId, flags);
    });
}
