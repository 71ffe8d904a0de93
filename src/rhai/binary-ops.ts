/** Binary operators: integer arithmetic with overflow checks, float and mixed arithmetic, comparison, membership. */

import type { Pos } from './ast.js';
import type { RhaiFault } from './faults.js';
import type { Interp } from './interp.js';
import { norm, num } from './scalars.js';
import { deepClone, display, RChar, RFloat, type RMap, RRange, typeName, type Value, valuesEqual } from './values.js';

export function binOp(ip: Interp, op: string, a: Value, b: Value, at: Pos): Value {
  if (typeof a === 'number' && typeof b === 'number') return intOp(ip, op, a, b, at);
  if (op === '+' && typeof a === 'string') return ip.checkStr(a + (typeof b === 'string' ? b : display(b)), at);
  switch (op) {
    case '==':
      return valuesEqual(a, b);
    case '!=':
      return !valuesEqual(a, b);
    case 'in':
      return contains(ip, b, a, at);
    case '!in':
      return !contains(ip, b, a, at);
  }
  const x = num(a);
  const y = num(b);
  if (x !== null && y !== null) {
    switch (op) {
      case '+':
        return new RFloat(x + y);
      case '-':
        return new RFloat(x - y);
      case '*':
        return new RFloat(x * y);
      case '/':
        return new RFloat(x / y);
      case '%':
        return new RFloat(x % y);
      case '**':
        return new RFloat(x ** y);
      case '<':
        return x < y;
      case '<=':
        return x <= y;
      case '>':
        return x > y;
      case '>=':
        return x >= y;
    }
    throw ip.err(`Function not found: ${op} (${typeName(a)}, ${typeName(b)})`, at);
  }
  if (op === '+') {
    if (typeof a === 'string') return ip.checkStr(a + display(b), at);
    if (typeof b === 'string') return ip.checkStr(display(a) + b, at);
    if (a instanceof RChar && b instanceof RChar) return a.c + b.c;
    if (Array.isArray(a) && Array.isArray(b)) {
      if (a.length + b.length > ip.limits.maxArraySize) ip.checkArr(new Array(a.length + b.length), at);
      return [...a, ...b.map(deepClone)];
    }
    if (a instanceof Map && b instanceof Map) {
      const m: RMap = new Map(a);
      for (const [k, v] of b) m.set(k, deepClone(v));
      return ip.checkMap(m, at);
    }
  }
  if (op === '<' || op === '<=' || op === '>' || op === '>=') {
    let c: number | null = null;
    if (typeof a === 'string' && typeof b === 'string') c = a < b ? -1 : a > b ? 1 : 0;
    else if (a instanceof RChar && b instanceof RChar) c = a.c < b.c ? -1 : a.c > b.c ? 1 : 0;
    else if (typeof a === 'boolean' && typeof b === 'boolean') c = Number(a) - Number(b);
    if (c !== null) return op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : c >= 0;
  }
  if (typeof a === 'boolean' && typeof b === 'boolean') {
    if (op === '&') return a && b;
    if (op === '|') return a || b;
    if (op === '^') return a !== b;
  }
  // As in Rhai, comparing values of different types is simply false.
  if ((op === '<' || op === '<=' || op === '>' || op === '>=') && typeName(a) !== typeName(b)) return false;
  throw ip.err(`Function not found: ${op} (${typeName(a)}, ${typeName(b)})`, at);
}

export function overflow(ip: Interp, op: string, a: number, b: number, at: Pos): RhaiFault {
  const what =
    op === '+'
      ? 'Addition'
      : op === '-'
        ? 'Subtraction'
        : op === '*'
          ? 'Multiplication'
          : op === '**'
            ? 'Exponential'
            : op === '/'
              ? 'Division'
              : 'Arithmetic';
  return ip.err(`${what} overflow: ${a} ${op} ${b}`, at);
}

export function intOp(ip: Interp, op: string, a: number, b: number, at: Pos): Value {
  let r: number;
  switch (op) {
    case '+':
      r = a + b;
      break;
    case '-':
      r = a - b;
      break;
    case '*':
      r = norm(a * b);
      break;
    case '/':
      if (b === 0) throw ip.err(`Division by zero: ${a} / ${b}`, at);
      r = norm((a - (a % b)) / b);
      break;
    case '%':
      if (b === 0) throw ip.err(`Modulo division by zero or overflow: ${a} % ${b}`, at);
      r = norm(a % b);
      break;
    case '**': {
      if (b < 0) throw ip.err(`Integer raised to a negative power: ${a} ** ${b}`, at);
      if (a === 0 || a === 1) return b === 0 ? 1 : a;
      if (a === -1) return b % 2 === 0 ? 1 : -1;
      if (b > 64) throw overflow(ip, op, a, b, at);
      const big = BigInt(a) ** BigInt(b);
      if (big > BigInt(Number.MAX_SAFE_INTEGER) || big < BigInt(Number.MIN_SAFE_INTEGER))
        throw overflow(ip, op, a, b, at);
      return Number(big);
    }
    case '==':
      return a === b;
    case '!=':
      return a !== b;
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    case '>=':
      return a >= b;
    case '..':
      return new RRange(a, b, false);
    case '..=':
      return new RRange(a, b, true);
    case '&':
    case '|':
    case '^':
    case '<<':
    case '>>': {
      const x = BigInt(a);
      const y = BigInt(b);
      let big: bigint;
      if (op === '&') big = x & y;
      else if (op === '|') big = x | y;
      else if (op === '^') big = x ^ y;
      else {
        if (b < 0 || b >= 64) throw ip.err(`Shift amount out of range: ${a} ${op} ${b}`, at);
        big = op === '<<' ? BigInt.asIntN(64, x << y) : x >> y;
      }
      const r2 = Number(big);
      if (!Number.isSafeInteger(r2)) throw overflow(ip, op, a, b, at);
      return r2;
    }
    case 'in':
    case '!in':
      throw ip.err(`Function not found: ${op} (i64, i64)`, at);
    default:
      throw ip.err(`Unknown operator ${op}`, at);
  }
  if (!Number.isSafeInteger(r)) throw overflow(ip, op, a, b, at);
  return r;
}

export function contains(ip: Interp, container: Value, x: Value, at: Pos): boolean {
  if (Array.isArray(container)) {
    for (const e of container) if (valuesEqual(e, x)) return true;
    return false;
  }
  if (typeof container === 'string') {
    if (typeof x === 'string') return container.includes(x);
    if (x instanceof RChar) return container.includes(x.c);
  }
  if (container instanceof Map) {
    if (typeof x === 'string') return container.has(x);
    if (x instanceof RChar) return container.has(x.c);
  }
  if (container instanceof RRange && typeof x === 'number') return container.contains(x);
  throw ip.err(`Function not found: contains (${typeName(container)}, ${typeName(x)})`, at);
}

export function naturalCompare(ip: Interp, a: Value, b: Value, at: Pos): number {
  const x = num(a);
  const y = num(b);
  if (x !== null && y !== null) return x < y ? -1 : x > y ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (a instanceof RChar && b instanceof RChar) return a.c < b.c ? -1 : a.c > b.c ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (a === undefined && b === undefined) return 0;
  throw ip.err(`Cannot sort an array holding ${typeName(a)} and ${typeName(b)} without a comparator`, at);
}
