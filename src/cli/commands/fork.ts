/** `lev fork`: the options; the work lives in `../fork-action.ts`. */
import { type Command, InvalidArgumentError } from 'commander';
import type { ForkFlags } from '../fork-action.js';
import { parseRunId, withServerOptions } from '../options.js';

/** A turn after which to fork: a whole number from 0 (0 is before the first turn). */
export function parseTurn(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isInteger(n))
    throw new InvalidArgumentError('expected a whole number from 0, the turn after which the fork starts.');
  return n;
}

export function registerFork(program: Command): void {
  withServerOptions(
    program
      .command('fork')
      .description('Start a new run from the region set a run had after one of its turns; the run itself is untouched.')
      .argument('<run-id>', 'the run to fork, as `lev ps` lists it', parseRunId)
      .requiredOption(
        '--turn <n>',
        'fork after this turn (0: before the first), counting every turn of the run',
        parseTurn,
      )
      .option('--stage <name>', 'count --turn in this stage only, across all its visits')
      .option('--model <provider:model>', 'the fork uses this model for every stage'),
    'print one JSON object with the fork started',
  ).action(async (runId: string, flags: ForkFlags) => {
    const { forkCommand } = await import('../fork-action.js');
    await forkCommand(runId, flags);
  });
}
