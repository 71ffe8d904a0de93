/** Calls from script: function-style and method-style calls to script functions, function pointers and built-ins. */

import { FRESH, type Node } from './ast.js';
import { BUILTIN_NAMES, STRING_MUTATORS } from './builtin-table.js';
import { builtin } from './builtins.js';
import type { Interp } from './interp.js';
import { isAssignable } from './parser.js';
import { setPlace } from './places.js';
import type { Frame } from './scope.js';
import { deepClone, isObj, RFnPtr, type Value } from './values.js';

export function evalArgs(ip: Interp, args: Node[], f: Frame): Value[] {
  const out: Value[] = new Array(args.length);
  for (let i = 0; i < args.length; i++) out[i] = ip.eval(args[i]!, f);
  return out;
}

export function cloneArgs(nodes: Node[], vals: Value[]): Value[] {
  for (let i = 0; i < vals.length; i++) {
    const v = vals[i];
    if (isObj(v) && !FRESH.has(nodes[i]!.k)) vals[i] = deepClone(v);
  }
  return vals;
}

export function evalCall(ip: Interp, n: Extract<Node, { k: 'call' }>, f: Frame): Value {
  const args = evalArgs(ip, n.args, f);
  const def = ip.fns.get(n.key);
  if (def) return ip.callScript(def, cloneArgs(n.args, args), null, n);
  const vi = f.scope.find(n.name);
  if (vi >= 0) {
    const p = f.scope.get(vi);
    if (p instanceof RFnPtr) return ip.callPtr(p, cloneArgs(n.args, args), n);
  }
  if (ip.isHost(n.name)) return ip.callHost(n.name, args, n);
  const r = builtin(ip, n.name, args, n);
  ip.checkSize(r, n);
  return r;
}

export function evalMethod(ip: Interp, n: Extract<Node, { k: 'method' }>, f: Frame): Value {
  const recv = ip.eval(n.obj, f);
  if (n.safe && recv === undefined) return undefined;
  const args = evalArgs(ip, n.args, f);
  if (n.name === 'call' && recv instanceof RFnPtr) return ip.callPtr(recv, cloneArgs(n.args, args), n);
  const def = ip.fns.get(n.key);
  if (def) {
    const box = { v: recv };
    const r = ip.callScript(def, cloneArgs(n.args, args), box, n);
    if (box.v !== recv && isAssignable(n.obj)) setPlace(ip, n.obj, box.v, f, n);
    return r;
  }
  if (recv instanceof Map) {
    const p = recv.get(n.name);
    if (p instanceof RFnPtr) {
      const box = { v: recv as Value };
      return ip.callPtr(p, cloneArgs(n.args, args), n, box);
    }
  }
  const all: Value[] = [recv];
  for (let i = 0; i < args.length; i++) all.push(args[i]);
  if (typeof recv === 'string' && STRING_MUTATORS.has(n.name)) {
    const r = builtin(ip, n.name, all, n);
    ip.checkSize(r, n);
    if (isAssignable(n.obj)) setPlace(ip, n.obj, r, f, n);
    return r;
  }
  if (!BUILTIN_NAMES.has(n.name) && ip.fns.has(n.key1)) {
    const def2 = ip.fns.get(n.key1)!;
    return ip.callScript(def2, cloneArgs([n.obj, ...n.args], all), null, n);
  }
  if (ip.isHost(n.name)) return ip.callHost(n.name, all, n);
  const r = builtin(ip, n.name, all, n);
  ip.checkSize(r, n);
  ip.checkSize(recv, n);
  return r;
}
