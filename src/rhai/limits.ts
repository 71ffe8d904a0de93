/**
 * The limits a script runs under: operations counted (evaluation steps plus the work charged by
 * built-ins, see `work`), value sizes, call depth and log volume, and the faults that report them.
 */

import type { Pos } from './ast.js';
import { type LimitName, RhaiFault } from './faults.js';
import { bulkWork, chargeWork, type RMap, resetWork, type Value } from './values.js';

export interface RhaiLimits {
  maxOperations: number;
  maxCallDepth: number;
  maxStringSize: number;
  maxArraySize: number;
  maxMapSize: number;
}

/** The limit-keeping half of the interpreter: counters and checks, no evaluation. */
export class Guard {
  ops = 0;
  depth = 0;
  logChars = 0;
  readonly logs: string[] = [];

  constructor(readonly limits: RhaiLimits) {
    // The bulk work count is module state shared by every run; starting it at zero keeps a run's count independent of earlier runs
    resetWork();
  }

  /** Counts one evaluation step; built-in work is charged at one operation per 64 units. */
  countOperation(at: Pos): void {
    if (++this.ops + (bulkWork() >> 6) > this.limits.maxOperations) {
      throw this.limit('operations', `Script exceeded the maximum of ${this.limits.maxOperations} operations`, at);
    }
  }

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
    chargeWork(1);
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
}
