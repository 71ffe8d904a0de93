/** Option parsers shared by `lev` commands; a bad value is a usage error (exit 2). */
import { type Command, InvalidArgumentError } from 'commander';
import { DEFAULT_ADDRESS, DEFAULT_NAMESPACE } from '../runtime/defaults.js';

export function parsePort(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 65535)
    throw new InvalidArgumentError('expected a port number from 1 to 65535.');
  return n;
}

/** `--address`, `--namespace` and `--json`, as every command that talks to a run takes them. */
export function withServerOptions(command: Command): Command {
  return command
    .option('--address <host:port>', 'Temporal frontend address', process.env.TEMPORAL_ADDRESS ?? DEFAULT_ADDRESS)
    .option('--namespace <name>', 'Temporal namespace', process.env.TEMPORAL_NAMESPACE ?? DEFAULT_NAMESPACE)
    .option('--json', "print the update's answer as one JSON line");
}
