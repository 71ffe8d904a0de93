/** Syntax tree of the Rhai subset. Every node carries its 1-based line (`l`) and column (`c`). */

import type { Value } from './values.js';

export interface Pos {
  l: number;
  c: number;
}

export interface SwitchCase {
  /** Case values; `null` for the `_` default. */
  vals: Node[] | null;
  cond: Node | null;
  body: Node;
}

export type Node = Pos &
  (
    | { k: 'lit'; v: Value }
    | { k: 'tmpl'; parts: (string | Node)[] }
    | { k: 'arr'; items: Node[] }
    | { k: 'map'; entries: [string, Node][] }
    | { k: 'var'; name: string }
    | { k: 'this' }
    | { k: 'unary'; op: '-' | '+' | '!'; e: Node }
    | { k: 'bin'; op: string; a: Node; b: Node }
    | { k: 'and'; a: Node; b: Node }
    | { k: 'or'; a: Node; b: Node }
    | { k: 'coalesce'; a: Node; b: Node }
    | { k: 'prop'; obj: Node; name: string; safe: boolean }
    | { k: 'index'; obj: Node; idx: Node; safe: boolean }
    | { k: 'call'; name: string; args: Node[]; key: string }
    | { k: 'method'; obj: Node; name: string; args: Node[]; safe: boolean; key: string; key1: string }
    | { k: 'closure'; params: string[]; body: Node; captures: string[] }
    | { k: 'block'; stmts: Node[] }
    | { k: 'if'; cond: Node; then: Node; els: Node | null }
    | { k: 'switch'; subject: Node; cases: SwitchCase[] }
    | { k: 'while'; cond: Node; body: Node; until: boolean }
    | { k: 'dowhile'; cond: Node; body: Node; until: boolean }
    | { k: 'loop'; body: Node }
    | { k: 'for'; name: string; idx: string | null; iter: Node; body: Node }
    | { k: 'try'; body: Node; errVar: string | null; handler: Node }
    | { k: 'let'; name: string; init: Node | null; isConst: boolean }
    | { k: 'assign'; target: Node; op: string | null; value: Node }
    | { k: 'break'; value: Node | null }
    | { k: 'continue' }
    | { k: 'return'; value: Node | null }
    | { k: 'throw'; value: Node | null }
  );

export interface FnDef extends Pos {
  name: string;
  params: string[];
  body: Node;
}

/** Node kinds whose value is freshly built, so storing or passing it needs no copy. */
export const FRESH: ReadonlySet<string> = new Set(['lit', 'arr', 'map', 'tmpl', 'closure']);
