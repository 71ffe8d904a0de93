/** `lev ps`: the runs on the server, one line each. */
import type { Command } from 'commander';
import { DEFAULT_ADDRESS, DEFAULT_NAMESPACE } from '../../runtime/defaults.js';
import { parseCount } from '../options.js';

export interface PsFlags {
  address: string;
  namespace: string;
  status?: string;
  blueprint?: string;
  limit: number;
  json?: boolean;
}

export function registerPs(program: Command): void {
  program
    .command('ps')
    .description('List runs, newest first: id, blueprint, stage, status, turns, tokens, cost and age.')
    .option(
      '--status <status>',
      'only runs with this status: running, waiting, paused, completed, failed, cancelled, stuck, terminated, timed-out',
    )
    .option('--blueprint <name>', 'only runs of this blueprint (its [agent] name)')
    .option('--limit <n>', 'list at most this many runs', parseCount, 50)
    .option('--address <host:port>', 'Temporal frontend address', process.env.TEMPORAL_ADDRESS ?? DEFAULT_ADDRESS)
    .option('--namespace <name>', 'Temporal namespace', process.env.TEMPORAL_NAMESPACE ?? DEFAULT_NAMESPACE)
    .option('--json', 'print a JSON array with one object per run')
    .action(async (flags: PsFlags) => {
      const { printRuns } = await import('../ps-action.js');
      await printRuns(flags);
    });
}
