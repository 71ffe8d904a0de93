/** `lev show`: one run in full. */
import type { Command } from 'commander';
import { parseRunId, withServerOptions } from '../options.js';
import type { ShowFlags } from '../show-action.js';

export function registerShow(program: Command): void {
  withServerOptions(
    program
      .command('show')
      .description('Show one run: its regions, stage path, gates, usage and what it waits for.')
      .argument('<run-id>', 'the run id `lev run` or `lev ps` printed', parseRunId),
    'print one JSON object instead of the report',
  ).action(async (runId: string, flags: ShowFlags) => {
    const { printRun } = await import('../show-action.js');
    await printRun(runId, flags);
  });
}
