/** Option parsers shared by `lev` commands; a bad value is a usage error (exit 2). */
import { type Command, InvalidArgumentError } from 'commander';
import { formatCoded, LevError } from '../errors.js';
import { DEFAULT_ADDRESS, DEFAULT_NAMESPACE } from '../runtime/defaults.js';

export function parsePort(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 65535)
    throw new InvalidArgumentError('expected a port number from 1 to 65535.');
  return n;
}

export function parseSeconds(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0)
    throw new InvalidArgumentError('expected a number of seconds of at least 0, such as 10 or 0.5.');
  return n;
}

export function parseCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number of at least 1.');
  return n;
}

/** An offset of a run's event stream (`lev events --from`): a whole number, 0 or more. */
export function parseOffset(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number of 0 or more.');
  return n;
}

/** The longest workflow id a Temporal server takes by default (`limit.maxIDLength`). */
const MAX_RUN_ID = 1000;

/**
 * A run id as a command takes it (`<run-id>`, `lev run --id`): not empty, no
 * spaces or control characters at either end or inside, at most 1000
 * characters. Anything else would reach the server as a request it refuses
 * with a gRPC trace; here it is a usage error (exit 2).
 */
export function parseRunId(value: string): string {
  const problem = runIdProblem(value);
  if (problem) throw new InvalidArgumentError(formatCoded('run-id-bad', problem));
  return value;
}

/** Why `value` is not a run id, as `parseRunId` and `lev serve`'s routes say it; undefined when it is one. */
export function runIdProblem(value: string): string | undefined {
  if (value.length === 0 || value.length > MAX_RUN_ID || /[\s\p{Cc}]/u.test(value))
    return `"${value.length > 40 ? `${value.slice(0, 40)}…` : value}" is not a run id; give the id \`lev run\` or \`lev ps\` printed (no spaces, at most ${MAX_RUN_ID} characters).`;
  return undefined;
}

/**
 * `--address`, `--namespace` and `--profile`, as every command that talks to Temporal takes them.
 * They have no default here: `resolveServerFlags` fills them in before the command runs, from the
 * environment and the `temporal.toml` profile (src/worker/connection.ts).
 */
export function serverOptions(command: Command): Command {
  return command
    .option(
      '--address <host:port>',
      `Temporal frontend address (default: TEMPORAL_ADDRESS, the profile's, else ${DEFAULT_ADDRESS})`,
    )
    .option(
      '--namespace <name>',
      `Temporal namespace (default: TEMPORAL_NAMESPACE, the profile's, else ${DEFAULT_NAMESPACE})`,
    )
    .option(
      '--profile <name>',
      'the temporal.toml profile to connect with (default: TEMPORAL_PROFILE, else "default")',
    );
}

/** The server options and `--json`, as every command that talks to a run takes them. */
export function withServerOptions(command: Command, json = "print the update's answer as one JSON line"): Command {
  return serverOptions(command).option('--json', json);
}

/** Fills in `--address` and `--namespace` of a command that takes them, before its action runs. */
export async function resolveServerFlags(command: Command): Promise<void> {
  if (!command.options.some((o) => o.long === '--address')) return;
  const { serverSettings } = await import('../worker/connection.js');
  const flags = command.opts<{ address?: string; namespace?: string; profile?: string }>();
  const settings = serverSettings(flags);
  command.setOptionValue('address', settings.address);
  command.setOptionValue('namespace', settings.namespace);
}

/** `HOST:PORT` (an IPv6 host in brackets) for a listening socket; port 0 picks a free one. */
export function parseHostPort(value: string): { host: string; port: number } {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:\s]+):(\d{1,5})$/.exec(value.trim());
  const port = Number(m?.[2]);
  if (!m || port > 65535)
    throw new InvalidArgumentError('expected HOST:PORT, such as 127.0.0.1:9464 (port 0 picks a free one).');
  return { host: (m[1] as string).replace(/^\[|\]$/g, ''), port };
}

/** `--metrics HOST:PORT`, else `LEVIATH_METRICS_ADDRESS`, checked; undefined serves no metrics. */
export function metricsAddress(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const value = flag ?? (env.LEVIATH_METRICS_ADDRESS?.trim() || undefined);
  if (value === undefined) return undefined;
  let parsed: { host: string; port: number };
  try {
    parsed = parseHostPort(value);
  } catch {
    throw new LevError(
      'metrics-bad-address',
      `The metrics address "${value}" is not HOST:PORT; pass --metrics (or LEVIATH_METRICS_ADDRESS) such as 127.0.0.1:9464.`,
    );
  }
  const { host, port } = parsed;
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}
