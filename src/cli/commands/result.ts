/** `lev result`: a finished run's final answer, fetched from Temporal. */
import type { Command } from 'commander';
import { parseRunId, withServerOptions } from '../options.js';
import type { ResultFlags } from '../result-action.js';

export function registerResult(program: Command): void {
  withServerOptions(
    program
      .command('result')
      .description("Print a finished run's final answer (the submit_output answer, else its last text).")
      .argument('<run-id>', 'the run id `lev run` printed', parseRunId),
    'print {runId, status, stages, output: {format, text}} instead of the answer alone',
  )
    .option('--wait', 'wait for a run still going to end (a detached run, say) instead of refusing it')
    .action(async (runId: string, flags: ResultFlags) => {
      const { printRunResult } = await import('../result-action.js');
      await printRunResult(runId, flags);
    });
}
