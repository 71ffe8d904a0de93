/** `lev run`: the options; the work lives in `../run-action.ts`. */
import type { Command } from 'commander';
import { DEFAULT_TASK_QUEUE } from '../../runtime/defaults.js';
import { parseRunId, serverOptions } from '../options.js';
import type { RunFlags } from '../run-action.js';

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export function registerRun(program: Command): void {
  serverOptions(program.command('run'))
    .description('Run an agent blueprint to the end, printing each turn with its region usage.')
    .argument(
      '<blueprint>',
      'blueprint directory (holding agent.toml or agent.leviath), .toml file, the name of an installed agent (`lev list`), or a pushed name[@version]',
    )
    .option('--task <text|@file>', 'the task, for blueprints that read one; @file reads it from that file')
    .option(
      '--input <key=value>',
      'a named caller value for `input` / `{caller = "key"}` seeds (repeatable); key=@file reads the value from a file',
      collect,
      [],
    )
    .option('--model <provider:model>', 'use this model for every stage')
    .option('--task-queue <name>', 'task queue of the in-process worker', DEFAULT_TASK_QUEUE)
    .option(
      '--metrics <host:port>',
      'serve Prometheus metrics of the in-process workers here (default: LEVIATH_METRICS_ADDRESS)',
    )
    .option('--workdir <dir>', 'working directory the tools and seeds are confined to', '.')
    .option('--no-seed-commands', 'refuse command seeds for this run')
    .option(
      '--tool-queue <name>',
      'send tool calls and seeds to this queue, served by `lev worker --tools` where the workdir is (default: this process)',
    )
    .option('--id <workflow-id>', 'workflow id for the run (default: <agent>-<time>-<random>)', parseRunId)
    .option('--title <text>', 'what people call the run: `lev ps` and the Web UI show it (one line, at most 200 bytes)')
    .option('--output-format <label>', 'the shape of the final answer (json, xml, yaml, csv, toml are checked)')
    .option('--output-instructions <text>', 'how the final answer should be written')
    .option(
      '--output-schema <json|@file>',
      'a JSON Schema the final answer must satisfy (implies --output-format json)',
    )
    .option('--allow <tool>', 'allow this tool where it is set to `ask` (repeatable); a `deny` stays', collect, [])
    .option('--yolo', 'unattended, with every `ask` permission allowed; a `deny` stays')
    .option(
      '--attended',
      'a person attends: `ask` permissions and ask_user wait for approve/deny/answer, asked here on a terminal',
    )
    .option(
      '--detach',
      "start the run and print its id at once; the cluster's workers and the workdir's tool worker serve it",
    )
    .option(
      '--json',
      'print one JSON object with the result instead of the turn-by-turn report (with --detach: the run started)',
    )
    .action(async (path: string, flags: RunFlags) => {
      const { runAgentCommand } = await import('../run-action.js');
      await runAgentCommand(path, flags);
    });
}
