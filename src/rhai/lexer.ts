/** Tokenizer for the Rhai subset. */

import { syntaxError } from './faults.js';

export type TokType = 'int' | 'float' | 'str' | 'char' | 'tmpl' | 'ident' | 'op' | 'eof';

export interface Token {
  t: TokType;
  /** Operator or identifier text, string/char contents, or number value. */
  v: string;
  n?: number;
  /** Template parts: literal text, or the tokens of an interpolated expression. */
  parts?: (string | Token[])[];
  l: number;
  c: number;
}

const OPS = [
  '**=',
  '<<=',
  '>>=',
  '..=',
  '..',
  '::',
  '=>',
  '==',
  '!=',
  '<=',
  '>=',
  '&&',
  '||',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '&=',
  '|=',
  '^=',
  '**',
  '<<',
  '>>',
  '??',
  '?.',
  '?[',
  '#{',
  '+',
  '-',
  '*',
  '/',
  '%',
  '=',
  '<',
  '>',
  '!',
  '&',
  '|',
  '^',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  ',',
  ';',
  ':',
  '.',
  '?',
  '#',
  '@',
  '$',
  '~',
];

/** Symbols Rhai reserves (a syntax error there too). */
const RESERVED = ['++', '--', '#!', '===', '!==', ':=', '->', '<-', '::<'];

function isIdStart(ch: string): boolean {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch === '_';
}
function isIdChar(ch: string): boolean {
  return isIdStart(ch) || (ch >= '0' && ch <= '9');
}
function isDigit(ch: string): boolean {
  return ch >= '0' && ch <= '9';
}

export class Lexer {
  private i = 0;
  private line = 1;
  private col = 1;

  constructor(private readonly src: string) {}

  private peek(o = 0): string {
    return this.src[this.i + o] ?? '';
  }

  private adv(): string {
    const ch = this.src[this.i++] ?? '';
    if (ch === '\n') {
      this.line++;
      this.col = 1;
    } else {
      this.col++;
    }
    return ch;
  }

  /** Tokenize everything; with `untilBrace`, stop at the `}` closing an interpolation. */
  tokenize(untilBrace = false): Token[] {
    const out: Token[] = [];
    let depth = 0;
    for (;;) {
      this.skipSpace();
      const l = this.line;
      const c = this.col;
      const ch = this.peek();
      if (ch === '') {
        if (untilBrace) throw syntaxError("Unterminated string interpolation: expecting '}'", l, c);
        out.push({ t: 'eof', v: '', l, c });
        return out;
      }
      if (untilBrace) {
        if (ch === '{' || ch === '#') {
          // '#{' also opens a brace
          if (ch === '{' || this.peek(1) === '{') depth++;
        } else if (ch === '}') {
          if (depth === 0) {
            this.adv();
            out.push({ t: 'eof', v: '', l, c });
            return out;
          }
          depth--;
        }
      }
      out.push(this.next(l, c));
    }
  }

  private skipSpace(): void {
    for (;;) {
      const ch = this.peek();
      if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r' || ch === '\f' || ch === '\v' || ch === '\uFEFF') {
        this.adv();
      } else if (ch === '/' && this.peek(1) === '/') {
        while (this.peek() !== '' && this.peek() !== '\n') this.adv();
      } else if (ch === '/' && this.peek(1) === '*') {
        const l = this.line;
        const c = this.col;
        this.adv();
        this.adv();
        let depth = 1;
        while (depth > 0) {
          if (this.peek() === '') throw syntaxError('Unterminated block comment', l, c);
          if (this.peek() === '/' && this.peek(1) === '*') {
            this.adv();
            this.adv();
            depth++;
          } else if (this.peek() === '*' && this.peek(1) === '/') {
            this.adv();
            this.adv();
            depth--;
          } else this.adv();
        }
      } else return;
    }
  }

  private next(l: number, c: number): Token {
    const ch = this.peek();
    if (isDigit(ch)) return this.number(l, c);
    if (isIdStart(ch)) {
      let s = '';
      while (isIdChar(this.peek())) s += this.adv();
      return { t: 'ident', v: s, l, c };
    }
    if (ch === '"') return this.string(l, c);
    if (ch === '`') return this.template(l, c);
    if (ch === "'") return this.char(l, c);
    if (ch === '!' && this.src.startsWith('!in', this.i) && !isIdChar(this.peek(3))) {
      this.adv();
      this.adv();
      this.adv();
      return { t: 'op', v: '!in', l, c };
    }
    for (const r of RESERVED) {
      if (this.src.startsWith(r, this.i)) throw syntaxError(`'${r}' is a reserved symbol`, l, c);
    }
    for (const op of OPS) {
      if (this.src.startsWith(op, this.i)) {
        for (let k = 0; k < op.length; k++) this.adv();
        return { t: 'op', v: op, l, c };
      }
    }
    throw syntaxError(`Unexpected character '${ch}'`, l, c);
  }

  private number(l: number, c: number): Token {
    const start = this.i;
    if (this.peek() === '0' && /[xXoObB]/.test(this.peek(1))) {
      this.adv();
      const kind = this.adv().toLowerCase();
      const radix = kind === 'x' ? 16 : kind === 'o' ? 8 : 2;
      let digits = '';
      while (/[0-9a-fA-F_]/.test(this.peek())) {
        const d = this.adv();
        if (d !== '_') digits += d;
      }
      const ok = digits.length > 0 && [...digits].every((d) => Number.parseInt(d, 16) < radix);
      if (!ok) throw syntaxError(`Invalid number literal: ${this.src.slice(start, this.i)}`, l, c);
      const big = BigInt((radix === 16 ? '0x' : radix === 8 ? '0o' : '0b') + digits);
      // Rhai wraps hex/binary/octal literals into i64.
      const n = Number(BigInt.asIntN(64, big));
      if (!Number.isSafeInteger(n))
        throw syntaxError(`Integer literal too large for this engine: ${this.src.slice(start, this.i)}`, l, c);
      return { t: 'int', v: this.src.slice(start, this.i), n, l, c };
    }
    let text = '';
    let isFloat = false;
    while (isDigit(this.peek()) || this.peek() === '_') {
      const d = this.adv();
      if (d !== '_') text += d;
    }
    if (this.peek() === '.' && isDigit(this.peek(1))) {
      isFloat = true;
      text += this.adv();
      while (isDigit(this.peek()) || this.peek() === '_') {
        const d = this.adv();
        if (d !== '_') text += d;
      }
    }
    if (
      (this.peek() === 'e' || this.peek() === 'E') &&
      (isDigit(this.peek(1)) || (/[+-]/.test(this.peek(1)) && isDigit(this.peek(2))))
    ) {
      isFloat = true;
      text += this.adv();
      if (/[+-]/.test(this.peek())) text += this.adv();
      while (isDigit(this.peek())) text += this.adv();
    }
    if (isIdChar(this.peek())) throw syntaxError(`Invalid number literal: ${this.src.slice(start, this.i + 1)}`, l, c);
    if (isFloat) return { t: 'float', v: text, n: Number(text), l, c };
    const n = Number(text);
    if (!Number.isSafeInteger(n)) throw syntaxError(`Integer literal too large for this engine: ${text}`, l, c);
    return { t: 'int', v: text, n, l, c };
  }

  private escape(l: number, c: number): string {
    const e = this.adv();
    switch (e) {
      case 'n':
        return '\n';
      case 't':
        return '\t';
      case 'r':
        return '\r';
      case '0':
        return '\0';
      case '\\':
        return '\\';
      case '"':
        return '"';
      case "'":
        return "'";
      case '`':
        return '`';
      case '$':
        return '$';
      case 'x': {
        const h = this.adv() + this.adv();
        if (!/^[0-9a-fA-F]{2}$/.test(h)) throw syntaxError(`Invalid escape sequence: \\x${h}`, l, c);
        return String.fromCodePoint(Number.parseInt(h, 16));
      }
      case 'u':
      case 'U': {
        let h = '';
        if (this.peek() === '{') {
          this.adv();
          while (this.peek() !== '}' && this.peek() !== '' && h.length < 8) h += this.adv();
          if (this.adv() !== '}') throw syntaxError("Invalid unicode escape: expecting '}'", l, c);
        } else {
          const len = e === 'u' ? 4 : 8;
          for (let k = 0; k < len; k++) h += this.adv();
        }
        const cp = /^[0-9a-fA-F]{1,8}$/.test(h) ? Number.parseInt(h, 16) : Number.NaN;
        if (!(cp >= 0 && cp <= 0x10ffff) || (cp >= 0xd800 && cp <= 0xdfff))
          throw syntaxError(`Invalid unicode escape: \\u{${h}}`, l, c);
        return String.fromCodePoint(cp);
      }
      case '\n': {
        // line continuation: skip leading whitespace of the next line
        while (this.peek() === ' ' || this.peek() === '\t') this.adv();
        return '';
      }
      case '':
        throw syntaxError('Unterminated string literal', l, c);
      default:
        throw syntaxError(`Invalid escape sequence: \\${e}`, this.line, this.col - 2);
    }
  }

  private string(l: number, c: number): Token {
    this.adv();
    let s = '';
    for (;;) {
      const ch = this.peek();
      if (ch === '' || ch === '\n') throw syntaxError('Unterminated string literal', l, c);
      this.adv();
      if (ch === '"') {
        // `""` inside a string is an escaped quote, as in Rhai
        if (this.peek() === '"') {
          this.adv();
          s += '"';
          continue;
        }
        break;
      }
      if (ch === '\\') s += this.escape(l, c);
      else s += ch;
    }
    return { t: 'str', v: s, l, c };
  }

  private char(l: number, c: number): Token {
    this.adv();
    let s = '';
    for (;;) {
      const ch = this.peek();
      if (ch === '' || ch === '\n') throw syntaxError('Unterminated character literal', l, c);
      this.adv();
      if (ch === "'") break;
      if (ch === '\\') s += this.escape(l, c);
      else s += ch;
    }
    if ([...s].length !== 1) throw syntaxError(`Invalid character literal: '${s}'`, l, c);
    return { t: 'char', v: s, l, c };
  }

  private template(l: number, c: number): Token {
    this.adv();
    // A back-tick at the end of a line: the text starts on the next line.
    if (this.peek() === '\n') this.adv();
    else if (this.peek() === '\r' && this.peek(1) === '\n') {
      this.adv();
      this.adv();
    }
    const parts: (string | Token[])[] = [];
    let s = '';
    for (;;) {
      const ch = this.peek();
      if (ch === '') throw syntaxError('Unterminated string literal', l, c);
      if (ch === '`') {
        this.adv();
        if (this.peek() === '`') {
          this.adv();
          s += '`';
          continue;
        }
        break;
      }
      if (ch === '$' && this.peek(1) === '{') {
        this.adv();
        this.adv();
        if (s) parts.push(s);
        s = '';
        const toks = this.tokenize(true);
        parts.push(toks);
        continue;
      }
      s += this.adv();
    }
    if (s || parts.length === 0) parts.push(s);
    return { t: 'tmpl', v: '', parts, l, c };
  }
}
