/** `--input key=value` (repeatable) as the named caller values of a run, for `lev run` and `lev schedule create`. */
import { LevError } from '../errors.js';
import { valueOrFile } from './launch-flags.js';

export function callerValues(pairs: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0)
      throw new LevError(
        'bad-input',
        `--input takes key=value, got "${pair}"; for example --input brief="Keep it short".`,
      );
    out[pair.slice(0, eq)] = valueOrFile(pair.slice(eq + 1), `--input ${pair.slice(0, eq)}=`);
  }
  return out;
}
