/** Table-driven conformance helpers: each row is `[source, expected]`. */
import { appendFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { compile, type RhaiError, type RhaiLimits, type RunResult } from '../../src/rhai/index.js';

export interface ErrExpect {
  __err: true;
  code: RhaiError['code'];
  match?: RegExp;
  line?: number;
  column?: number;
  limit?: RhaiError['limit'];
}

/** Expect an error with this code, optionally a message pattern and a `[line, column]`. */
export function err(
  code: RhaiError['code'],
  match?: RegExp,
  pos?: [number, number],
  limit?: RhaiError['limit'],
): ErrExpect {
  const e: ErrExpect = { __err: true, code };
  if (match) e.match = match;
  if (pos) {
    e.line = pos[0];
    e.column = pos[1];
  }
  if (limit) e.limit = limit;
  return e;
}

export type Row = [source: string, expected: unknown];

export function evaluate(source: string, scope?: Record<string, unknown>, limits?: Partial<RhaiLimits>): RunResult {
  const c = compile(source, 'test.rhai');
  if (!c.ok) return { ok: false, error: c.error, logs: [] };
  return c.script.run(scope, limits);
}

export function check(source: string, expected: unknown): void {
  const r = evaluate(source);
  if (expected && typeof expected === 'object' && (expected as ErrExpect).__err) {
    const x = expected as ErrExpect;
    expect(r.ok, `expected an error, got ${JSON.stringify(r)}`).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe(x.code);
    expect(r.error.path).toBe('test.rhai');
    if (x.match) expect(r.error.message).toMatch(x.match);
    if (x.line !== undefined) expect([r.error.line, r.error.column]).toEqual([x.line, x.column]);
    if (x.limit) expect(r.error.limit).toBe(x.limit);
    return;
  }
  expect(r, source).toEqual({ ok: true, value: expected, logs: r.logs });
}

/**
 * With RHAI_DUMP=<file>, every row's source and this engine's result are also appended to
 * <file> as JSON lines, for test/rhai/reference/compare.ts to check against real Rhai.
 */
export function table(rows: Row[]): void {
  const dump = process.env.RHAI_DUMP;
  for (const [src, expected] of rows) {
    if (dump) appendFileSync(dump, `${JSON.stringify({ src, mine: evaluate(src) })}\n`);
    it(src.length > 80 ? `${src.slice(0, 77)}...` : src, () => check(src, expected));
  }
}
