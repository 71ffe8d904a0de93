/** `lev ps`: the runs on the server, one line each. */
import type { Command } from 'commander';
import { parseCount, withServerOptions } from '../options.js';
import type { PsFlags } from '../ps-action.js';

export function registerPs(program: Command): void {
  withServerOptions(
    program
      .command('ps')
      .description('List runs, newest first: id, blueprint, stage, status, turns, tokens, cost and age.')
      .option(
        '--status <status>',
        'only runs with this status: running, waiting, paused, completed, failed, cancelled, stuck, terminated, timed-out',
      )
      .option('--blueprint <name>', 'only runs of this blueprint (its [agent] name)')
      .option('--limit <n>', 'list at most this many runs', parseCount, 50),
    'print a JSON array with one object per run',
  ).action(async (flags: PsFlags) => {
    const { printRuns } = await import('../ps-action.js');
    await printRuns(flags);
  });
}
