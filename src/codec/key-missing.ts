/**
 * A process without the codec key on a deployment whose payloads are
 * encrypted (docs/reference/operating.md#without-the-key). It must never
 * fail a run over a payload it cannot read, and a command must say what is
 * missing in one line. Kept free of the Temporal SDK so `lev`'s entry point
 * can turn the failure into its line without loading it.
 */
import { LevError } from '../errors.js';

export const KEY_MISSING_SENTENCE =
  "This process has no codec key and the run's payloads are encrypted; set LEVIATH_CODEC_KEY_FILE (or [runtime] codec_key_file in the user config) to the deployment's key file, as its other workers have it.";

/**
 * The failures this process's own codec threw. A failure of the same type can
 * also come from elsewhere (a query a keyless worker answered), and that one
 * says nothing about this process's key.
 */
const thrownHere = new WeakSet<object>();

export function markThrownHere<T extends object>(failure: T): T {
  thrownHere.add(failure);
  return failure;
}

/** `codec-key-missing` when `err`, or an error it wraps, is this process's codec meeting a payload it has no key for. */
export function keyMissingError(err: unknown): LevError | undefined {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 8; e = (e as { cause?: unknown }).cause, depth++)
    if (thrownHere.has(e)) return new LevError('codec-key-missing', KEY_MISSING_SENTENCE);
  return undefined;
}
