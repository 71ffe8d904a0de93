/**
 * The provider SDKs are optional dependencies (docs/benchmarks.md#the-installed-package): npm
 * installs them unless told `--omit=optional`, and each loads with its provider's first client.
 * One that is absent is a coded error that says how to add it, never a module-resolution trace.
 */
import { LevError } from '../errors.js';

/** `require(name)` from the provider's module, or `sdk-not-installed` when npm left `name` out. */
export function loadSdk<T>(require: (id: string) => unknown, name: string, provider: string): T {
  try {
    return require(name) as T;
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    // Node names the module it could not find on the first line; a module the SDK itself lacks is another failure.
    if (e.code !== 'MODULE_NOT_FOUND' || !e.message.split('\n')[0]?.includes(`'${name}'`)) throw err;
    throw new LevError(
      'sdk-not-installed',
      `The ${provider} provider needs the npm package ${name}, which is not installed (leviath was installed with --omit=optional): install it beside leviath (npm i ${name}, with -g for a global leviath), or reinstall leviath without --omit=optional.`,
    );
  }
}
