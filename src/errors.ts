/**
 * Errors a user or a model can cause are values, never stack traces.
 * Every one carries a stable kebab-case code that scripts match on and a
 * sentence that says what to do about it.
 */
import type { RuntimeCode } from './error-codes.js';

export type { RuntimeCode };

export type Severity = 'error' | 'warning' | 'note';

/** A finding about some input (a blueprint, an events file, a tool call). */
export interface Diagnostic {
  code: string;
  severity: Severity;
  message: string;
  /** Dotted key path inside the input, e.g. `context.regions.codebase.budget`. */
  path?: string;
  /** The file the finding is about, when there is one. */
  file?: string;
  line?: number;
  column?: number;
}

/**
 * Thrown only across module boundaries where a value cannot be returned
 * (CLI command handlers, activity bodies). Callers turn it back into a
 * readable line; it is never shown as a stack trace.
 */
export class LevError extends Error {
  readonly code: string;
  readonly diagnostics: Diagnostic[];

  constructor(code: string, message: string, diagnostics: Diagnostic[] = []) {
    super(message);
    this.name = 'LevError';
    this.code = code;
    this.diagnostics = diagnostics;
  }
}

/** `[code] message`, the one form coded tool results and run failures are printed in. */
export function formatCoded(code: RuntimeCode, message: string): string {
  return `[${code}] ${message}`;
}

export function isLevError(err: unknown): err is LevError {
  return err instanceof LevError;
}
