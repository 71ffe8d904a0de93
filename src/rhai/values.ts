/**
 * Runtime values of the Rhai subset and their conversions.
 *
 * Representation (chosen for speed in the tree walker):
 * - `i64`   -> JS number that is always an integer (|n| <= 2^53 - 1; larger is an overflow error)
 * - `f64`   -> {@link RFloat} (boxed so `5.0` and `5` stay distinct)
 * - `char`  -> {@link RChar}
 * - string  -> JS string
 * - bool    -> JS boolean
 * - `()`    -> undefined
 * - array   -> JS array of values
 * - map     -> JS Map<string, Value>
 * - `Fn`    -> {@link RFnPtr}
 * - range   -> {@link RRange}
 */

import type { Node } from './ast.js';

export class RFloat {
  constructor(readonly v: number) {}
}

export class RChar {
  constructor(readonly c: string) {}
}

export class RRange {
  constructor(
    readonly start: number,
    readonly end: number,
    readonly inclusive: boolean,
    readonly step = 1,
  ) {}
  contains(n: number): boolean {
    return this.inclusive ? n >= this.start && n <= this.end : n >= this.start && n < this.end;
  }
}

/** A variable captured by a closure: shared between the defining scope and the closure, as in Rhai. */
export class Cell {
  constructor(
    public v: Value,
    readonly isConst: boolean,
  ) {}
}

export interface Closure {
  params: string[];
  body: Node;
  captured: Map<string, Cell>;
}

export class RFnPtr {
  constructor(
    readonly name: string,
    readonly closure?: Closure,
  ) {}
}

export type RMap = Map<string, Value>;
export type Value = number | RFloat | RChar | string | boolean | undefined | Value[] | RMap | RFnPtr | RRange;

/**
 * Bulk work done outside single evaluation steps (copying, comparing, formatting, scanning).
 * The interpreter resets it per call and charges one operation per 64 units, so a loop of
 * cheap-looking but O(n) steps still ends within the operation budget. A unit is roughly the
 * cost of scanning 4 characters; copying one value costs 8, formatting one 4, comparing one 2.
 * A module variable behind functions, not an exported object: workflow threads share this
 * module between workflows and freeze what it exports (docs/architecture.md#purity-and-determinism).
 */
let workDone = 0;

/** Charges `units` of bulk work to the current call. */
export function chargeWork(units: number): void {
  workDone += units;
}

/** The bulk work charged since the last `resetWork`. */
export function bulkWork(): number {
  return workDone;
}

/** Starts a call's count at zero. */
export function resetWork(): void {
  workDone = 0;
}

export function typeName(v: Value): string {
  switch (typeof v) {
    case 'number':
      return 'i64';
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'undefined':
      return '()';
  }
  if (v instanceof RFloat) return 'f64';
  if (v instanceof RChar) return 'char';
  if (Array.isArray(v)) return 'array';
  if (v instanceof Map) return 'map';
  if (v instanceof RFnPtr) return 'Fn';
  if (v instanceof RRange) return v.inclusive ? 'range=' : 'range';
  return 'unknown';
}

/** Deep copy of arrays and maps (Rhai values are copied on assignment). */
export function deepClone(v: Value): Value {
  chargeWork(8);
  if (Array.isArray(v)) {
    const out: Value[] = new Array(v.length);
    for (let i = 0; i < v.length; i++) out[i] = deepClone(v[i]);
    return out;
  }
  if (v instanceof Map) {
    const out: RMap = new Map();
    for (const [k, x] of v) out.set(k, deepClone(x));
    return out;
  }
  return v;
}

export function isObj(v: Value): v is Value[] | RMap {
  return Array.isArray(v) || v instanceof Map;
}

/** Rhai's float display: plain decimals between 1e-13 and 1e12, else `1.5e20` / `1e-14`. */
function fmtFloat(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Number.POSITIVE_INFINITY) return 'inf';
  if (n === Number.NEGATIVE_INFINITY) return '-inf';
  const abs = Math.abs(n);
  if (abs > 1e12 || (abs !== 0 && abs < 1e-13)) return n.toExponential().replace('e+', 'e');
  let s = String(n);
  if (s.includes('e-')) {
    // JS switches to exponents below 1e-6; spell the digits out
    const [mant, exp] = n.toExponential().split('e-') as [string, string];
    const neg = mant.startsWith('-');
    const digits = mant.replace('-', '').replace('.', '');
    s = `${neg ? '-' : ''}0.${'0'.repeat(Number(exp) - 1)}${digits}`;
  }
  return s.includes('.') ? s : `${s}.0`;
}

/** Rhai's `to_string` / `print` form. */
export function display(v: Value): string {
  switch (typeof v) {
    case 'number':
      return String(v);
    case 'string':
      return v;
    case 'boolean':
      return v ? 'true' : 'false';
    case 'undefined':
      return '';
  }
  if (v instanceof RFloat) return fmtFloat(v.v);
  if (v instanceof RChar) return v.c;
  return debug(v);
}

export function escapeStr(s: string): string {
  let out = '';
  for (const ch of s) {
    switch (ch) {
      case '"':
        out += '\\"';
        break;
      case '\\':
        out += '\\\\';
        break;
      case '\n':
        out += '\\n';
        break;
      case '\t':
        out += '\\t';
        break;
      case '\r':
        out += '\\r';
        break;
      default:
        out += ch;
    }
  }
  return out;
}

/** Rhai's `debug` form: strings quoted, `()` shown. */
export function debug(v: Value): string {
  chargeWork(4);
  switch (typeof v) {
    case 'number':
      return String(v);
    case 'string':
      return `"${escapeStr(v)}"`;
    case 'boolean':
      return v ? 'true' : 'false';
    case 'undefined':
      return '()';
  }
  if (v instanceof RFloat) return fmtFloat(v.v);
  if (v instanceof RChar) return v.c; // Rhai shows chars bare, even inside arrays
  if (Array.isArray(v)) return `[${v.map(debug).join(', ')}]`;
  if (v instanceof Map) {
    const keys = [...v.keys()].sort(cmpStr);
    return `#{${keys.map((k) => `"${escapeStr(k)}": ${debug(v.get(k))}`).join(', ')}}`;
  }
  if (v instanceof RFnPtr) return `Fn(${v.name})`;
  if (v instanceof RRange) return `${v.start}..${v.inclusive ? '=' : ''}${v.end}`;
  return '?';
}

export function cmpStr(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function sortedKeys(m: RMap): string[] {
  return [...m.keys()].sort(cmpStr);
}

/** `==` semantics: ints and floats compare by value, other types must match. */
export function valuesEqual(a: Value, b: Value): boolean {
  chargeWork(2);
  if (a === b) return true;
  const ta = typeof a;
  if (ta === 'number') {
    if (b instanceof RFloat) return a === b.v;
    return false;
  }
  if (a instanceof RFloat) {
    if (typeof b === 'number') return a.v === b;
    if (b instanceof RFloat) return a.v === b.v;
    return false;
  }
  if (a instanceof RChar) return (b instanceof RChar && a.c === b.c) || (typeof b === 'string' && a.c === b);
  if (typeof a === 'string' && b instanceof RChar) return a === b.c;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!valuesEqual(a[i], b[i])) return false;
    return true;
  }
  if (a instanceof Map) {
    if (!(b instanceof Map) || a.size !== b.size) return false;
    for (const [k, x] of a) {
      if (!b.has(k) || !valuesEqual(x, b.get(k))) return false;
    }
    return true;
  }
  if (a instanceof RFnPtr) return b instanceof RFnPtr && a.name === b.name && a.closure === b.closure;
  if (a instanceof RRange)
    return (
      b instanceof RRange && a.start === b.start && a.end === b.end && a.inclusive === b.inclusive && a.step === b.step
    );
  return false;
}

export class ConversionError extends Error {}

/** JS -> Rhai (objects->maps, arrays->arrays, integers->ints, other numbers->floats, null/undefined->()). */
/** JS -> Rhai (objects->maps, arrays->arrays, integers->ints, other numbers->floats, null/undefined->()). */
export function fromJs(x: unknown, depth = 0): Value {
  if (x === null || x === undefined) return undefined;
  switch (typeof x) {
    case 'number':
      return Number.isSafeInteger(x) ? (x === 0 ? 0 : x) : new RFloat(x);
    case 'string':
    case 'boolean':
      return x;
    case 'bigint':
      return x >= BigInt(Number.MIN_SAFE_INTEGER) && x <= BigInt(Number.MAX_SAFE_INTEGER)
        ? Number(x)
        : new RFloat(Number(x));
    case 'function':
    case 'symbol':
      return undefined;
  }
  const o = x as object;
  if (o instanceof RFloat || o instanceof RChar || o instanceof RFnPtr || o instanceof RRange) return o;
  if (depth > MAX_INPUT_DEPTH)
    throw new ConversionError(`value nested deeper than ${MAX_INPUT_DEPTH} levels (or cyclic)`);
  if (Array.isArray(o)) {
    const out: Value[] = new Array(o.length);
    for (let i = 0; i < o.length; i++) out[i] = fromJs(o[i], depth + 1);
    return out;
  }
  const m: RMap = new Map();
  if (o instanceof Map) {
    for (const [k, v] of o) m.set(String(k), fromJs(v, depth + 1));
    return m;
  }
  const rec = o as Record<string, unknown>;
  for (const k in rec) if (Object.hasOwn(rec, k)) m.set(k, fromJs(rec[k], depth + 1));
  return m;
}

const MAX_INPUT_DEPTH = 256;

/** Rhai -> JS (maps->plain objects, ()->undefined, ints/floats->number, chars->string). */
export function toJs(v: Value): unknown {
  switch (typeof v) {
    case 'number':
    case 'string':
    case 'boolean':
    case 'undefined':
      return v;
  }
  if (v instanceof RFloat) return v.v;
  if (v instanceof RChar) return v.c;
  if (Array.isArray(v)) return v.map(toJs);
  if (v instanceof Map) {
    const o: Record<string, unknown> = {};
    for (const [k, x] of v) {
      if (k === '__proto__')
        Object.defineProperty(o, k, { value: toJs(x), enumerable: true, writable: true, configurable: true });
      else o[k] = toJs(x);
    }
    return o;
  }
  if (v instanceof RFnPtr) return `Fn(${v.name})`;
  if (v instanceof RRange) return { start: v.start, end: v.end, inclusive: v.inclusive };
  return undefined;
}
