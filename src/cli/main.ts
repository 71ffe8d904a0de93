/**
 * The `lev` command. Each subcommand lives in its own module under
 * `commands/` and registers itself on the program; this file only wires
 * them together and turns user errors into one readable line.
 */
import { Command, CommanderError } from 'commander';
import { keyMissingError } from '../codec/key-missing.js';
import { isLevError } from '../errors.js';
import { stateDirs } from '../state/locations.js';
import { LEVIATH_VERSION } from '../version.js';
import { registerCommands } from './commands/index.js';
import { resolveServerFlags } from './options.js';

export async function main(argv: string[]): Promise<number> {
  const program = new Command('lev')
    .description('Leviath: durable AI agents with structured context memory, on Temporal.')
    .version(LEVIATH_VERSION)
    .showHelpAfterError('(run with --help for usage)')
    // A command's options are its own: `lev context <run> --json` and `lev context simulate … --json` differ.
    .enablePositionalOptions()
    .exitOverride();
  registerCommands(program);
  program.hook('preAction', (_program, command) => {
    // State or config found in the old place is used, and said once, so it is never lost unnoticed.
    for (const notice of stateDirs().notices) process.stderr.write(`${notice}\n`);
    resolveServerFlags(command);
  });
  try {
    await program.parseAsync(argv, { from: 'node' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end through here with code 0; usage errors with 1,
      // which we report as 2 so scripts can tell bad usage from a failed check.
      return err.exitCode === 0 ? 0 : 2;
    }
    // A payload this process has no key for fails inside the SDK's decoding, wherever a command reads one.
    const coded = isLevError(err) ? err : keyMissingError(err);
    if (coded) {
      process.stderr.write(`error [${coded.code}] ${coded.message}\n`);
      return typeof process.exitCode === 'number' && process.exitCode !== 0 ? process.exitCode : 1;
    }
    throw err;
  }
}
