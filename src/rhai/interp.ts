/** Tree-walking evaluator for the Rhai subset. Pure: no I/O, no clock, no randomness. */

import { type FnDef, FRESH, type Node, type Pos } from './ast.js';
import { binOp } from './binary-ops.js';
import { builtin } from './builtins.js';
import { evalCall, evalMethod } from './call-eval.js';
import { RhaiFault } from './faults.js';
import { RhaiHalt, type RhaiHost, RhaiHostError } from './host.js';
import { Guard, type RhaiLimits } from './limits.js';
import { MutationScan } from './mutation.js';
import { fnKey } from './parser.js';
import { evalAssign, getIndex, getProp } from './places.js';
import { norm } from './scalars.js';
import { BreakSig, CONTINUE, type Frame, ReturnSig, Scope } from './scope.js';
import { resetStringCaches } from './strings.js';
import {
  Cell,
  chargeWork,
  deepClone,
  display,
  fromJs,
  isObj,
  RChar,
  RFloat,
  RFnPtr,
  type RMap,
  RRange,
  toJs,
  typeName,
  type Value,
  valuesEqual,
} from './values.js';

export class Interp extends Guard {
  private readonly fnNames: Set<string>;
  /** Faults being handled by enclosing catch blocks, for a bare `throw;`. */
  private readonly caught: RhaiFault[] = [];
  private readonly mutation: MutationScan;
  last: Pos = { l: 0, c: 0 };

  constructor(
    readonly fns: Map<string, FnDef>,
    limits: RhaiLimits,
    /** The caller's host functions (docs/rhai.md#host-functions); none by default. */
    private readonly host?: RhaiHost,
  ) {
    super(limits);
    resetStringCaches();
    this.fnNames = new Set([...fns.values()].map((d) => d.name));
    this.mutation = new MutationScan(fns);
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
    return builtin(this, ptr.name, args, at);
  }

  /** Whether `name` is one of the caller's host functions. */
  isHost(name: string): boolean {
    return this.host !== undefined && Object.hasOwn(this.host, name);
  }

  /** Calls a host function with the arguments converted out and its answer converted in. */
  callHost(name: string, args: Value[], at: Pos): Value {
    const fn = this.host![name]!;
    let out: unknown;
    try {
      out = fn(args.map(toJs));
    } catch (e) {
      if (e instanceof RhaiHalt) throw e;
      if (e instanceof RhaiHostError && e.value !== undefined)
        throw new RhaiFault('rhai-runtime', e.message, at.l, at.c, undefined, fromJs(e.value), true);
      if (e instanceof RhaiHostError) throw this.err(e.message, at);
      throw this.err(`${name} failed: ${e instanceof Error ? e.message : String(e)}`, at);
    }
    const v = fromJs(out);
    this.checkDeep(v, at);
    return v;
  }

  /** Calls a callback with as many of `args` as it takes (filter/map accept `|x|` or `|x, i|`). */
  callback(ptr: RFnPtr, args: Value[], at: Pos): Value {
    const cl = ptr.closure;
    const want = cl ? cl.params.length : this.fns.has(fnKey(ptr.name, args.length)) ? args.length : 1;
    const pass = want < args.length ? args.slice(0, want) : args;
    // Callbacks get copies (Rhai passes by value); skip the copy when the closure cannot change the argument.
    for (let i = 0; i < pass.length; i++) {
      const v = pass[i];
      if (isObj(v) && (!cl || this.mutation.mayMutate(cl.body, cl.params[i]!))) pass[i] = deepClone(v);
    }
    return this.callPtr(ptr, pass, at);
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
    this.countOperation(n);
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
        return binOp(this, n.op, this.eval(n.a, f), this.eval(n.b, f), n);
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
        return getProp(this, o, n.name, n);
      }
      case 'index': {
        const o = this.eval(n.obj, f);
        if (n.safe && o === undefined) return undefined;
        return getIndex(this, o, this.eval(n.idx, f), n);
      }
      case 'call':
        return evalCall(this, n, f);
      case 'method':
        return evalMethod(this, n, f);
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
        evalAssign(this, n, f);
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
        chargeWork(snap.length);
        for (let i = 0; i < snap.length; i++) {
          const v = snap[i];
          this.bindLoop(n, f, mark, isObj(v) && this.mutation.mayMutate(n.body, n.name) ? deepClone(v) : v, i);
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
