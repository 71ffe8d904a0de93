/** Number and character built-ins, and the numeric helpers they share with the operators. */

import type { Pos } from './ast.js';
import { NOT_FOUND } from './builtin-table.js';
import type { Interp } from './interp.js';
import { display, RChar, RFloat, type Value } from './values.js';

export function norm(n: number): number {
  return n === 0 ? 0 : n;
}

export function num(v: Value): number | null {
  if (typeof v === 'number') return v;
  if (v instanceof RFloat) return v.v;
  return null;
}

export function numberFn(
  ip: Interp,
  name: string,
  x: number | RFloat,
  args: Value[],
  at: Pos,
): Value | typeof NOT_FOUND {
  const n = args.length;
  const isInt = typeof x === 'number';
  const v = isInt ? x : x.v;
  if (n !== 1) return NOT_FOUND;
  switch (name) {
    case 'abs':
      return isInt ? norm(Math.abs(v)) : new RFloat(Math.abs(v));
    case 'sign':
      return v > 0 ? 1 : v < 0 ? -1 : 0;
    case 'to_float':
      return new RFloat(v);
    case 'to_int': {
      if (isInt) return v;
      const t = Math.trunc(v);
      if (!Number.isSafeInteger(t)) throw ip.err(`Cannot convert ${display(x)} to an integer: out of range`, at);
      return norm(t);
    }
    case 'floor':
      return isInt ? v : new RFloat(Math.floor(v));
    case 'ceiling':
      return isInt ? v : new RFloat(Math.ceil(v));
    case 'round':
      return isInt ? v : new RFloat(v < 0 ? -Math.round(-v) : Math.round(v));
    case 'sqrt':
      return new RFloat(Math.sqrt(v));
    case 'is_even':
      if (isInt) return v % 2 === 0;
      break;
    case 'is_odd':
      if (isInt) return v % 2 !== 0;
      break;
    case 'is_zero':
      return v === 0;
    case 'is_nan':
      if (!isInt) return Number.isNaN(v);
      break;
    case 'to_char':
      if (isInt && v >= 0 && v <= 0x10ffff && !(v >= 0xd800 && v <= 0xdfff)) return new RChar(String.fromCodePoint(v));
      break;
  }
  return NOT_FOUND;
}

export function charFn(name: string, ch: RChar, args: Value[]): Value | typeof NOT_FOUND {
  if (args.length !== 1) return NOT_FOUND;
  switch (name) {
    case 'to_upper':
      return new RChar(ch.c.toUpperCase().length === ch.c.length ? ch.c.toUpperCase() : ch.c);
    case 'to_lower':
      return new RChar(ch.c.toLowerCase().length === ch.c.length ? ch.c.toLowerCase() : ch.c);
    case 'to_int':
      return ch.c.codePointAt(0)!;
    case 'is_digit':
      return /^[0-9]$/.test(ch.c);
    case 'is_alphabetic':
      return /^\p{Alphabetic}$/u.test(ch.c);
    case 'is_whitespace':
      return /^\s$/.test(ch.c);
    case 'len':
      return 1;
  }
  return NOT_FOUND;
}
