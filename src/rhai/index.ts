/**
 * A sandboxed Rhai-subset interpreter (see docs/rhai.md).
 *
 * Pure data in, pure data out: no I/O, no clock, no randomness, no Node
 * imports, so it runs inside Temporal workflow code. Nothing here throws:
 * every failure, including an internal one, comes back as a `RhaiError`.
 */

import type { FnDef, Node } from './ast.js';
import { RhaiFault } from './faults.js';
import { RhaiHalt, type RhaiHost } from './host.js';
import { Interp } from './interp.js';
import type { RhaiLimits } from './limits.js';
import { fnKey, parseProgram } from './parser.js';
import { Scope } from './scope.js';
import { ConversionError, fromJs, toJs } from './values.js';

export interface RhaiError {
  code: 'rhai-syntax' | 'rhai-runtime' | 'rhai-limit' | 'rhai-halted';
  message: string;
  path: string;
  line: number;
  column: number;
  limit?: 'operations' | 'call-depth' | 'string-size' | 'array-size' | 'map-size';
  /** What the host function that halted the script handed back (`rhai-halted` only). */
  payload?: unknown;
  /** The value of an uncaught `throw` (or a host error carrying one), converted out; absent for `throw ()`. */
  thrown?: unknown;
}

export type { HostFunction, RhaiHost } from './host.js';
export { RhaiHalt, RhaiHostError } from './host.js';
export type { RhaiLimits };

export const DEFAULT_LIMITS: RhaiLimits = Object.freeze({
  maxOperations: 100_000,
  maxCallDepth: 64,
  maxStringSize: 1_000_000,
  maxArraySize: 100_000,
  maxMapSize: 100_000,
});

export type CompileResult = { ok: true; script: RhaiScript } | { ok: false; error: RhaiError };

export type RunResult = { ok: true; value: unknown; logs: string[] } | { ok: false; error: RhaiError; logs: string[] };

export interface RhaiScript {
  readonly path: string;
  hasFunction(name: string, arity?: number): boolean;
  /** Calls a top-level `fn` with JS values converted in (objects->maps, arrays->arrays, integers->ints, other numbers->floats, null/undefined->()) and the result converted out (maps->plain objects, ()->undefined, ints/floats->number, chars->string). Top-level statements are NOT run by call(). */
  call(name: string, args: unknown[], limits?: Partial<RhaiLimits>, host?: RhaiHost): RunResult;
  /** Runs the top-level statements with the given variables in scope and returns the last expression's value (used by seeds: inputs `task` and `workdir`). */
  run(scope?: Record<string, unknown>, limits?: Partial<RhaiLimits>, host?: RhaiHost): RunResult;
}

/** `Variable not found: foo (line 3, position 5) in context_hooks/brain.rhai` */
function formatMessage(msg: string, line: number, column: number, path: string): string {
  const at = line > 0 ? ` (line ${line}, position ${column})` : '';
  return `${msg}${at}${path ? ` in ${path}` : ''}`;
}

function toError(e: unknown, path: string, fallback: { l: number; c: number }, syntax: boolean): RhaiError {
  try {
    return describeError(e, path, fallback, syntax);
  } catch {
    return { code: 'rhai-runtime', message: formatMessage('Internal error', 0, 0, path), path, line: 0, column: 0 };
  }
}

function describeError(e: unknown, path: string, fallback: { l: number; c: number }, syntax: boolean): RhaiError {
  if (e instanceof RhaiHalt) {
    const { l: line, c: column } = fallback;
    const err: RhaiError = {
      code: 'rhai-halted',
      message: formatMessage(e.message, line, column, path),
      path,
      line,
      column,
    };
    if (e.payload !== undefined) err.payload = e.payload;
    return err;
  }
  if (e instanceof RhaiFault) {
    const err: RhaiError = {
      code: e.code,
      message: formatMessage(e.msg, e.line, e.column, path),
      path,
      line: e.line,
      column: e.column,
    };
    if (e.limit) err.limit = e.limit;
    if (e.isThrow && e.thrown !== undefined) {
      const thrown = toJs(e.thrown as Parameters<typeof toJs>[0]);
      if (thrown !== undefined) err.thrown = thrown;
    }
    return err;
  }
  let msg: string;
  if (e instanceof RangeError && /call stack/i.test(e.message)) {
    msg = syntax
      ? 'Script is nested too deeply to compile'
      : 'Script is nested too deeply: the interpreter ran out of stack';
  } else if (e instanceof ConversionError) {
    msg = `Cannot pass this value to the script: ${e.message}`;
  } else {
    msg = `Internal error: ${e instanceof Error ? e.message : String(e)}`;
  }
  return {
    code: syntax && e instanceof RangeError ? 'rhai-syntax' : 'rhai-runtime',
    message: formatMessage(msg, fallback.l, fallback.c, path),
    path,
    line: fallback.l,
    column: fallback.c,
  };
}

function resolveLimits(limits?: Partial<RhaiLimits>): RhaiLimits {
  const out: RhaiLimits = { ...DEFAULT_LIMITS };
  if (limits) {
    for (const k of Object.keys(out) as (keyof RhaiLimits)[]) {
      const v = limits[k];
      if (typeof v === 'number' && !Number.isNaN(v) && v >= 0) out[k] = v;
    }
  }
  return out;
}

class CompiledScript implements RhaiScript {
  constructor(
    readonly path: string,
    private readonly stmts: Node[],
    private readonly fns: Map<string, FnDef>,
  ) {}

  hasFunction(name: string, arity?: number): boolean {
    if (arity !== undefined) return this.fns.has(fnKey(name, arity));
    for (const def of this.fns.values()) if (def.name === name) return true;
    return false;
  }

  call(name: string, args: unknown[], limits?: Partial<RhaiLimits>, host?: RhaiHost): RunResult {
    let it: Interp | null = null;
    try {
      it = new Interp(this.fns, resolveLimits(limits), host);
      const argv = Array.isArray(args) ? args : [];
      const def = this.fns.get(fnKey(name, argv.length));
      if (!def) {
        const arities = [...this.fns.values()].filter((d) => d.name === name).map((d) => d.params.length);
        const hint = arities.length ? ` (it takes ${arities.join(' or ')} argument(s))` : '';
        return {
          ok: false,
          error: toError(
            new RhaiFault('rhai-runtime', `Function not found: ${name} with ${argv.length} argument(s)${hint}`, 0, 0),
            this.path,
            { l: 0, c: 0 },
            false,
          ),
          logs: [],
        };
      }
      const vals = argv.map((a) => fromJs(a));
      const v = it.callScript(def, vals, null, def);
      return { ok: true, value: toJs(v), logs: it.logs };
    } catch (e) {
      return { ok: false, error: toError(e, this.path, it ? it.last : { l: 0, c: 0 }, false), logs: it ? it.logs : [] };
    }
  }

  run(scope?: Record<string, unknown>, limits?: Partial<RhaiLimits>, host?: RhaiHost): RunResult {
    let it: Interp | null = null;
    try {
      it = new Interp(this.fns, resolveLimits(limits), host);
      const sc = new Scope();
      if (scope && typeof scope === 'object') {
        for (const k of Object.keys(scope)) sc.push(k, fromJs(scope[k]));
      }
      const v = it.runMain(this.stmts, sc);
      return { ok: true, value: toJs(v), logs: it.logs };
    } catch (e) {
      return { ok: false, error: toError(e, this.path, it ? it.last : { l: 0, c: 0 }, false), logs: it ? it.logs : [] };
    }
  }
}

export function compile(source: string, path: string): CompileResult {
  const p = typeof path === 'string' ? path : '';
  try {
    if (typeof source !== 'string') throw new RhaiFault('rhai-syntax', 'Script source must be a string', 0, 0);
    const prog = parseProgram(source);
    return { ok: true, script: new CompiledScript(p, prog.stmts, prog.fns) };
  } catch (e) {
    return { ok: false, error: toError(e, p, { l: 0, c: 0 }, true) };
  }
}

const compiledOnce = new Map<string, CompileResult>();

/**
 * `compile`, once per path and source in this process (or workflow sandbox): a script that runs on
 * every call of something (an output validator, a stage hook) is parsed once.
 */
export function compileOnce(source: string, path: string): CompileResult {
  const key = `${path}\0${source}`;
  let hit = compiledOnce.get(key);
  if (hit === undefined) {
    hit = compile(source, path);
    compiledOnce.set(key, hit);
  }
  return hit;
}
