/** Recursive-descent parser for the Rhai subset. */

import type { FnDef, Node, SwitchCase } from './ast.js';
import { syntaxError } from './faults.js';
import { Lexer, type Token } from './lexer.js';
import { RChar, RFloat } from './values.js';

const KEYWORDS = new Set([
  'let',
  'const',
  'fn',
  'if',
  'else',
  'while',
  'loop',
  'for',
  'in',
  'do',
  'break',
  'continue',
  'return',
  'switch',
  'true',
  'false',
  'throw',
  'try',
  'catch',
  'this',
  'import',
  'export',
  'private',
]);

const PREC: Record<string, number> = {
  '??': 20,
  '||': 30,
  '|': 30,
  '^': 30,
  '&&': 60,
  '&': 60,
  '==': 90,
  '!=': 90,
  in: 110,
  '!in': 110,
  '<': 130,
  '<=': 130,
  '>': 130,
  '>=': 130,
  '..': 140,
  '..=': 140,
  '+': 150,
  '-': 150,
  '*': 180,
  '/': 180,
  '%': 180,
  '**': 190,
  '<<': 210,
  '>>': 210,
};

const ASSIGN_OPS = new Set(['=', '+=', '-=', '*=', '/=', '%=', '**=', '<<=', '>>=', '&=', '|=', '^=']);
const MAX_DEPTH = 128;

export interface Program {
  stmts: Node[];
  fns: Map<string, FnDef>;
}

export { isAssignable };

export function fnKey(name: string, arity: number): string {
  return `${name}/${arity}`;
}

export function parseProgram(src: string): Program {
  const toks = new Lexer(src).tokenize();
  const p = new Parser(toks);
  return p.program();
}

class Parser {
  private i = 0;
  private depth = 0;
  private loops = 0;
  private inFn = false;
  private readonly fns = new Map<string, FnDef>();

  constructor(private readonly toks: Token[]) {}

  private peek(o = 0): Token {
    return this.toks[Math.min(this.i + o, this.toks.length - 1)]!;
  }
  private next(): Token {
    const t = this.toks[this.i]!;
    if (this.i < this.toks.length - 1) this.i++;
    return t;
  }
  private isOp(v: string, o = 0): boolean {
    const t = this.peek(o);
    return t.t === 'op' && t.v === v;
  }
  private isKw(v: string, o = 0): boolean {
    const t = this.peek(o);
    return t.t === 'ident' && t.v === v;
  }
  private describe(t: Token): string {
    switch (t.t) {
      case 'eof':
        return 'end of script';
      case 'str':
        return 'string literal';
      case 'tmpl':
        return 'string literal';
      case 'char':
        return 'character literal';
      default:
        return `'${t.v}'`;
    }
  }
  private expectOp(v: string, what?: string): Token {
    const t = this.peek();
    if (t.t === 'op' && t.v === v) return this.next();
    throw syntaxError(`Expecting '${v}'${what ? ` ${what}` : ''}, found ${this.describe(t)}`, t.l, t.c);
  }
  private ident(what: string): Token {
    const t = this.peek();
    if (t.t !== 'ident') throw syntaxError(`Expecting ${what}, found ${this.describe(t)}`, t.l, t.c);
    if (KEYWORDS.has(t.v)) throw syntaxError(`Reserved keyword '${t.v}' cannot be used as ${what}`, t.l, t.c);
    return this.next();
  }
  private enter(t: Token): void {
    if (++this.depth > MAX_DEPTH) throw syntaxError('Expression exceeds maximum nesting depth', t.l, t.c);
  }

  program(): Program {
    const stmts: Node[] = [];
    while (this.peek().t !== 'eof') {
      if (this.isKw('fn') || (this.isKw('private') && this.isKw('fn', 1))) {
        this.fnDef();
        continue;
      }
      const s = this.statement();
      if (s) stmts.push(s);
    }
    return { stmts, fns: this.fns };
  }

  private fnDef(): void {
    if (this.isKw('private')) this.next();
    const fnTok = this.next();
    const name = this.ident('a function name');
    this.expectOp('(', 'after the function name');
    const params: string[] = [];
    while (!this.isOp(')')) {
      const p = this.ident('a parameter name');
      if (params.includes(p.v)) throw syntaxError(`Duplicated parameter '${p.v}'`, p.l, p.c);
      params.push(p.v);
      if (!this.isOp(',')) break;
      this.next();
    }
    this.expectOp(')', 'to close the parameter list');
    const key = fnKey(name.v, params.length);
    if (this.fns.has(key))
      throw syntaxError(
        `Function '${name.v}' with ${params.length} parameters is defined more than once`,
        name.l,
        name.c,
      );
    const saved = [this.loops, this.inFn];
    this.loops = 0;
    this.inFn = true;
    const body = this.block();
    [this.loops, this.inFn] = saved as [number, boolean];
    this.fns.set(key, { name: name.v, params, body, l: fnTok.l, c: fnTok.c });
  }

  /** One statement, including its terminating `;` when required. Returns null for an empty statement. */
  private statement(): Node | null {
    const t = this.peek();
    if (t.t === 'op' && t.v === ';') {
      this.next();
      return null;
    }
    let s: Node;
    let blockEnding = false;
    if (t.t === 'ident') {
      switch (t.v) {
        case 'fn':
        case 'private':
          throw syntaxError('Functions can only be defined at global level', t.l, t.c);
        case 'import':
        case 'export':
          throw syntaxError(`'${t.v}' is not supported: modules are not available in this sandbox`, t.l, t.c);
        case 'let':
        case 'const':
          s = this.letStmt();
          break;
        case 'break':
        case 'continue': {
          this.next();
          if (this.loops === 0) throw syntaxError(`'${t.v}' can only be used inside a loop`, t.l, t.c);
          if (t.v === 'continue') s = { k: 'continue', l: t.l, c: t.c };
          else s = { k: 'break', value: this.optValue(), l: t.l, c: t.c };
          break;
        }
        case 'return':
          this.next();
          s = { k: 'return', value: this.optValue(), l: t.l, c: t.c };
          break;
        case 'throw':
          this.next();
          s = { k: 'throw', value: this.optValue(), l: t.l, c: t.c };
          break;
        case 'if':
        case 'while':
        case 'loop':
        case 'for':
        case 'switch':
        case 'try':
          s = this.primary();
          blockEnding = true;
          break;
        default:
          s = this.exprOrAssign();
      }
    } else if (t.t === 'op' && t.v === '{') {
      s = this.block();
      blockEnding = true;
    } else {
      s = this.exprOrAssign();
    }
    if (this.isOp(';')) this.next();
    else if (!blockEnding && !this.isOp('}') && this.peek().t !== 'eof') {
      const n = this.peek();
      throw syntaxError(`Expecting ';' to terminate this statement, found ${this.describe(n)}`, n.l, n.c);
    }
    return s;
  }

  private optValue(): Node | null {
    if (this.isOp(';') || this.isOp('}') || this.peek().t === 'eof') return null;
    return this.expr();
  }

  private letStmt(): Node {
    const kw = this.next();
    const name = this.ident('a variable name');
    let init: Node | null = null;
    if (this.isOp('=')) {
      this.next();
      init = this.expr();
    } else if (kw.v === 'const') {
      throw syntaxError(`Constant '${name.v}' must be given a value`, name.l, name.c);
    }
    return { k: 'let', name: name.v, init, isConst: kw.v === 'const', l: kw.l, c: kw.c };
  }

  private exprOrAssign(): Node {
    const e = this.expr();
    const t = this.peek();
    if (t.t === 'op' && ASSIGN_OPS.has(t.v)) {
      if (!isAssignable(e)) throw syntaxError('Expression cannot be assigned to', t.l, t.c);
      this.next();
      const value = this.expr();
      return { k: 'assign', target: e, op: t.v === '=' ? null : t.v.slice(0, -1), value, l: t.l, c: t.c };
    }
    return e;
  }

  block(): Node {
    const open = this.expectOp('{', 'to start a block');
    this.enter(open);
    const stmts: Node[] = [];
    while (!this.isOp('}')) {
      if (this.peek().t === 'eof') throw syntaxError("Expecting '}' to close the block", open.l, open.c);
      const s = this.statement();
      if (s) stmts.push(s);
    }
    this.next();
    this.depth--;
    return { k: 'block', stmts, l: open.l, c: open.c };
  }

  expr(): Node {
    const t = this.peek();
    this.enter(t);
    const e = this.binary(0);
    this.depth--;
    return e;
  }

  private binary(minPrec: number): Node {
    let left = this.unary();
    for (;;) {
      const t = this.peek();
      let op: string | null = null;
      if (t.t === 'op' && PREC[t.v] !== undefined) op = t.v;
      else if (t.t === 'ident' && t.v === 'in') op = 'in';
      if (op === null) return left;
      const prec = PREC[op]!;
      if (prec < minPrec) return left;
      this.next();
      const right = op === '**' ? this.binary(prec) : this.binary(prec + 1);
      if (op === '&&') left = { k: 'and', a: left, b: right, l: t.l, c: t.c };
      else if (op === '||') left = { k: 'or', a: left, b: right, l: t.l, c: t.c };
      else if (op === '??') left = { k: 'coalesce', a: left, b: right, l: t.l, c: t.c };
      else left = { k: 'bin', op, a: left, b: right, l: t.l, c: t.c };
    }
  }

  private unary(): Node {
    const t = this.peek();
    if (t.t === 'op' && (t.v === '-' || t.v === '+' || t.v === '!')) {
      this.next();
      this.enter(t);
      const e = this.unary();
      this.depth--;
      if (t.v === '-' && e.k === 'lit') {
        if (typeof e.v === 'number') return { k: 'lit', v: e.v === 0 ? 0 : -e.v, l: t.l, c: t.c };
        if (e.v instanceof RFloat) return { k: 'lit', v: new RFloat(-e.v.v), l: t.l, c: t.c };
      }
      return { k: 'unary', op: t.v, e, l: t.l, c: t.c };
    }
    return this.postfix(this.primary());
  }

  private args(): Node[] {
    this.expectOp('(');
    const args: Node[] = [];
    while (!this.isOp(')')) {
      args.push(this.expr());
      if (!this.isOp(',')) break;
      this.next();
    }
    this.expectOp(')', 'to close the argument list');
    return args;
  }

  private postfix(e: Node): Node {
    for (;;) {
      const t = this.peek();
      if (t.t !== 'op') return e;
      if (t.v === '.' || t.v === '?.') {
        this.next();
        const name = this.peek();
        if (name.t !== 'ident')
          throw syntaxError(
            `Expecting a property or method name after '${t.v}', found ${this.describe(name)}`,
            name.l,
            name.c,
          );
        this.next();
        if (this.isOp('(')) {
          const args = this.args();
          e = {
            k: 'method',
            obj: e,
            name: name.v,
            args,
            safe: t.v === '?.',
            key: fnKey(name.v, args.length),
            key1: fnKey(name.v, args.length + 1),
            l: name.l,
            c: name.c,
          };
        } else {
          e = { k: 'prop', obj: e, name: name.v, safe: t.v === '?.', l: name.l, c: name.c };
        }
      } else if (t.v === '[' || t.v === '?[') {
        this.next();
        const idx = this.expr();
        this.expectOp(']', 'to close the index');
        e = { k: 'index', obj: e, idx, safe: t.v === '?[', l: idx.l, c: idx.c };
      } else if (t.v === '::') {
        throw syntaxError("'::' is not supported: modules are not available in this sandbox", t.l, t.c);
      } else return e;
    }
  }

  private primary(): Node {
    const t = this.peek();
    const { l, c } = t;
    switch (t.t) {
      case 'int':
        this.next();
        return { k: 'lit', v: t.n!, l, c };
      case 'float':
        this.next();
        return { k: 'lit', v: new RFloat(t.n!), l, c };
      case 'str':
        this.next();
        return { k: 'lit', v: t.v, l, c };
      case 'char':
        this.next();
        return { k: 'lit', v: new RChar(t.v), l, c };
      case 'tmpl': {
        this.next();
        const parts: (string | Node)[] = [];
        for (const p of t.parts!) {
          if (typeof p === 'string') parts.push(p);
          else {
            const sub = new Parser(p);
            sub.depth = this.depth;
            sub.loops = this.loops;
            sub.inFn = this.inFn;
            const stmts: Node[] = [];
            while (sub.peek().t !== 'eof') {
              const s = sub.statement();
              if (s) stmts.push(s);
            }
            parts.push({ k: 'block', stmts, l: p[0]!.l, c: p[0]!.c });
          }
        }
        return { k: 'tmpl', parts, l, c };
      }
      case 'eof':
        throw syntaxError('Unexpected end of script', l, c);
      case 'ident':
        return this.identPrimary(t);
    }
    // operators
    switch (t.v) {
      case '(': {
        this.next();
        if (this.isOp(')')) {
          this.next();
          return { k: 'lit', v: undefined, l, c };
        }
        const e = this.expr();
        this.expectOp(')', 'to close the parenthesis');
        return e;
      }
      case '[': {
        this.next();
        const items: Node[] = [];
        while (!this.isOp(']')) {
          items.push(this.expr());
          if (!this.isOp(',')) break;
          this.next();
        }
        this.expectOp(']', 'to close the array literal');
        return { k: 'arr', items, l, c };
      }
      case '#{': {
        this.next();
        const entries: [string, Node][] = [];
        const seen = new Set<string>();
        while (!this.isOp('}')) {
          const kt = this.peek();
          if (kt.t !== 'ident' && kt.t !== 'str')
            throw syntaxError(
              `Expecting a property name in the object map literal, found ${this.describe(kt)}`,
              kt.l,
              kt.c,
            );
          this.next();
          if (seen.has(kt.v)) throw syntaxError(`Duplicated property '${kt.v}' in object map literal`, kt.l, kt.c);
          seen.add(kt.v);
          this.expectOp(':', 'after the property name');
          entries.push([kt.v, this.expr()]);
          if (!this.isOp(',')) break;
          this.next();
        }
        this.expectOp('}', 'to close the object map literal');
        return { k: 'map', entries, l, c };
      }
      case '{':
        return this.block();
      case '|':
      case '||':
        return this.closure();
    }
    throw syntaxError(`Unexpected ${this.describe(t)}`, l, c);
  }

  private closure(): Node {
    const t = this.next();
    const params: string[] = [];
    if (t.v === '|') {
      while (!this.isOp('|')) {
        const p = this.ident('a closure parameter name');
        if (params.includes(p.v)) throw syntaxError(`Duplicated parameter '${p.v}'`, p.l, p.c);
        params.push(p.v);
        if (!this.isOp(',')) break;
        this.next();
      }
      this.expectOp('|', 'to close the closure parameters');
    }
    const saved = [this.loops, this.inFn];
    this.loops = 0;
    this.inFn = true;
    this.enter(t);
    const body = this.expr();
    this.depth--;
    [this.loops, this.inFn] = saved as [number, boolean];
    const names = new Set<string>();
    collectVars(body, names);
    for (const p of params) names.delete(p);
    return { k: 'closure', params, body, captures: [...names], l: t.l, c: t.c };
  }

  private identPrimary(t: Token): Node {
    const { l, c } = t;
    switch (t.v) {
      case 'true':
      case 'false':
        this.next();
        return { k: 'lit', v: t.v === 'true', l, c };
      case 'this':
        this.next();
        return { k: 'this', l, c };
      case 'if': {
        this.next();
        this.enter(t);
        const cond = this.expr();
        const then = this.block();
        let els: Node | null = null;
        if (this.isKw('else')) {
          this.next();
          els = this.isKw('if') ? this.identPrimary(this.peek()) : this.block();
        }
        this.depth--;
        return { k: 'if', cond, then, els, l, c };
      }
      case 'while': {
        this.next();
        const cond = this.expr();
        return { k: 'while', cond, body: this.loopBody(), until: false, l, c };
      }
      case 'loop':
        this.next();
        return { k: 'loop', body: this.loopBody(), l, c };
      case 'do': {
        this.next();
        const body = this.loopBody();
        const kw = this.peek();
        if (kw.t !== 'ident' || (kw.v !== 'while' && kw.v !== 'until'))
          throw syntaxError(`Expecting 'while' or 'until' after a do block, found ${this.describe(kw)}`, kw.l, kw.c);
        this.next();
        return { k: 'dowhile', cond: this.expr(), body, until: kw.v === 'until', l, c };
      }
      case 'for': {
        this.next();
        let name: Token;
        let idx: Token | null = null;
        if (this.isOp('(')) {
          this.next();
          name = this.ident('a loop variable name');
          this.expectOp(',');
          idx = this.ident('a counter variable name');
          this.expectOp(')');
        } else name = this.ident('a loop variable name');
        if (!this.isKw('in')) {
          const n = this.peek();
          throw syntaxError(`Expecting 'in' after the for loop variable, found ${this.describe(n)}`, n.l, n.c);
        }
        this.next();
        const iter = this.expr();
        return { k: 'for', name: name.v, idx: idx ? idx.v : null, iter, body: this.loopBody(), l, c };
      }
      case 'switch':
        return this.switchExpr();
      case 'try': {
        this.next();
        const body = this.block();
        if (!this.isKw('catch')) {
          const n = this.peek();
          throw syntaxError(`Expecting 'catch' after a try block, found ${this.describe(n)}`, n.l, n.c);
        }
        this.next();
        let errVar: string | null = null;
        if (this.isOp('(')) {
          this.next();
          errVar = this.ident('an error variable name').v;
          this.expectOp(')');
        }
        return { k: 'try', body, errVar, handler: this.block(), l, c };
      }
      case 'fn':
      case 'private':
        throw syntaxError('Functions can only be defined at global level', l, c);
    }
    if (KEYWORDS.has(t.v)) throw syntaxError(`Unexpected keyword '${t.v}'`, l, c);
    this.next();
    if (this.isOp('(')) {
      const args = this.args();
      return { k: 'call', name: t.v, args, key: fnKey(t.v, args.length), l, c };
    }
    return { k: 'var', name: t.v, l, c };
  }

  private loopBody(): Node {
    this.loops++;
    const b = this.block();
    this.loops--;
    return b;
  }

  private switchExpr(): Node {
    const t = this.next();
    const subject = this.expr();
    this.expectOp('{', 'to start the switch block');
    this.enter(t);
    const cases: SwitchCase[] = [];
    while (!this.isOp('}')) {
      let vals: Node[] | null = null;
      if (cases.length > 0 && cases[cases.length - 1]!.vals === null && cases[cases.length - 1]!.cond === null) {
        const d = this.peek();
        throw syntaxError('Default switch case must be the last', d.l, d.c);
      }
      if (this.isKw('_')) this.next();
      else {
        vals = [this.binary(PREC['|']! + 1)];
        while (this.isOp('|')) {
          this.next();
          vals.push(this.binary(PREC['|']! + 1));
        }
      }
      let cond: Node | null = null;
      if (this.isKw('if')) {
        this.next();
        cond = this.expr();
      }
      this.expectOp('=>', 'in the switch case');
      const isBlock = this.isOp('{');
      const body = isBlock ? this.block() : this.expr();
      cases.push({ vals, cond, body });
      if (this.isOp(',')) this.next();
      else if (!isBlock && !this.isOp('}')) {
        const n = this.peek();
        throw syntaxError(`Expecting ',' or '}' after the switch case, found ${this.describe(n)}`, n.l, n.c);
      }
    }
    this.next();
    this.depth--;
    return { k: 'switch', subject, cases, l: t.l, c: t.c };
  }
}

function isAssignable(e: Node): boolean {
  if (e.k === 'var' || e.k === 'this') return true;
  if (e.k === 'prop' || e.k === 'index') return !e.safe && isAssignable(e.obj);
  return false;
}

/** Every variable name a closure body refers to (a superset of what it captures). */
function collectVars(n: unknown, out: Set<string>): void {
  if (Array.isArray(n)) {
    for (const x of n) collectVars(x, out);
    return;
  }
  if (n === null || typeof n !== 'object') return;
  const node = n as Record<string, unknown>;
  if (node.k === 'var') {
    out.add(node.name as string);
    return;
  }
  if (node.k === 'call') out.add(node.name as string);
  for (const key of Object.keys(node)) {
    if (key === 'k' || key === 'l' || key === 'c' || key === 'v') continue;
    collectVars(node[key], out);
  }
}
