/** Places: reading and writing variables, properties and indexed elements, with Rhai's value semantics. */

import { appendTo } from './arrays.js';
import type { Node, Pos } from './ast.js';
import { binOp } from './binary-ops.js';
import { GETTERS } from './builtin-table.js';
import { builtin } from './builtins.js';
import { RhaiFault } from './faults.js';
import type { Interp } from './interp.js';
import { mapKey } from './maps.js';
import type { Frame } from './scope.js';
import { strChars } from './strings.js';
import { Cell, deepClone, RChar, RFnPtr, RRange, typeName, type Value } from './values.js';

export function evalAssign(ip: Interp, n: Extract<Node, { k: 'assign' }>, f: Frame): void {
  if (n.op === null) {
    setPlace(ip, n.target, ip.storeVal(n.value, f), f, n);
    return;
  }
  const cur = ip.eval(n.target, f);
  const rhs = ip.eval(n.value, f);
  if (n.op === '+' && Array.isArray(cur)) {
    // in-place append, as Rhai does
    appendTo(ip, cur, rhs, n);
    return;
  }
  if (n.op === '+' && cur instanceof Map && rhs instanceof Map) {
    for (const [k, x] of rhs) cur.set(k, deepClone(x));
    ip.checkMap(cur, n);
    return;
  }
  setPlace(ip, n.target, binOp(ip, n.op, cur, rhs, n), f, n);
}

export function setPlace(ip: Interp, t: Node, v: Value, f: Frame, at: Pos): void {
  switch (t.k) {
    case 'var': {
      const i = f.scope.find(t.name);
      if (i < 0) throw ip.err(`Variable not found: ${t.name}`, t);
      if (f.scope.consts[i]) throw ip.err(`Cannot modify constant ${t.name}`, t);
      const cur = f.scope.vals[i];
      if (cur instanceof Cell) cur.v = v;
      else f.scope.vals[i] = v;
      return;
    }
    case 'this':
      if (!f.thisBox) throw ip.err("'this' is only bound inside a function called in method style", t);
      f.thisBox.v = v;
      return;
    case 'prop': {
      const o = ip.eval(t.obj, f);
      if (o instanceof Map) {
        ensureMutable(ip, t.obj, f);
        o.set(t.name, v);
        ip.checkMap(o, at);
        return;
      }
      throw ip.err(`Cannot set property '${t.name}' on a value of type ${typeName(o)}`, t);
    }
    case 'index': {
      const o = ip.eval(t.obj, f);
      const idx = ip.eval(t.idx, f);
      ensureMutable(ip, t.obj, f);
      if (Array.isArray(o)) {
        o[arrIndex(ip, o.length, idx, t)] = v;
        return;
      }
      if (o instanceof Map) {
        o.set(mapKey(ip, idx, t), v);
        ip.checkMap(o, at);
        return;
      }
      if (typeof o === 'string') {
        if (!(v instanceof RChar))
          throw ip.err(`Only a character can be assigned into a string, not ${typeName(v)}`, t);
        const cs = strChars(o).slice();
        cs[strIndex(ip, cs.length, idx, t)] = v.c;
        setPlace(ip, t.obj, cs.join(''), f, at);
        return;
      }
      throw ip.err(`Cannot index into a value of type ${typeName(o)}`, t);
    }
    default:
      throw ip.err('Expression cannot be assigned to', t);
  }
}

/** Writing through a constant's container is an error too. */
export function ensureMutable(ip: Interp, t: Node, f: Frame): void {
  let r = t;
  while (r.k === 'prop' || r.k === 'index') r = r.obj;
  if (r.k === 'var') {
    const i = f.scope.find(r.name);
    if (i >= 0 && f.scope.consts[i]) throw ip.err(`Cannot modify constant ${r.name}`, r);
  }
}

export function arrIndex(ip: Interp, len: number, idx: Value, at: Pos): number {
  if (typeof idx !== 'number') throw ip.err(`Array index must be an integer, not ${typeName(idx)}`, at);
  const i = idx < 0 ? len + idx : idx;
  if (i < 0 || i >= len)
    throw ip.err(`Array index ${idx} out of bounds: only ${len} element${len === 1 ? '' : 's'} in array`, at);
  return i;
}

export function strIndex(ip: Interp, len: number, idx: Value, at: Pos): number {
  if (typeof idx !== 'number') throw ip.err(`String index must be an integer, not ${typeName(idx)}`, at);
  const i = idx < 0 ? len + idx : idx;
  if (i < 0 || i >= len)
    throw ip.err(`String index ${idx} out of bounds: only ${len} character${len === 1 ? '' : 's'} in string`, at);
  return i;
}

export function getIndex(ip: Interp, o: Value, idx: Value, at: Pos): Value {
  if (Array.isArray(o)) return o[arrIndex(ip, o.length, idx, at)];
  if (o instanceof Map) return o.get(mapKey(ip, idx, at));
  if (typeof o === 'string') {
    const cs = strChars(o);
    if (idx instanceof RRange) {
      // `s[1..3]`: the characters in the range, as in Rhai
      const start = Math.max(0, idx.start);
      const end = Math.min(cs.length, idx.inclusive ? idx.end + 1 : idx.end);
      return start >= end ? '' : cs.slice(start, end).join('');
    }
    return new RChar(cs[strIndex(ip, cs.length, idx, at)]!);
  }
  if (typeof o === 'number' && typeof idx === 'number') {
    if (idx < 0 || idx >= 64) throw ip.err(`Bit index ${idx} out of bounds`, at);
    return ((BigInt(o) >> BigInt(idx)) & 1n) === 1n;
  }
  throw ip.err(`Cannot index into a value of type ${typeName(o)}`, at);
}

export function getProp(ip: Interp, o: Value, name: string, at: Pos): Value {
  if (o instanceof Map) return o.get(name);
  if (o instanceof RFnPtr && name === 'name') return o.name;
  // Rhai's property getters on built-in types
  if (GETTERS.has(name) && o !== undefined) {
    try {
      return builtin(ip, name, [o], at);
    } catch (e) {
      if (!(e instanceof RhaiFault) || !e.msg.startsWith('Function not found')) throw e;
    }
  }
  throw ip.err(`Unknown property '${name}' - a getter is not registered for type '${typeName(o)}'`, at);
}
