/** Variable scopes and the signals that unwind loops and function bodies. */

import { Cell, type Value } from './values.js';

export class BreakSig {
  constructor(readonly value: Value) {}
}
class ContinueSig {}
export class ReturnSig {
  constructor(readonly value: Value) {}
}
export const CONTINUE = new ContinueSig();

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

export interface Frame {
  scope: Scope;
  thisBox: { v: Value } | null;
}
