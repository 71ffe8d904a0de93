/** Internal error value thrown inside the engine; the public API turns it into a `RhaiError`. */

export type LimitName = 'operations' | 'call-depth' | 'string-size' | 'array-size' | 'map-size';
export type ErrorCode = 'rhai-syntax' | 'rhai-runtime' | 'rhai-limit';

export class RhaiFault {
  constructor(
    readonly code: ErrorCode,
    /** Message without the position suffix. */
    readonly msg: string,
    readonly line: number,
    readonly column: number,
    readonly limit?: LimitName,
    /** Value carried by a script `throw`, for `catch`. */
    readonly thrown?: unknown,
    /** True when the fault comes from a script `throw` (then `thrown` may be `()`). */
    readonly isThrow = false,
  ) {}
}

export function syntaxError(msg: string, line: number, column: number): RhaiFault {
  return new RhaiFault('rhai-syntax', msg, line, column);
}
