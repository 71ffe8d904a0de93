/** Object-map built-ins. */

import type { Pos } from './ast.js';
import { contains } from './binary-ops.js';
import { NOT_FOUND } from './builtin-table.js';
import type { Interp } from './interp.js';
import { deepClone, RChar, type RMap, sortedKeys, typeName, type Value } from './values.js';

export function mapFn(ip: Interp, name: string, m: RMap, args: Value[], at: Pos): Value | typeof NOT_FOUND {
  const n = args.length;
  const a1 = args[1];
  switch (name) {
    case 'len':
      if (n === 1) return m.size;
      break;
    case 'keys':
      if (n === 1) return sortedKeys(m);
      break;
    case 'values':
      if (n === 1) return sortedKeys(m).map((k) => m.get(k));
      break;
    case 'contains':
      if (n === 2) return contains(ip, m, a1, at);
      break;
    case 'remove':
      if (n === 2) {
        const k = mapKey(ip, a1, at);
        const v = m.get(k);
        m.delete(k);
        return v;
      }
      break;
    case 'get':
      if (n === 2) return m.get(mapKey(ip, a1, at));
      break;
    case 'set':
      if (n === 3) {
        m.set(mapKey(ip, a1, at), deepClone(args[2]));
        ip.checkMap(m, at);
        return undefined;
      }
      break;
    case 'clear':
      if (n === 1) {
        m.clear();
        return undefined;
      }
      break;
    case 'mixin':
    case 'fill_with':
      if (n === 2 && a1 instanceof Map) {
        for (const [k, v] of a1) if (name === 'mixin' || !m.has(k)) m.set(k, deepClone(v));
        ip.checkMap(m, at);
        return undefined;
      }
      break;
  }
  return NOT_FOUND;
}

export function mapKey(ip: Interp, idx: Value, at: Pos): string {
  if (typeof idx === 'string') return idx;
  if (idx instanceof RChar) return idx.c;
  throw ip.err(`Object map key must be a string, not ${typeName(idx)}`, at);
}
