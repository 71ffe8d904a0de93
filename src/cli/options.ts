/** Option parsers shared by `lev` commands; a bad value is a usage error (exit 2). */
import { type Command, InvalidArgumentError } from 'commander';
import { DEFAULT_ADDRESS, DEFAULT_NAMESPACE } from '../runtime/defaults.js';

export function parsePort(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 65535)
    throw new InvalidArgumentError('expected a port number from 1 to 65535.');
  return n;
}

export function parseCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number of at least 1.');
  return n;
}

/** `--address`, `--namespace` and `--json`, as every command that talks to a run takes them. */
export function withServerOptions(command: Command, json = "print the update's answer as one JSON line"): Command {
  return command
    .option('--address <host:port>', 'Temporal frontend address', process.env.TEMPORAL_ADDRESS ?? DEFAULT_ADDRESS)
    .option('--namespace <name>', 'Temporal namespace', process.env.TEMPORAL_NAMESPACE ?? DEFAULT_NAMESPACE)
    .option('--json', json);
}

/** `HOST:PORT` (an IPv6 host in brackets) for a listening socket; port 0 picks a free one. */
export function parseHostPort(value: string): { host: string; port: number } {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:\s]+):(\d{1,5})$/.exec(value.trim());
  const port = Number(m?.[2]);
  if (!m || port > 65535)
    throw new InvalidArgumentError('expected HOST:PORT, such as 127.0.0.1:9464 (port 0 picks a free one).');
  return { host: (m[1] as string).replace(/^\[|\]$/g, ''), port };
}
