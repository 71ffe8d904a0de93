/** Array built-ins. */

import type { Pos } from './ast.js';
import { contains, naturalCompare } from './binary-ops.js';
import { NOT_FOUND } from './builtin-table.js';
import type { Interp } from './interp.js';
import { chargeWork, deepClone, display, RChar, RFnPtr, RRange, typeName, type Value, valuesEqual } from './values.js';

export function arrayFn(ip: Interp, name: string, a: Value[], args: Value[], at: Pos): Value | typeof NOT_FOUND {
  const n = args.length;
  const a1 = args[1];
  const a2 = args[2];
  const fn1 = a1 instanceof RFnPtr ? a1 : null;
  switch (name) {
    case 'len':
      if (n === 1) return a.length;
      break;
    case 'push':
      if (n === 2) {
        a.push(deepClone(a1));
        ip.checkArr(a, at);
        return undefined;
      }
      break;
    case 'append':
      if (n === 2) {
        appendTo(ip, a, a1, at);
        return undefined;
      }
      break;
    case 'pop':
      if (n === 1) return a.pop();
      break;
    case 'shift':
      if (n === 1) return a.shift();
      break;
    case 'clear':
      if (n === 1) {
        a.length = 0;
        return undefined;
      }
      break;
    case 'insert':
      if (n === 3 && typeof a1 === 'number') {
        let i = a1 < 0 ? Math.max(0, a.length + a1) : a1;
        if (i > a.length) i = a.length;
        a.splice(i, 0, deepClone(a2));
        ip.checkArr(a, at);
        return undefined;
      }
      break;
    case 'remove':
      if (n === 2 && typeof a1 === 'number') {
        const i = a1 < 0 ? a.length + a1 : a1;
        if (i < 0 || i >= a.length) return undefined;
        return a.splice(i, 1)[0];
      }
      break;
    case 'truncate':
      if (n === 2 && typeof a1 === 'number') {
        if (a1 < a.length) a.length = Math.max(0, a1);
        return undefined;
      }
      break;
    case 'contains':
      if (n === 2) return contains(ip, a, a1, at);
      break;
    case 'index_of':
      if (n === 2) {
        for (let i = 0; i < a.length; i++) {
          if (fn1 ? truthy(ip.callback(fn1, [a[i], i], at), 'index_of', at) : valuesEqual(a[i], a1)) return i;
        }
        return -1;
      }
      break;
    case 'get':
      if (n === 2 && typeof a1 === 'number') {
        const i = a1 < 0 ? a.length + a1 : a1;
        return i >= 0 && i < a.length ? a[i] : undefined;
      }
      break;
    case 'set':
      if (n === 3 && typeof a1 === 'number') {
        const i = a1 < 0 ? a.length + a1 : a1;
        if (i >= 0 && i < a.length) a[i] = deepClone(a2);
        return undefined;
      }
      break;
    case 'join':
      if (n === 1 || n === 2) {
        const sep = n === 2 ? (a1 instanceof RChar ? a1.c : a1) : '';
        if (typeof sep !== 'string') break;
        let out = '';
        for (let i = 0; i < a.length; i++) {
          if (i > 0) out += sep;
          out += display(a[i]);
          ip.checkStr(out, at);
        }
        return out;
      }
      break;
    case 'sort':
      chargeWork(Math.ceil(a.length * Math.log2(a.length + 1)));
      if (n === 1) {
        a.sort((x, y) => naturalCompare(ip, x, y, at));
        return undefined;
      }
      if (n === 2 && fn1) {
        a.sort((x, y) => {
          const r = ip.callback(fn1, [x, y], at);
          // Rhai also accepts a boolean: true puts x first
          if (typeof r === 'boolean') return r ? -1 : 1;
          if (typeof r !== 'number')
            throw ip.err(
              `A sort comparator must return an integer (negative, zero or positive), not ${typeName(r)}`,
              at,
            );
          return r;
        });
        return undefined;
      }
      break;
    case 'reverse':
      if (n === 1) {
        a.reverse();
        return undefined;
      }
      break;
    case 'filter':
      if (n === 2 && fn1) {
        const out: Value[] = [];
        for (let i = 0; i < a.length; i++) if (truthy(ip.callback(fn1, [a[i], i], at), 'filter', at)) out.push(a[i]);
        return out;
      }
      break;
    case 'map':
      if (n === 2 && fn1) {
        const out: Value[] = [];
        for (let i = 0; i < a.length; i++) out.push(ip.callback(fn1, [a[i], i], at));
        return out;
      }
      break;
    case 'reduce':
      if ((n === 2 || n === 3) && fn1) {
        let acc: Value = a2;
        for (let i = 0; i < a.length; i++) acc = ip.callback(fn1, [acc, a[i], i], at);
        return acc;
      }
      break;
    case 'some':
      if (n === 2 && fn1) {
        for (let i = 0; i < a.length; i++) if (truthy(ip.callback(fn1, [a[i], i], at), 'some', at)) return true;
        return false;
      }
      break;
    case 'all':
      if (n === 2 && fn1) {
        for (let i = 0; i < a.length; i++) if (!truthy(ip.callback(fn1, [a[i], i], at), 'all', at)) return false;
        return true;
      }
      break;
    case 'find':
      if (n === 2 && fn1) {
        for (let i = 0; i < a.length; i++) if (truthy(ip.callback(fn1, [a[i], i], at), 'find', at)) return a[i];
        return undefined;
      }
      break;
    case 'extract':
      if (n === 2 && a1 instanceof RRange) {
        return a.slice(Math.max(0, a1.start), Math.max(0, a1.inclusive ? a1.end + 1 : a1.end));
      }
      if ((n === 2 || n === 3) && typeof a1 === 'number') {
        const start = a1 < 0 ? Math.max(0, a.length + a1) : a1;
        const len = n === 3 ? a2 : a.length;
        if (typeof len !== 'number') break;
        return len <= 0 ? [] : a.slice(start, start + len);
      }
      break;
    case 'find_map':
      if (n === 2 && fn1) {
        for (let i = 0; i < a.length; i++) {
          const r = ip.callback(fn1, [a[i], i], at);
          if (r !== undefined) return r;
        }
        return undefined;
      }
      break;
    case 'reduce_rev':
      if ((n === 2 || n === 3) && fn1) {
        let acc: Value = a2;
        for (let i = a.length - 1; i >= 0; i--) acc = ip.callback(fn1, [acc, a[i], i], at);
        return acc;
      }
      break;
    case 'retain':
    case 'drain':
      if (n === 2 && fn1) {
        // retain keeps the matches, drain removes them; both return what was removed
        const keep: Value[] = [];
        const removed: Value[] = [];
        for (let i = 0; i < a.length; i++) {
          const hit = truthy(ip.callback(fn1, [a[i], i], at), name, at);
          (hit === (name === 'retain') ? keep : removed).push(a[i]);
        }
        a.length = 0;
        for (const x of keep) a.push(x);
        return removed;
      }
      break;
    case 'dedup':
      if (n === 1) {
        chargeWork(a.length);
        let w = 0;
        for (let i = 0; i < a.length; i++) if (w === 0 || !valuesEqual(a[w - 1], a[i])) a[w++] = a[i];
        a.length = w;
        return undefined;
      }
      break;
    case 'chop':
      if (n === 2 && typeof a1 === 'number') {
        if (a1 <= 0) a.length = 0;
        else if (a1 < a.length) a.splice(0, a.length - a1);
        return undefined;
      }
      break;
    case 'pad':
      if (n === 3 && typeof a1 === 'number') {
        if (a1 > ip.limits.maxArraySize) ip.checkArr(new Array(a1), at);
        while (a.length < a1) a.push(deepClone(a2));
        return undefined;
      }
      break;
    case 'splice':
      if (n === 4 && typeof a1 === 'number' && typeof a2 === 'number') {
        const start = a1 < 0 ? Math.max(0, a.length + a1) : Math.min(a1, a.length);
        const rep = args[3];
        const items = Array.isArray(rep) ? rep.map(deepClone) : [deepClone(rep)];
        a.splice(start, Math.max(0, a2), ...items);
        ip.checkArr(a, at);
        return undefined;
      }
      break;
  }
  return NOT_FOUND;
}

/** A predicate callback's answer: Rhai treats anything but `true` as false. */
export function truthy(v: Value, _what: string, _at: Pos): boolean {
  return v === true;
}

/** `a += b` / `a.append(b)`: appends an array's elements (or one value), size-checked before growing. */
export function appendTo(ip: Interp, a: Value[], v: Value, at: Pos): void {
  const add = Array.isArray(v) ? v.slice() : [v];
  if (a.length + add.length > ip.limits.maxArraySize) ip.checkArr(new Array(a.length + add.length), at);
  for (const x of add) a.push(deepClone(x));
}
