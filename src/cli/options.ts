/** Option parsers shared by `lev` commands; a bad value is a usage error (exit 2). */
import { InvalidArgumentError } from 'commander';

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
