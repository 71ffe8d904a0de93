/** Connection defaults shared by the CLI and the worker (a light module: no SDK imports). */
export const DEFAULT_TASK_QUEUE = 'leviath';
export const DEFAULT_ADDRESS = '127.0.0.1:7233';
export const DEFAULT_NAMESPACE = 'default';

/** What a `lev` command printed for a person needs to reach the same server: `--address` unless it is the default. */
export function addressFlag(address: string): string {
  return address === DEFAULT_ADDRESS ? '' : ` --address ${address}`;
}
