/** String built-ins, and character-indexed access to strings with its work accounting. */

import type { Pos } from './ast.js';
import { NOT_FOUND } from './builtin-table.js';
import type { Interp } from './interp.js';
import { chargeWork, display, RChar, RRange, type Value } from './values.js';

const HAS_SURROGATE = /[\uD800-\uDFFF]/;
/**
 * One-entry caches so `for i in 0..s.len() { s[i] }` does not rescan a long string each step.
 * Reset by every new Interp: a cache hit changes the work charged, and a call's operation count
 * must not depend on earlier calls (workflow replays must see the same result).
 */
let cacheStr: string | null = null;
let cacheChars: string[] = [];
export function resetStringCaches(): void {
  cacheStr = null;
  cacheChars = [];
  lenStr = null;
  lenVal = 0;
}
export function strChars(s: string): string[] {
  if (s === cacheStr) return cacheChars;
  chargeWork(s.length); // one unit per character: this allocates
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
  chargeWork(s.length >> 2);
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

export function stringFn(ip: Interp, name: string, s: string, args: Value[], at: Pos): Value | typeof NOT_FOUND {
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
      if (n === 2) return ip.checkStr(s + display(a1), at);
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
          ip.checkStr(out, at);
          pos = k + find.length;
        }
        return ip.checkStr(out + s.slice(pos), at);
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
        if (a1 > ip.limits.maxStringSize)
          throw ip.limit('string-size', `String exceeds the maximum size of ${ip.limits.maxStringSize} characters`, at);
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
        return ip.checkArr(
          strChars(s).map((c) => new RChar(c)),
          at,
        );
      break;
    case 'split':
      if (n === 1)
        return ip.checkArr(
          s.split(/\s+/).filter((x) => x !== ''),
          at,
        );
      if (n === 2 && pat(a1) !== null) {
        const sep = pat(a1)!;
        // Rust's split on "" yields an empty piece at both ends
        if (sep === '') return ip.checkArr(['', ...strChars(s), ''], at);
        return ip.checkArr(s.split(sep), at);
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
