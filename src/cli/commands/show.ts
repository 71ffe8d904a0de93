/** `lev show`: one run in full. */
import type { Command } from 'commander';
import { DEFAULT_ADDRESS, DEFAULT_NAMESPACE } from '../../runtime/defaults.js';

export interface ShowFlags {
  address: string;
  namespace: string;
  json?: boolean;
}

export function registerShow(program: Command): void {
  program
    .command('show')
    .description('Show one run: its regions, stage path, gates, usage and what it waits for.')
    .argument('<run-id>', 'the run id `lev run` or `lev ps` printed')
    .option('--address <host:port>', 'Temporal frontend address', process.env.TEMPORAL_ADDRESS ?? DEFAULT_ADDRESS)
    .option('--namespace <name>', 'Temporal namespace', process.env.TEMPORAL_NAMESPACE ?? DEFAULT_NAMESPACE)
    .option('--json', 'print one JSON object instead of the report')
    .action(async (runId: string, flags: ShowFlags) => {
      const { printRun } = await import('../show-action.js');
      await printRun(runId, flags);
    });
}
