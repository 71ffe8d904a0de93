/**
 * Host functions: what a caller lends a script beyond the built-ins (script
 * tools lend `read_file`, `http_get`, ...; docs/rhai.md#host-functions). A host
 * function takes and returns plain JS values, converted as `run` converts its
 * scope. It fails the call with `RhaiHostError`, an ordinary runtime error the
 * script may catch, or stops the whole script with `RhaiHalt`, which no
 * `try`/`catch` sees: the caller then gets a `rhai-halted` error carrying the
 * halt's payload.
 */

export type HostFunction = (args: unknown[]) => unknown;

/** Functions by name; a script function or a variable holding a closure of the same name wins over one. */
export type RhaiHost = Readonly<Record<string, HostFunction>>;

/**
 * A failed host call, seen by the script as a runtime error with this message; with a `value`, as
 * a `throw` of that value (what `catch (e)` receives), so a host can hand the script a structured
 * error map as the original's provider host functions do.
 */
export class RhaiHostError {
  constructor(
    readonly message: string,
    readonly value?: unknown,
  ) {}
}

/** Stops the script at once; `payload` is handed back with the `rhai-halted` error. */
export class RhaiHalt {
  constructor(
    readonly message: string,
    readonly payload?: unknown,
  ) {}
}
