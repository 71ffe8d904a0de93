/**
 * `lev context <run> [--turn N]`: a run's window over its turns (docs/reference/cli.md#lev-context);
 * `lev context simulate`: the region engine without a model or a server, replaying a file of
 * events (docs/reference/simulator.md).
 */
import { readFileSync } from 'node:fs';
import { type Command, InvalidArgumentError } from 'commander';
import type { ContextFlags } from '../context-action.js';
import { parseOffset, parseRunId, serverOptions } from '../options.js';
import { formatReport, simulate } from '../simulate/index.js';

interface SimulateFlags {
  events: string;
  stage?: string;
  window?: number;
  json?: boolean;
}

function parseWindow(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1) {
    throw new InvalidArgumentError('give the window as a positive whole number of tokens, such as --window 100000.');
  }
  return n;
}

export function registerContext(program: Command): void {
  // `simulate` has options of its own (`--json`): the run's options are read only before it.
  const context = serverOptions(program.command('context').enablePositionalOptions())
    .description(
      "Show a run's window over its turns (with --turn N: the regions and the prompt of that turn), or simulate structured context memory.",
    )
    .argument('[run-id]', 'the run id `lev run` or `lev ps` printed', parseRunId)
    .option(
      '--turn <n>',
      "the window that turn read, rebuilt from the run's histories: its regions and the rendered prompt",
      parseOffset,
    )
    .option('--json', 'print the history, or the turn, as one JSON object')
    .action(async (runId: string | undefined, flags: ContextFlags) => {
      if (runId === undefined) {
        context.help({ error: true });
        return;
      }
      const { printContext } = await import('../context-action.js');
      await printContext(runId, flags);
    });
  context
    .command('simulate')
    .description('Replay a JSONL file of events through the region engine and print the resulting regions and prompt.')
    .argument('<blueprint>', 'blueprint directory (holding agent.toml or agent.leviath) or .toml file')
    .requiredOption('--events <file>', 'events file: one JSON object per line')
    .option('--stage <name>', 'stage to start in (default: the entry stage)')
    .option('--window <tokens>', 'context window for every stage, in tokens', parseWindow)
    .option('--json', 'print the result as JSON')
    .action((blueprint: string, flags: SimulateFlags) => {
      let eventsText: string;
      try {
        eventsText = readFileSync(flags.events, 'utf8');
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
        process.stderr.write(
          `${flags.events}: error [events-unreadable] cannot read the events file (${code}); give a readable .jsonl file.\n`,
        );
        process.exitCode = 2;
        return;
      }
      const opts: Parameters<typeof simulate>[2] = { eventsFile: flags.events };
      if (flags.stage !== undefined) opts.stage = flags.stage;
      if (flags.window !== undefined) opts.window = flags.window;
      const result = simulate(blueprint, eventsText, opts);
      process.stderr.write(result.stderr);
      if (result.json)
        process.stdout.write(flags.json ? `${JSON.stringify(result.json, null, 2)}\n` : formatReport(result.json));
      process.exitCode = result.exitCode;
    });
}
