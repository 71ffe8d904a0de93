/** `lev stages`: a run's per-stage ledger (docs/reference/cli.md#lev-stages). */
import type { Command } from 'commander';
import { parseRunId, withServerOptions } from '../options.js';
import type { StagesFlags } from '../stages-action.js';

export function registerStages(program: Command): void {
  withServerOptions(
    program
      .command('stages')
      .description(
        "Print a run's per-stage ledger: each stage visit with its start, time, turns, tokens, cost, end and the stage it went on to.",
      )
      .argument('<run-id>', 'the run id `lev run` or `lev ps` printed', parseRunId),
    'print the ledger as one JSON object: {runId, visits, total, runEnded, from}',
  ).action(async (runId: string, flags: StagesFlags) => {
    const { printStages } = await import('../stages-action.js');
    await printStages(runId, flags);
  });
}
