/** Dispatch of a built-in call: functions on any type here, then the per-type tables. */

import { arrayFn } from './arrays.js';
import type { Pos } from './ast.js';
import { CHEAP, NOT_FOUND, SHIFTING } from './builtin-table.js';
import type { RhaiFault } from './faults.js';
import type { Interp } from './interp.js';
import { mapFn } from './maps.js';
import { charFn, norm, num, numberFn } from './scalars.js';
import { stringFn } from './strings.js';
import {
  chargeWork,
  debug,
  display,
  fromJs,
  RChar,
  RFloat,
  RFnPtr,
  RRange,
  sortedKeys,
  toJs,
  typeName,
  type Value,
} from './values.js';

/** Like toJs, with map keys in sorted order (Rhai's maps are ordered by key). */
function toJsSorted(v: Value): unknown {
  if (Array.isArray(v)) return v.map(toJsSorted);
  if (v instanceof Map) {
    const o: Record<string, unknown> = {};
    for (const k of sortedKeys(v)) {
      if (k === '__proto__')
        Object.defineProperty(o, k, {
          value: toJsSorted(v.get(k)),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      else o[k] = toJsSorted(v.get(k));
    }
    return o;
  }
  return toJs(v);
}

export function notFound(ip: Interp, name: string, args: Value[], at: Pos): RhaiFault {
  return ip.err(`Function not found: ${name} (${args.map(typeName).join(', ')})`, at);
}

export function builtin(ip: Interp, name: string, args: Value[], at: Pos): Value {
  const a0 = args[0];
  const n = args.length;
  // O(n) string built-ins cost in proportion to their input (see `work`); array and map
  // built-ins are charged where they copy, compare, format or move elements.
  if (typeof a0 === 'string' && !CHEAP.has(name)) chargeWork(a0.length >> 2);
  else if (Array.isArray(a0) && SHIFTING.has(name)) chargeWork(a0.length >> 4);
  else if (a0 instanceof Map && (name === 'keys' || name === 'values')) chargeWork(a0.size);
  // functions that work on any type
  switch (name) {
    case 'print':
      if (n === 1) {
        ip.log(display(a0));
        return undefined;
      }
      break;
    case 'debug':
      if (n === 1) {
        ip.log(debug(a0));
        return undefined;
      }
      break;
    case 'type_of':
      if (n === 1) return typeName(a0);
      break;
    case 'to_string':
      if (n === 1) return display(a0);
      break;
    case 'to_debug':
      if (n === 1) return debug(a0);
      break;
    case 'is_empty':
      if (n === 1 && (typeof a0 === 'string' || Array.isArray(a0) || a0 instanceof Map || a0 instanceof RRange))
        return builtin(ip, 'len', args, at) === 0;
      break;
    case 'Fn':
      if (n === 1 && typeof a0 === 'string') {
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(a0)) throw ip.err(`Invalid function name for Fn: "${a0}"`, at);
        return new RFnPtr(a0);
      }
      break;
    case 'call':
      if (n >= 1 && a0 instanceof RFnPtr) return ip.callPtr(a0, args.slice(1), at);
      break;
    case 'parse_int':
      if ((n === 1 || n === 2) && typeof a0 === 'string') {
        const radix = n === 2 ? args[1] : 10;
        if (typeof radix !== 'number' || radix < 2 || radix > 36)
          throw ip.err(`Invalid radix for parse_int: ${display(radix)}`, at);
        const s = a0.trim();
        const digits = '0123456789abcdefghijklmnopqrstuvwxyz'.slice(0, radix);
        const body = s.replace(/^[+-]/, '').toLowerCase();
        if (body === '' || ![...body].every((ch) => digits.includes(ch)))
          throw ip.err(`Cannot parse "${a0}" as an integer`, at);
        const v = Number.parseInt(s, radix);
        if (!Number.isSafeInteger(v)) throw ip.err(`Cannot parse "${a0}" as an integer: out of range`, at);
        return norm(v);
      }
      break;
    case 'parse_float':
      if (n === 1 && typeof a0 === 'string') {
        const s = a0.trim();
        if (!/^[+-]?(\d[\d_]*(\.\d*)?([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|inf|NaN)$/.test(s))
          throw ip.err(`Cannot parse "${a0}" as a floating-point number`, at);
        const t = s.replace(/_/g, '');
        return new RFloat(t.endsWith('inf') ? (t.startsWith('-') ? -Infinity : Infinity) : Number(t));
      }
      break;
    case 'PI':
      if (n === 0) return new RFloat(Math.PI);
      break;
    case 'E':
      if (n === 0) return new RFloat(Math.E);
      break;
    case 'to_json':
      if (n === 1) {
        const json = JSON.stringify(toJsSorted(a0) ?? null) ?? 'null';
        chargeWork(json.length >> 2);
        return ip.checkStr(json, at);
      }
      break;
    case 'parse_json':
      if (n === 1 && typeof a0 === 'string') {
        let parsed: unknown;
        try {
          parsed = JSON.parse(a0);
        } catch (e) {
          throw ip.err(`Invalid JSON: ${e instanceof Error ? e.message : String(e)}`, at);
        }
        const v = fromJs(parsed);
        ip.checkDeep(v, at);
        return v;
      }
      break;
    case 'range':
      if ((n === 2 || n === 3) && typeof a0 === 'number' && typeof args[1] === 'number') {
        const step = n === 3 ? args[2] : 1;
        if (typeof step !== 'number' || step === 0) throw ip.err('A range step must be a non-zero integer', at);
        return new RRange(a0, args[1], false, step);
      }
      break;
    case 'min':
    case 'max':
      if (n === 2) {
        const x = num(a0);
        const y = num(args[1]);
        if (x !== null && y !== null) {
          const pick = name === 'min' ? (y < x ? args[1] : a0) : y > x ? args[1] : a0;
          if (typeof a0 === 'number' && typeof args[1] === 'number') return pick;
          return new RFloat(num(pick)!);
        }
        const b1 = args[1];
        if (typeof a0 === 'string' && typeof b1 === 'string') {
          const bFirst = b1 < a0;
          return name === 'min' ? (bFirst ? b1 : a0) : bFirst ? a0 : b1;
        }
      }
      break;
  }
  if (typeof a0 === 'string') {
    const r = stringFn(ip, name, a0, args, at);
    if (r !== NOT_FOUND) return r;
  } else if (Array.isArray(a0)) {
    const r = arrayFn(ip, name, a0, args, at);
    if (r !== NOT_FOUND) return r;
  } else if (a0 instanceof Map) {
    const r = mapFn(ip, name, a0, args, at);
    if (r !== NOT_FOUND) return r;
  } else if (typeof a0 === 'number' || a0 instanceof RFloat) {
    const r = numberFn(ip, name, a0, args, at);
    if (r !== NOT_FOUND) return r;
  } else if (a0 instanceof RChar) {
    const r = charFn(name, a0, args);
    if (r !== NOT_FOUND) return r;
  } else if (a0 instanceof RRange) {
    if (name === 'len' && n === 1) {
      if (a0.step < 0) return Math.max(0, Math.ceil((a0.start - a0.end) / -a0.step));
      return Math.max(0, Math.ceil((a0.end - a0.start + (a0.inclusive ? 1 : 0)) / a0.step));
    }
    if (name === 'contains' && n === 2 && typeof args[1] === 'number') return a0.contains(args[1]);
    if (name === 'start' && n === 1) return a0.start;
    if (name === 'end' && n === 1) return a0.end;
    if (name === 'is_inclusive' && n === 1) return a0.inclusive;
    if (name === 'is_exclusive' && n === 1) return !a0.inclusive;
  } else if (a0 instanceof RFnPtr) {
    if (name === 'is_anonymous' && n === 1) return a0.closure !== undefined;
  }
  throw notFound(ip, name, args, at);
}
