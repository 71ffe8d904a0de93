/**
 * `lev context ...`: tools for looking at the region engine without a
 * model or a server. `simulate` replays a file of events (docs/reference/simulator.md).
 */
import { readFileSync } from 'node:fs';
import { type Command, InvalidArgumentError } from 'commander';
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
  const context = program.command('context').description('Inspect and simulate structured context memory.');
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
