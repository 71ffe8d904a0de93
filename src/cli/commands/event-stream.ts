/** `lev events`: a run's event stream, a line per event (docs/reference/events.md#lev-events). */
import type { Command } from 'commander';
import type { EventsFlags } from '../events-action.js';
import { parseOffset, parseRunId, withServerOptions } from '../options.js';

export function registerEvents(program: Command): void {
  withServerOptions(
    program
      .command('events')
      .description("Print a run's event stream, a line per event, following it until the run ends.")
      .argument('<run-id>', 'the run id `lev run` or `lev ps` printed', parseRunId),
    'print one JSON object per line (the events as the schema has them)',
  )
    .option('--from <offset>', 'start at this offset (default: the oldest the run still keeps)', parseOffset)
    .option('--no-follow', 'print the events that exist now and stop, instead of following the run until it ends')
    .option('--tokens', "also print the model's text as it arrives (`text` items, without an offset)")
    .action(async (runId: string, flags: EventsFlags) => {
      const { printEvents } = await import('../events-action.js');
      await printEvents(runId, flags);
    });
}
