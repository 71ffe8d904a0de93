/** Tree-walking evaluator for the Rhai subset. Pure: no I/O, no clock, no randomness. */

import type { FnDef, Node, Pos } from './ast.js';
import { BUILTIN_NAMES, CHEAP, GETTERS, PURE, SHIFTING, STRING_MUTATORS } from './builtin-table.js';
import { type LimitName, RhaiFault } from './errors.js';
import { fnKey, isAssignable } from './parser.js';
import {
  Cell,
  debug,
  deepClone,
  display,
  fromJs,
  isObj,
  RChar,
  RFloat,
  RFnPtr,
  type RMap,
  RRange,
  sortedKeys,
  toJs,
  typeName,
  type Value,
  valuesEqual,
  work,
} from './values.js';

export interface RhaiLimits {
  maxOperations: number;
  maxCallDepth: number;
  maxStringSize: number;
  maxArraySize: number;
  maxMapSize: number;
}

class BreakSig {
  constructor(readonly value: Value) {}
}
class ContinueSig {}
class ReturnSig {
  constructor(readonly value: Value) {}
}
const CONTINUE = new ContinueSig();

export class Scope {
  names: string[] = [];
  /** A captured variable's slot holds its shared {@link Cell}. */
  vals: (Value | Cell)[] = [];
  consts: boolean[] = [];
  find(name: string): number {
    const names = this.names;
    for (let i = names.length - 1; i >= 0; i--) if (names[i] === name) return i;
    return -1;
  }
  get(i: number): Value {
    const v = this.vals[i];
    return v instanceof Cell ? v.v : v;
  }
  push(name: string, v: Value | Cell, isConst = false): void {
    this.names.push(name);
    this.vals.push(v);
    this.consts.push(isConst);
  }
  truncate(n: number): void {
    const names = this.names;
    while (names.length > n) {
      names.pop();
      this.vals.pop();
      this.consts.pop();
    }
  }
}

interface Frame {
  scope: Scope;
  thisBox: { v: Value } | null;
}

const FRESH = new Set(['lit', 'arr', 'map', 'tmpl', 'closure']);

const HAS_SURROGATE = /[\uD800-\uDFFF]/;
/**
 * One-entry caches so `for i in 0..s.len() { s[i] }` does not rescan a long string each step.
 * Reset by every new Interp: a cache hit changes the work charged, and a call's operation count
 * must not depend on earlier calls (workflow replays must see the same result).
 */
let cacheStr: string | null = null;
let cacheChars: string[] = [];
function resetStringCaches(): void {
  cacheStr = null;
  cacheChars = [];
  lenStr = null;
  lenVal = 0;
}
function strChars(s: string): string[] {
  if (s === cacheStr) return cacheChars;
  work.n += s.length; // one unit per character: this allocates
  const cs = HAS_SURROGATE.test(s) ? Array.from(s) : s.split('');
  if (s.length > 32) {
    cacheStr = s;
    cacheChars = cs;
  }
  return cs;
}
let lenStr: string | null = null;
let lenVal = 0;
/** Length in characters (code points), without building an array. */
function strLen(s: string): number {
  if (s.length < 32) return HAS_SURROGATE.test(s) ? Array.from(s).length : s.length;
  if (s === lenStr) return lenVal;
  if (s === cacheStr) return cacheChars.length;
  work.n += s.length >> 2;
  let n = s.length;
  if (HAS_SURROGATE.test(s)) {
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0xdc00 && c <= 0xdfff && i > 0) {
        const p = s.charCodeAt(i - 1);
        if (p >= 0xd800 && p <= 0xdbff) n--;
      }
    }
  }
  lenStr = s;
  lenVal = n;
  return n;
}
/** A string or char argument used as text to search for. */
function pat(v: Value): string | null {
  return typeof v === 'string' ? v : v instanceof RChar ? v.c : null;
}
function norm(n: number): number {
  return n === 0 ? 0 : n;
}
function num(v: Value): number | null {
  if (typeof v === 'number') return v;
  if (v instanceof RFloat) return v.v;
  return null;
}

export class Interp {
  ops = 0;
  depth = 0;
  private readonly fnNames: Set<string>;
  /** Faults being handled by enclosing catch blocks, for a bare `throw;`. */
  private readonly caught: RhaiFault[] = [];
  private readonly mutCache: WeakMap<Node, Map<string, boolean>>;
  last: Pos = { l: 0, c: 0 };
  logChars = 0;
  readonly logs: string[] = [];

  constructor(
    readonly fns: Map<string, FnDef>,
    readonly limits: RhaiLimits,
  ) {
    work.n = 0;
    resetStringCaches();
    this.fnNames = new Set([...fns.values()].map((d) => d.name));
    this.mutCache = mutCaches.get(fns) ?? new WeakMap();
    mutCaches.set(fns, this.mutCache);
  }

  // ---------------------------------------------------------------- errors

  err(msg: string, at: Pos): RhaiFault {
    return new RhaiFault('rhai-runtime', msg, at.l, at.c);
  }
  limit(limit: LimitName, msg: string, at: Pos): RhaiFault {
    return new RhaiFault('rhai-limit', msg, at.l, at.c, limit);
  }
  checkStr(s: string, at: Pos): string {
    if (s.length > this.limits.maxStringSize)
      throw this.limit('string-size', `String exceeds the maximum size of ${this.limits.maxStringSize} characters`, at);
    return s;
  }
  checkArr(a: Value[], at: Pos): Value[] {
    if (a.length > this.limits.maxArraySize)
      throw this.limit('array-size', `Array exceeds the maximum size of ${this.limits.maxArraySize} elements`, at);
    return a;
  }
  checkMap(m: RMap, at: Pos): RMap {
    if (m.size > this.limits.maxMapSize)
      throw this.limit('map-size', `Object map exceeds the maximum size of ${this.limits.maxMapSize} properties`, at);
    return m;
  }
  checkSize(v: Value, at: Pos): void {
    if (typeof v === 'string') this.checkStr(v, at);
    else if (Array.isArray(v)) this.checkArr(v, at);
    else if (v instanceof Map) this.checkMap(v, at);
  }

  /** Size checks for a value built outside the evaluator (parse_json). */
  checkDeep(v: Value, at: Pos): void {
    work.n++;
    this.checkSize(v, at);
    if (Array.isArray(v)) for (const x of v) this.checkDeep(x, at);
    else if (v instanceof Map) for (const x of v.values()) this.checkDeep(x, at);
  }

  log(line: string): void {
    if (this.logChars > this.limits.maxStringSize) return;
    this.logChars += line.length;
    if (this.logChars > this.limits.maxStringSize)
      this.logs.push('[log truncated: output exceeded the maximum string size]');
    else this.logs.push(line);
  }

  // ---------------------------------------------------------------- entry points

  runMain(stmts: Node[], scope: Scope): Value {
    const f: Frame = { scope, thisBox: null };
    let last: Value;
    try {
      for (const s of stmts) last = this.eval(s, f);
    } catch (e) {
      if (e instanceof ReturnSig) return e.value;
      throw e;
    }
    return last;
  }

  callScript(def: FnDef, args: Value[], thisBox: { v: Value } | null, at: Pos): Value {
    if (this.depth >= this.limits.maxCallDepth)
      throw this.limit(
        'call-depth',
        `Function call depth exceeds the maximum of ${this.limits.maxCallDepth} (in call to '${def.name}')`,
        at,
      );
    this.depth++;
    const scope = new Scope();
    for (let i = 0; i < def.params.length; i++) scope.push(def.params[i]!, args[i]);
    try {
      return this.eval(def.body, { scope, thisBox });
    } catch (e) {
      if (e instanceof ReturnSig) return e.value;
      throw e;
    } finally {
      this.depth--;
    }
  }

  callPtr(ptr: RFnPtr, args: Value[], at: Pos, thisBox: { v: Value } | null = null): Value {
    const cl = ptr.closure;
    if (cl) {
      if (cl.params.length !== args.length)
        throw this.err(
          `Function not found: closure expects ${cl.params.length} argument(s) but was called with ${args.length}`,
          at,
        );
      if (this.depth >= this.limits.maxCallDepth)
        throw this.limit(
          'call-depth',
          `Function call depth exceeds the maximum of ${this.limits.maxCallDepth} (in a closure)`,
          at,
        );
      this.depth++;
      const scope = new Scope();
      for (const [k, cell] of cl.captured) scope.push(k, cell, cell.isConst);
      for (let i = 0; i < cl.params.length; i++) scope.push(cl.params[i]!, args[i]);
      try {
        return this.eval(cl.body, { scope, thisBox });
      } catch (e) {
        if (e instanceof ReturnSig) return e.value;
        throw e;
      } finally {
        this.depth--;
      }
    }
    const def = this.fns.get(fnKey(ptr.name, args.length));
    if (def) return this.callScript(def, args, thisBox, at);
    return this.builtin(ptr.name, args, at);
  }

  /** Calls a callback with as many of `args` as it takes (filter/map accept `|x|` or `|x, i|`). */
  callback(ptr: RFnPtr, args: Value[], at: Pos): Value {
    const cl = ptr.closure;
    const want = cl ? cl.params.length : this.fns.has(fnKey(ptr.name, args.length)) ? args.length : 1;
    const pass = want < args.length ? args.slice(0, want) : args;
    // Callbacks get copies (Rhai passes by value); skip the copy when the closure cannot change the argument.
    for (let i = 0; i < pass.length; i++) {
      const v = pass[i];
      if (isObj(v) && (!cl || this.mayMutate(cl.body, cl.params[i]!))) pass[i] = deepClone(v);
    }
    return this.callPtr(ptr, pass, at);
  }

  /**
   * Whether evaluating `body` might change the array or map held in variable `name`: any write
   * into an array or map, any mutating or script-defined method, any function-style mutating
   * built-in, or a closure capturing `name`. Conservative; cached per node. Lets loops and
   * callbacks skip copying values they only read.
   */
  mayMutate(body: Node, name: string): boolean {
    let byName = this.mutCache.get(body);
    if (!byName) {
      byName = new Map();
      this.mutCache.set(body, byName);
    }
    let r = byName.get(name);
    if (r === undefined) {
      r = this.scanMutation(body, name);
      byName.set(name, r);
    }
    return r;
  }

  private scanMutation(n: unknown, name: string): boolean {
    if (Array.isArray(n)) {
      for (const x of n) if (this.scanMutation(x, name)) return true;
      return false;
    }
    if (n === null || typeof n !== 'object') return false;
    const node = n as Node;
    // Any write into an array or map (whatever variable it goes through, since that variable
    // may alias the same value) counts; rebinding a plain variable does not.
    switch (node.k) {
      case 'assign':
        if (node.target.k !== 'var' || node.target.name === name) return true;
        break;
      case 'method':
        if (!PURE.has(node.name) || this.fns.has(node.key) || this.fns.has(node.key1)) return true;
        break;
      case 'call':
        if (!PURE.has(node.name) && !this.fns.has(node.key) && node.args.length > 0) return true;
        break;
      case 'closure':
        if (node.captures.includes(name)) return true;
        break;
      case 'lit':
        return false;
    }
    for (const key in node) {
      if (key === 'k' || key === 'l' || key === 'c') continue;
      const child = (node as unknown as Record<string, unknown>)[key];
      if (child !== null && typeof child === 'object' && this.scanMutation(child, name)) return true;
    }
    return false;
  }

  // ---------------------------------------------------------------- evaluation

  /** Value for storing into a variable, container or parameter: places are copied (Rhai's value semantics). */
  storeVal(n: Node, f: Frame): Value {
    const v = this.eval(n, f);
    return FRESH.has(n.k) || !isObj(v) ? v : deepClone(v);
  }

  evalBool(n: Node, f: Frame, what: string): boolean {
    const v = this.eval(n, f);
    if (typeof v !== 'boolean') throw this.err(`${what} expects a boolean, but got ${typeName(v)}`, n);
    return v;
  }

  eval(n: Node, f: Frame): Value {
    if (++this.ops + (work.n >> 6) > this.limits.maxOperations) {
      throw this.limit('operations', `Script exceeded the maximum of ${this.limits.maxOperations} operations`, n);
    }
    this.last = n;
    switch (n.k) {
      case 'lit':
        return n.v;
      case 'var': {
        const i = f.scope.find(n.name);
        if (i < 0) {
          // a script function's name is a pointer to it, as in Rhai
          if (this.fnNames.has(n.name)) return new RFnPtr(n.name);
          throw this.err(
            `Variable not found: ${n.name}${NULL_NAMES.has(n.name) ? ' (Rhai writes null as ())' : ''}`,
            n,
          );
        }
        const v = f.scope.vals[i];
        return v instanceof Cell ? v.v : v;
      }
      case 'this':
        if (!f.thisBox) throw this.err("'this' is only bound inside a function called in method style", n);
        return f.thisBox.v;
      case 'tmpl': {
        let s = '';
        for (const p of n.parts) {
          s += typeof p === 'string' ? p : display(this.eval(p, f));
          this.checkStr(s, n);
        }
        return s;
      }
      case 'arr': {
        const out: Value[] = [];
        for (const it of n.items) out.push(this.storeVal(it, f));
        return this.checkArr(out, n);
      }
      case 'map': {
        const m: RMap = new Map();
        for (const [k, e] of n.entries) m.set(k, this.storeVal(e, f));
        return this.checkMap(m, n);
      }
      case 'unary': {
        const v = this.eval(n.e, f);
        if (n.op === '!') {
          if (typeof v !== 'boolean') throw this.err(`Operator '!' expects a boolean, but got ${typeName(v)}`, n);
          return !v;
        }
        if (typeof v === 'number') return n.op === '-' ? norm(-v) : v;
        if (v instanceof RFloat) return n.op === '-' ? new RFloat(-v.v) : v;
        throw this.err(`Function not found: ${n.op} (${typeName(v)})`, n);
      }
      case 'bin':
        return this.binOp(n.op, this.eval(n.a, f), this.eval(n.b, f), n);
      case 'and': {
        if (!this.evalBool(n.a, f, "Operator '&&'")) return false;
        return this.evalBool(n.b, f, "Operator '&&'");
      }
      case 'or': {
        if (this.evalBool(n.a, f, "Operator '||'")) return true;
        return this.evalBool(n.b, f, "Operator '||'");
      }
      case 'coalesce': {
        const a = this.eval(n.a, f);
        return a === undefined ? this.eval(n.b, f) : a;
      }
      case 'prop': {
        const o = this.eval(n.obj, f);
        if (n.safe && o === undefined) return undefined;
        return this.getProp(o, n.name, n);
      }
      case 'index': {
        const o = this.eval(n.obj, f);
        if (n.safe && o === undefined) return undefined;
        return this.getIndex(o, this.eval(n.idx, f), n);
      }
      case 'call':
        return this.evalCall(n, f);
      case 'method':
        return this.evalMethod(n, f);
      case 'closure': {
        const captured = new Map<string, Cell>();
        for (const name of n.captures) {
          const i = f.scope.find(name);
          if (i < 0) continue;
          let cell = f.scope.vals[i];
          if (!(cell instanceof Cell)) {
            cell = new Cell(cell, f.scope.consts[i]!);
            f.scope.vals[i] = cell;
          }
          captured.set(name, cell);
        }
        return new RFnPtr('anonymous', { params: n.params, body: n.body, captured });
      }
      case 'block':
        return this.evalBlock(n.stmts, f);
      case 'if': {
        if (this.evalBool(n.cond, f, 'An if condition')) return this.eval(n.then, f);
        return n.els ? this.eval(n.els, f) : undefined;
      }
      case 'switch':
        return this.evalSwitch(n, f);
      case 'while':
        for (;;) {
          if (!this.evalBool(n.cond, f, 'A while condition')) return undefined;
          const sig = this.loopBody(n.body, f);
          if (sig) return sig.value;
        }
      case 'dowhile':
        for (;;) {
          const sig = this.loopBody(n.body, f);
          if (sig) return sig.value;
          if (this.evalBool(n.cond, f, 'A do loop condition') === n.until) return undefined;
        }
      case 'loop':
        for (;;) {
          const sig = this.loopBody(n.body, f);
          if (sig) return sig.value;
        }
      case 'for':
        return this.evalFor(n, f);
      case 'try':
        return this.evalTry(n, f);
      case 'let': {
        const v = n.init ? this.storeVal(n.init, f) : undefined;
        f.scope.push(n.name, v, n.isConst);
        return undefined;
      }
      case 'assign':
        this.evalAssign(n, f);
        return undefined;
      case 'break':
        throw new BreakSig(n.value ? this.storeVal(n.value, f) : undefined);
      case 'continue':
        throw CONTINUE;
      case 'return':
        throw new ReturnSig(n.value ? this.eval(n.value, f) : undefined);
      case 'throw': {
        // `throw;` inside a catch block re-throws what was caught
        if (!n.value && this.caught.length > 0) throw this.caught[this.caught.length - 1];
        const v = n.value ? this.storeVal(n.value, f) : undefined;
        throw new RhaiFault('rhai-runtime', `Runtime error: ${display(v)}`, n.l, n.c, undefined, v, true);
      }
    }
  }

  evalBlock(stmts: Node[], f: Frame): Value {
    const mark = f.scope.names.length;
    let last: Value;
    try {
      for (let i = 0; i < stmts.length; i++) last = this.eval(stmts[i]!, f);
    } finally {
      f.scope.truncate(mark);
    }
    return last;
  }

  /** Runs one loop iteration; returns the break signal when the loop must end. */
  loopBody(body: Node, f: Frame): BreakSig | null {
    try {
      this.eval(body, f);
    } catch (e) {
      if (e instanceof BreakSig) return e;
      if (e !== CONTINUE) throw e;
    }
    return null;
  }

  evalTry(n: Extract<Node, { k: 'try' }>, f: Frame): Value {
    const mark = f.scope.names.length;
    try {
      return this.eval(n.body, f);
    } catch (e) {
      if (!(e instanceof RhaiFault) || e.code !== 'rhai-runtime') throw e;
      f.scope.truncate(mark);
      if (!n.errVar) {
        this.caught.push(e);
        try {
          return this.eval(n.handler, f);
        } finally {
          this.caught.pop();
        }
      }
      f.scope.push(n.errVar, e.isThrow ? (e.thrown as Value) : errorMap(e));
      this.caught.push(e);
      try {
        return this.eval(n.handler, f);
      } finally {
        this.caught.pop();
        f.scope.truncate(mark);
      }
    }
  }

  evalFor(n: Extract<Node, { k: 'for' }>, f: Frame): Value {
    const it = this.eval(n.iter, f);
    const mark = f.scope.names.length;
    try {
      if (Array.isArray(it)) {
        const snap = it.slice();
        work.n += snap.length;
        for (let i = 0; i < snap.length; i++) {
          const v = snap[i];
          this.bindLoop(n, f, mark, isObj(v) && this.mayMutate(n.body, n.name) ? deepClone(v) : v, i);
          const sig = this.loopBody(n.body, f);
          if (sig) return sig.value;
        }
      } else if (it instanceof RRange) {
        const step = it.step;
        if (step === 0) throw this.err('A range step cannot be zero', n.iter);
        const up = step > 0;
        let i = 0;
        for (let x = it.start; up ? (it.inclusive ? x <= it.end : x < it.end) : x > it.end; x += step) {
          this.bindLoop(n, f, mark, x, i++);
          const sig = this.loopBody(n.body, f);
          if (sig) return sig.value;
        }
      } else if (typeof it === 'string') {
        let i = 0;
        for (const ch of it) {
          this.bindLoop(n, f, mark, new RChar(ch), i++);
          const sig = this.loopBody(n.body, f);
          if (sig) return sig.value;
        }
      } else {
        throw this.err(`A for loop needs an array, a range or a string, but got ${typeName(it)}`, n.iter);
      }
    } finally {
      f.scope.truncate(mark);
    }
    return undefined;
  }

  bindLoop(n: Extract<Node, { k: 'for' }>, f: Frame, mark: number, v: Value, i: number): void {
    f.scope.truncate(mark);
    f.scope.push(n.name, v);
    if (n.idx) f.scope.push(n.idx, i);
  }

  evalSwitch(n: Extract<Node, { k: 'switch' }>, f: Frame): Value {
    const v = this.eval(n.subject, f);
    let dflt: Node | null = null;
    for (const c of n.cases) {
      if (c.vals === null) {
        if (!c.cond || this.evalBool(c.cond, f, 'A switch case condition')) {
          dflt ??= c.body;
        }
        continue;
      }
      let hit = false;
      for (const e of c.vals) {
        const cv = this.eval(e, f);
        if (cv instanceof RRange && typeof v === 'number' ? cv.contains(v) : valuesEqual(v, cv)) {
          hit = true;
          break;
        }
      }
      if (hit && (!c.cond || this.evalBool(c.cond, f, 'A switch case condition'))) return this.eval(c.body, f);
    }
    return dflt ? this.eval(dflt, f) : undefined;
  }

  // ---------------------------------------------------------------- places

  evalAssign(n: Extract<Node, { k: 'assign' }>, f: Frame): void {
    if (n.op === null) {
      this.setPlace(n.target, this.storeVal(n.value, f), f, n);
      return;
    }
    const cur = this.eval(n.target, f);
    const rhs = this.eval(n.value, f);
    if (n.op === '+' && Array.isArray(cur)) {
      // in-place append, as Rhai does
      this.appendTo(cur, rhs, n);
      return;
    }
    if (n.op === '+' && cur instanceof Map && rhs instanceof Map) {
      for (const [k, x] of rhs) cur.set(k, deepClone(x));
      this.checkMap(cur, n);
      return;
    }
    this.setPlace(n.target, this.binOp(n.op, cur, rhs, n), f, n);
  }

  /** `a += b` / `a.append(b)`: appends an array's elements (or one value), size-checked before growing. */
  appendTo(a: Value[], v: Value, at: Pos): void {
    const add = Array.isArray(v) ? v.slice() : [v];
    if (a.length + add.length > this.limits.maxArraySize) this.checkArr(new Array(a.length + add.length), at);
    for (const x of add) a.push(deepClone(x));
  }

  setPlace(t: Node, v: Value, f: Frame, at: Pos): void {
    switch (t.k) {
      case 'var': {
        const i = f.scope.find(t.name);
        if (i < 0) throw this.err(`Variable not found: ${t.name}`, t);
        if (f.scope.consts[i]) throw this.err(`Cannot modify constant ${t.name}`, t);
        const cur = f.scope.vals[i];
        if (cur instanceof Cell) cur.v = v;
        else f.scope.vals[i] = v;
        return;
      }
      case 'this':
        if (!f.thisBox) throw this.err("'this' is only bound inside a function called in method style", t);
        f.thisBox.v = v;
        return;
      case 'prop': {
        const o = this.eval(t.obj, f);
        if (o instanceof Map) {
          this.ensureMutable(t.obj, f);
          o.set(t.name, v);
          this.checkMap(o, at);
          return;
        }
        throw this.err(`Cannot set property '${t.name}' on a value of type ${typeName(o)}`, t);
      }
      case 'index': {
        const o = this.eval(t.obj, f);
        const idx = this.eval(t.idx, f);
        this.ensureMutable(t.obj, f);
        if (Array.isArray(o)) {
          o[this.arrIndex(o.length, idx, t)] = v;
          return;
        }
        if (o instanceof Map) {
          o.set(this.mapKey(idx, t), v);
          this.checkMap(o, at);
          return;
        }
        if (typeof o === 'string') {
          if (!(v instanceof RChar))
            throw this.err(`Only a character can be assigned into a string, not ${typeName(v)}`, t);
          const cs = strChars(o).slice();
          cs[this.strIndex(cs.length, idx, t)] = v.c;
          this.setPlace(t.obj, cs.join(''), f, at);
          return;
        }
        throw this.err(`Cannot index into a value of type ${typeName(o)}`, t);
      }
      default:
        throw this.err('Expression cannot be assigned to', t);
    }
  }

  /** Writing through a constant's container is an error too. */
  ensureMutable(t: Node, f: Frame): void {
    let r = t;
    while (r.k === 'prop' || r.k === 'index') r = r.obj;
    if (r.k === 'var') {
      const i = f.scope.find(r.name);
      if (i >= 0 && f.scope.consts[i]) throw this.err(`Cannot modify constant ${r.name}`, r);
    }
  }

  arrIndex(len: number, idx: Value, at: Pos): number {
    if (typeof idx !== 'number') throw this.err(`Array index must be an integer, not ${typeName(idx)}`, at);
    const i = idx < 0 ? len + idx : idx;
    if (i < 0 || i >= len)
      throw this.err(`Array index ${idx} out of bounds: only ${len} element${len === 1 ? '' : 's'} in array`, at);
    return i;
  }

  strIndex(len: number, idx: Value, at: Pos): number {
    if (typeof idx !== 'number') throw this.err(`String index must be an integer, not ${typeName(idx)}`, at);
    const i = idx < 0 ? len + idx : idx;
    if (i < 0 || i >= len)
      throw this.err(`String index ${idx} out of bounds: only ${len} character${len === 1 ? '' : 's'} in string`, at);
    return i;
  }

  mapKey(idx: Value, at: Pos): string {
    if (typeof idx === 'string') return idx;
    if (idx instanceof RChar) return idx.c;
    throw this.err(`Object map key must be a string, not ${typeName(idx)}`, at);
  }

  getIndex(o: Value, idx: Value, at: Pos): Value {
    if (Array.isArray(o)) return o[this.arrIndex(o.length, idx, at)];
    if (o instanceof Map) return o.get(this.mapKey(idx, at));
    if (typeof o === 'string') {
      const cs = strChars(o);
      if (idx instanceof RRange) {
        // `s[1..3]`: the characters in the range, as in Rhai
        const start = Math.max(0, idx.start);
        const end = Math.min(cs.length, idx.inclusive ? idx.end + 1 : idx.end);
        return start >= end ? '' : cs.slice(start, end).join('');
      }
      return new RChar(cs[this.strIndex(cs.length, idx, at)]!);
    }
    if (typeof o === 'number' && typeof idx === 'number') {
      if (idx < 0 || idx >= 64) throw this.err(`Bit index ${idx} out of bounds`, at);
      return ((BigInt(o) >> BigInt(idx)) & 1n) === 1n;
    }
    throw this.err(`Cannot index into a value of type ${typeName(o)}`, at);
  }

  getProp(o: Value, name: string, at: Pos): Value {
    if (o instanceof Map) return o.get(name);
    if (o instanceof RFnPtr && name === 'name') return o.name;
    // Rhai's property getters on built-in types
    if (GETTERS.has(name) && o !== undefined) {
      try {
        return this.builtin(name, [o], at);
      } catch (e) {
        if (!(e instanceof RhaiFault) || !e.msg.startsWith('Function not found')) throw e;
      }
    }
    throw this.err(`Unknown property '${name}' - a getter is not registered for type '${typeName(o)}'`, at);
  }

  // ---------------------------------------------------------------- calls

  evalArgs(args: Node[], f: Frame): Value[] {
    const out: Value[] = new Array(args.length);
    for (let i = 0; i < args.length; i++) out[i] = this.eval(args[i]!, f);
    return out;
  }

  cloneArgs(nodes: Node[], vals: Value[]): Value[] {
    for (let i = 0; i < vals.length; i++) {
      const v = vals[i];
      if (isObj(v) && !FRESH.has(nodes[i]!.k)) vals[i] = deepClone(v);
    }
    return vals;
  }

  evalCall(n: Extract<Node, { k: 'call' }>, f: Frame): Value {
    const args = this.evalArgs(n.args, f);
    const def = this.fns.get(n.key);
    if (def) return this.callScript(def, this.cloneArgs(n.args, args), null, n);
    const vi = f.scope.find(n.name);
    if (vi >= 0) {
      const p = f.scope.get(vi);
      if (p instanceof RFnPtr) return this.callPtr(p, this.cloneArgs(n.args, args), n);
    }
    const r = this.builtin(n.name, args, n);
    this.checkSize(r, n);
    return r;
  }

  evalMethod(n: Extract<Node, { k: 'method' }>, f: Frame): Value {
    const recv = this.eval(n.obj, f);
    if (n.safe && recv === undefined) return undefined;
    const args = this.evalArgs(n.args, f);
    if (n.name === 'call' && recv instanceof RFnPtr) return this.callPtr(recv, this.cloneArgs(n.args, args), n);
    const def = this.fns.get(n.key);
    if (def) {
      const box = { v: recv };
      const r = this.callScript(def, this.cloneArgs(n.args, args), box, n);
      if (box.v !== recv && isAssignable(n.obj)) this.setPlace(n.obj, box.v, f, n);
      return r;
    }
    if (recv instanceof Map) {
      const p = recv.get(n.name);
      if (p instanceof RFnPtr) {
        const box = { v: recv as Value };
        return this.callPtr(p, this.cloneArgs(n.args, args), n, box);
      }
    }
    const all: Value[] = [recv];
    for (let i = 0; i < args.length; i++) all.push(args[i]);
    if (typeof recv === 'string' && STRING_MUTATORS.has(n.name)) {
      const r = this.builtin(n.name, all, n);
      this.checkSize(r, n);
      if (isAssignable(n.obj)) this.setPlace(n.obj, r, f, n);
      return r;
    }
    if (!this.hasBuiltin(n.name) && this.fns.has(n.key1)) {
      const def2 = this.fns.get(n.key1)!;
      return this.callScript(def2, this.cloneArgs([n.obj, ...n.args], all), null, n);
    }
    const r = this.builtin(n.name, all, n);
    this.checkSize(r, n);
    this.checkSize(recv, n);
    return r;
  }

  hasBuiltin(name: string): boolean {
    return BUILTIN_NAMES.has(name);
  }

  notFound(name: string, args: Value[], at: Pos): RhaiFault {
    return this.err(`Function not found: ${name} (${args.map(typeName).join(', ')})`, at);
  }

  // ---------------------------------------------------------------- operators

  binOp(op: string, a: Value, b: Value, at: Pos): Value {
    if (typeof a === 'number' && typeof b === 'number') return this.intOp(op, a, b, at);
    if (op === '+' && typeof a === 'string') return this.checkStr(a + (typeof b === 'string' ? b : display(b)), at);
    switch (op) {
      case '==':
        return valuesEqual(a, b);
      case '!=':
        return !valuesEqual(a, b);
      case 'in':
        return this.contains(b, a, at);
      case '!in':
        return !this.contains(b, a, at);
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
      throw this.err(`Function not found: ${op} (${typeName(a)}, ${typeName(b)})`, at);
    }
    if (op === '+') {
      if (typeof a === 'string') return this.checkStr(a + display(b), at);
      if (typeof b === 'string') return this.checkStr(display(a) + b, at);
      if (a instanceof RChar && b instanceof RChar) return a.c + b.c;
      if (Array.isArray(a) && Array.isArray(b)) {
        if (a.length + b.length > this.limits.maxArraySize) this.checkArr(new Array(a.length + b.length), at);
        return [...a, ...b.map(deepClone)];
      }
      if (a instanceof Map && b instanceof Map) {
        const m: RMap = new Map(a);
        for (const [k, v] of b) m.set(k, deepClone(v));
        return this.checkMap(m, at);
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
    throw this.err(`Function not found: ${op} (${typeName(a)}, ${typeName(b)})`, at);
  }

  overflow(op: string, a: number, b: number, at: Pos): RhaiFault {
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
    return this.err(`${what} overflow: ${a} ${op} ${b}`, at);
  }

  intOp(op: string, a: number, b: number, at: Pos): Value {
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
        if (b === 0) throw this.err(`Division by zero: ${a} / ${b}`, at);
        r = norm((a - (a % b)) / b);
        break;
      case '%':
        if (b === 0) throw this.err(`Modulo division by zero or overflow: ${a} % ${b}`, at);
        r = norm(a % b);
        break;
      case '**': {
        if (b < 0) throw this.err(`Integer raised to a negative power: ${a} ** ${b}`, at);
        if (a === 0 || a === 1) return b === 0 ? 1 : a;
        if (a === -1) return b % 2 === 0 ? 1 : -1;
        if (b > 64) throw this.overflow(op, a, b, at);
        const big = BigInt(a) ** BigInt(b);
        if (big > BigInt(Number.MAX_SAFE_INTEGER) || big < BigInt(Number.MIN_SAFE_INTEGER))
          throw this.overflow(op, a, b, at);
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
          if (b < 0 || b >= 64) throw this.err(`Shift amount out of range: ${a} ${op} ${b}`, at);
          big = op === '<<' ? BigInt.asIntN(64, x << y) : x >> y;
        }
        const r2 = Number(big);
        if (!Number.isSafeInteger(r2)) throw this.overflow(op, a, b, at);
        return r2;
      }
      case 'in':
      case '!in':
        throw this.err(`Function not found: ${op} (i64, i64)`, at);
      default:
        throw this.err(`Unknown operator ${op}`, at);
    }
    if (!Number.isSafeInteger(r)) throw this.overflow(op, a, b, at);
    return r;
  }

  contains(container: Value, x: Value, at: Pos): boolean {
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
    throw this.err(`Function not found: contains (${typeName(container)}, ${typeName(x)})`, at);
  }

  naturalCompare(a: Value, b: Value, at: Pos): number {
    const x = num(a);
    const y = num(b);
    if (x !== null && y !== null) return x < y ? -1 : x > y ? 1 : 0;
    if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
    if (a instanceof RChar && b instanceof RChar) return a.c < b.c ? -1 : a.c > b.c ? 1 : 0;
    if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
    if (a === undefined && b === undefined) return 0;
    throw this.err(`Cannot sort an array holding ${typeName(a)} and ${typeName(b)} without a comparator`, at);
  }

  // ---------------------------------------------------------------- built-in functions

  builtin(name: string, args: Value[], at: Pos): Value {
    const a0 = args[0];
    const n = args.length;
    // O(n) string built-ins cost in proportion to their input (see `work`); array and map
    // built-ins are charged where they copy, compare, format or move elements.
    if (typeof a0 === 'string' && !CHEAP.has(name)) work.n += a0.length >> 2;
    else if (Array.isArray(a0) && SHIFTING.has(name)) work.n += a0.length >> 4;
    else if (a0 instanceof Map && (name === 'keys' || name === 'values')) work.n += a0.size;
    // functions that work on any type
    switch (name) {
      case 'print':
        if (n === 1) {
          this.log(display(a0));
          return undefined;
        }
        break;
      case 'debug':
        if (n === 1) {
          this.log(debug(a0));
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
          return this.builtin('len', args, at) === 0;
        break;
      case 'Fn':
        if (n === 1 && typeof a0 === 'string') {
          if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(a0)) throw this.err(`Invalid function name for Fn: "${a0}"`, at);
          return new RFnPtr(a0);
        }
        break;
      case 'call':
        if (n >= 1 && a0 instanceof RFnPtr) return this.callPtr(a0, args.slice(1), at);
        break;
      case 'parse_int':
        if ((n === 1 || n === 2) && typeof a0 === 'string') {
          const radix = n === 2 ? args[1] : 10;
          if (typeof radix !== 'number' || radix < 2 || radix > 36)
            throw this.err(`Invalid radix for parse_int: ${display(radix)}`, at);
          const s = a0.trim();
          const digits = '0123456789abcdefghijklmnopqrstuvwxyz'.slice(0, radix);
          const body = s.replace(/^[+-]/, '').toLowerCase();
          if (body === '' || ![...body].every((ch) => digits.includes(ch)))
            throw this.err(`Cannot parse "${a0}" as an integer`, at);
          const v = Number.parseInt(s, radix);
          if (!Number.isSafeInteger(v)) throw this.err(`Cannot parse "${a0}" as an integer: out of range`, at);
          return norm(v);
        }
        break;
      case 'parse_float':
        if (n === 1 && typeof a0 === 'string') {
          const s = a0.trim();
          if (!/^[+-]?(\d[\d_]*(\.\d*)?([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|inf|NaN)$/.test(s))
            throw this.err(`Cannot parse "${a0}" as a floating-point number`, at);
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
          work.n += json.length >> 2;
          return this.checkStr(json, at);
        }
        break;
      case 'parse_json':
        if (n === 1 && typeof a0 === 'string') {
          let parsed: unknown;
          try {
            parsed = JSON.parse(a0);
          } catch (e) {
            throw this.err(`Invalid JSON: ${e instanceof Error ? e.message : String(e)}`, at);
          }
          const v = fromJs(parsed);
          this.checkDeep(v, at);
          return v;
        }
        break;
      case 'range':
        if ((n === 2 || n === 3) && typeof a0 === 'number' && typeof args[1] === 'number') {
          const step = n === 3 ? args[2] : 1;
          if (typeof step !== 'number' || step === 0) throw this.err('A range step must be a non-zero integer', at);
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
      const r = this.stringFn(name, a0, args, at);
      if (r !== NOT_FOUND) return r;
    } else if (Array.isArray(a0)) {
      const r = this.arrayFn(name, a0, args, at);
      if (r !== NOT_FOUND) return r;
    } else if (a0 instanceof Map) {
      const r = this.mapFn(name, a0, args, at);
      if (r !== NOT_FOUND) return r;
    } else if (typeof a0 === 'number' || a0 instanceof RFloat) {
      const r = this.numberFn(name, a0, args, at);
      if (r !== NOT_FOUND) return r;
    } else if (a0 instanceof RChar) {
      const r = this.charFn(name, a0, args);
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
    throw this.notFound(name, args, at);
  }

  stringFn(name: string, s: string, args: Value[], at: Pos): Value | typeof NOT_FOUND {
    const n = args.length;
    const a1 = args[1];
    const a2 = args[2];
    switch (name) {
      case 'len':
        if (n === 1) return strLen(s);
        break;
      case 'contains':
        if (n === 2 && pat(a1) !== null) return s.includes(pat(a1)!);
        break;
      case 'starts_with':
        if (n === 2 && pat(a1) !== null) return s.startsWith(pat(a1)!);
        break;
      case 'ends_with':
        if (n === 2 && pat(a1) !== null) return s.endsWith(pat(a1)!);
        break;
      case 'trim':
        if (n === 1) return s.trim();
        break;
      case 'trim_start':
        if (n === 1) return s.trimStart();
        break;
      case 'trim_end':
        if (n === 1) return s.trimEnd();
        break;
      case 'to_upper':
      case 'make_upper':
        if (n === 1) return s.toUpperCase();
        break;
      case 'to_lower':
      case 'make_lower':
        if (n === 1) return s.toLowerCase();
        break;
      case 'clear':
        if (n === 1) return '';
        break;
      case 'append':
        if (n === 2) return this.checkStr(s + display(a1), at);
        break;
      case 'replace':
        if (n === 3 && pat(a1) !== null && pat(a2) !== null) {
          const find = pat(a1)!;
          const sub = pat(a2)!;
          if (find === '') return s;
          let out = '';
          let pos = 0;
          for (;;) {
            const k = s.indexOf(find, pos);
            if (k < 0) break;
            out += s.slice(pos, k) + sub;
            this.checkStr(out, at);
            pos = k + find.length;
          }
          return this.checkStr(out + s.slice(pos), at);
        }
        break;
      case 'remove':
        if (n === 2 && pat(a1) !== null) return pat(a1) === '' ? s : s.split(pat(a1)!).join('');
        break;
      case 'index_of':
        if ((n === 2 || n === 3) && pat(a1) !== null) {
          const cs = strChars(s);
          let start = n === 3 ? a2 : 0;
          if (typeof start !== 'number') break;
          if (start < 0) start = Math.max(0, cs.length + start);
          if (start >= cs.length) return pat(a1) === '' && start === cs.length ? start : -1;
          const prefix = cs.slice(0, start).join('');
          const k = s.indexOf(pat(a1)!, prefix.length);
          return k < 0 ? -1 : strLen(s.slice(0, k));
        }
        break;
      case 'sub_string':
      case 'crop':
      case 'extract': {
        if (name === 'extract') break;
        const cs = strChars(s);
        let start: number;
        let len: number;
        if (n === 2 && a1 instanceof RRange) {
          start = a1.start;
          len = (a1.inclusive ? a1.end + 1 : a1.end) - a1.start;
        } else if ((n === 2 || n === 3) && typeof a1 === 'number' && (n === 2 || typeof a2 === 'number')) {
          start = a1;
          len = n === 3 ? (a2 as number) : cs.length;
        } else break;
        if (start < 0) start = Math.max(0, cs.length + start);
        if (start >= cs.length || len <= 0) return '';
        return cs.slice(start, start + len).join('');
      }
      case 'truncate':
        if (n === 2 && typeof a1 === 'number') return strChars(s).slice(0, Math.max(0, a1)).join('');
        break;
      case 'pad':
        if (n === 3 && typeof a1 === 'number' && pat(a2) !== null) {
          if (a1 > this.limits.maxStringSize)
            throw this.limit(
              'string-size',
              `String exceeds the maximum size of ${this.limits.maxStringSize} characters`,
              at,
            );
          const p = pat(a2)!;
          const have = strLen(s);
          if (p === '' || have >= a1) return s;
          const need = a1 - have;
          const reps = Math.ceil(need / strLen(p));
          return s + strChars(p.repeat(reps)).slice(0, need).join('');
        }
        break;
      case 'chars':
      case 'to_chars':
        if (n === 1)
          return this.checkArr(
            strChars(s).map((c) => new RChar(c)),
            at,
          );
        break;
      case 'split':
        if (n === 1)
          return this.checkArr(
            s.split(/\s+/).filter((x) => x !== ''),
            at,
          );
        if (n === 2 && pat(a1) !== null) {
          const sep = pat(a1)!;
          // Rust's split on "" yields an empty piece at both ends
          if (sep === '') return this.checkArr(['', ...strChars(s), ''], at);
          return this.checkArr(s.split(sep), at);
        }
        if (n === 2 && typeof a1 === 'number') {
          const cs = strChars(s);
          const k = a1 < 0 ? Math.max(0, cs.length + a1) : Math.min(a1, cs.length);
          return [cs.slice(0, k).join(''), cs.slice(k).join('')];
        }
        break;
      case 'get':
        if (n === 2 && typeof a1 === 'number') {
          const cs = strChars(s);
          const i = a1 < 0 ? cs.length + a1 : a1;
          return i >= 0 && i < cs.length ? new RChar(cs[i]!) : undefined;
        }
        break;
      case 'to_string':
        if (n === 1) return s;
        break;
    }
    return NOT_FOUND;
  }

  arrayFn(name: string, a: Value[], args: Value[], at: Pos): Value | typeof NOT_FOUND {
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
          this.checkArr(a, at);
          return undefined;
        }
        break;
      case 'append':
        if (n === 2) {
          this.appendTo(a, a1, at);
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
          this.checkArr(a, at);
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
        if (n === 2) return this.contains(a, a1, at);
        break;
      case 'index_of':
        if (n === 2) {
          for (let i = 0; i < a.length; i++) {
            if (fn1 ? this.truthy(this.callback(fn1, [a[i], i], at), 'index_of', at) : valuesEqual(a[i], a1)) return i;
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
            this.checkStr(out, at);
          }
          return out;
        }
        break;
      case 'sort':
        work.n += Math.ceil(a.length * Math.log2(a.length + 1));
        if (n === 1) {
          a.sort((x, y) => this.naturalCompare(x, y, at));
          return undefined;
        }
        if (n === 2 && fn1) {
          a.sort((x, y) => {
            const r = this.callback(fn1, [x, y], at);
            // Rhai also accepts a boolean: true puts x first
            if (typeof r === 'boolean') return r ? -1 : 1;
            if (typeof r !== 'number')
              throw this.err(
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
          for (let i = 0; i < a.length; i++)
            if (this.truthy(this.callback(fn1, [a[i], i], at), 'filter', at)) out.push(a[i]);
          return out;
        }
        break;
      case 'map':
        if (n === 2 && fn1) {
          const out: Value[] = [];
          for (let i = 0; i < a.length; i++) out.push(this.callback(fn1, [a[i], i], at));
          return out;
        }
        break;
      case 'reduce':
        if ((n === 2 || n === 3) && fn1) {
          let acc: Value = a2;
          for (let i = 0; i < a.length; i++) acc = this.callback(fn1, [acc, a[i], i], at);
          return acc;
        }
        break;
      case 'some':
        if (n === 2 && fn1) {
          for (let i = 0; i < a.length; i++)
            if (this.truthy(this.callback(fn1, [a[i], i], at), 'some', at)) return true;
          return false;
        }
        break;
      case 'all':
        if (n === 2 && fn1) {
          for (let i = 0; i < a.length; i++)
            if (!this.truthy(this.callback(fn1, [a[i], i], at), 'all', at)) return false;
          return true;
        }
        break;
      case 'find':
        if (n === 2 && fn1) {
          for (let i = 0; i < a.length; i++)
            if (this.truthy(this.callback(fn1, [a[i], i], at), 'find', at)) return a[i];
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
            const r = this.callback(fn1, [a[i], i], at);
            if (r !== undefined) return r;
          }
          return undefined;
        }
        break;
      case 'reduce_rev':
        if ((n === 2 || n === 3) && fn1) {
          let acc: Value = a2;
          for (let i = a.length - 1; i >= 0; i--) acc = this.callback(fn1, [acc, a[i], i], at);
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
            const hit = this.truthy(this.callback(fn1, [a[i], i], at), name, at);
            (hit === (name === 'retain') ? keep : removed).push(a[i]);
          }
          a.length = 0;
          for (const x of keep) a.push(x);
          return removed;
        }
        break;
      case 'dedup':
        if (n === 1) {
          work.n += a.length;
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
          if (a1 > this.limits.maxArraySize) this.checkArr(new Array(a1), at);
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
          this.checkArr(a, at);
          return undefined;
        }
        break;
    }
    return NOT_FOUND;
  }

  /** A predicate callback's answer: Rhai treats anything but `true` as false. */
  truthy(v: Value, _what: string, _at: Pos): boolean {
    return v === true;
  }

  mapFn(name: string, m: RMap, args: Value[], at: Pos): Value | typeof NOT_FOUND {
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
        if (n === 2) return this.contains(m, a1, at);
        break;
      case 'remove':
        if (n === 2) {
          const k = this.mapKey(a1, at);
          const v = m.get(k);
          m.delete(k);
          return v;
        }
        break;
      case 'get':
        if (n === 2) return m.get(this.mapKey(a1, at));
        break;
      case 'set':
        if (n === 3) {
          m.set(this.mapKey(a1, at), deepClone(args[2]));
          this.checkMap(m, at);
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
          this.checkMap(m, at);
          return undefined;
        }
        break;
    }
    return NOT_FOUND;
  }

  numberFn(name: string, x: number | RFloat, args: Value[], at: Pos): Value | typeof NOT_FOUND {
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
        if (!Number.isSafeInteger(t)) throw this.err(`Cannot convert ${display(x)} to an integer: out of range`, at);
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
        if (isInt && v >= 0 && v <= 0x10ffff && !(v >= 0xd800 && v <= 0xdfff))
          return new RChar(String.fromCodePoint(v));
        break;
    }
    return NOT_FOUND;
  }

  charFn(name: string, ch: RChar, args: Value[]): Value | typeof NOT_FOUND {
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
}

const NOT_FOUND = Symbol('not-found');

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

/** What `catch (e)` sees for an engine error: Rhai's error object map. */
function errorMap(e: RhaiFault): Value {
  const m = e.msg;
  const kind = m.startsWith('Variable not found')
    ? 'ErrorVariableNotFound'
    : m.startsWith('Function not found')
      ? 'ErrorFunctionNotFound'
      : m.startsWith('Array index')
        ? 'ErrorArrayBounds'
        : m.startsWith('String index')
          ? 'ErrorStringBounds'
          : m.startsWith('Unknown property')
            ? 'ErrorDotExpr'
            : /overflow|by zero|negative power/.test(m)
              ? 'ErrorArithmetic'
              : 'ErrorRuntime';
  const out: RMap = new Map();
  out.set('error', kind);
  out.set('message', m);
  out.set('line', e.line);
  out.set('position', e.column);
  return out;
}
const NULL_NAMES = new Set(['null', 'nil', 'undefined', 'None']);

/** Mutation-analysis caches, one per compiled script (keyed by its function table). */
const mutCaches = new WeakMap<Map<string, FnDef>, WeakMap<Node, Map<string, boolean>>>();
