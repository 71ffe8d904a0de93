// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are Rhai sources, whose back-tick strings use ${}.
/** Error positions, the error format, and the limits. */
import { describe, expect, it } from 'vitest';
import { compile, DEFAULT_LIMITS } from '../../src/rhai/index.js';
import { err, evaluate, table } from './table.js';

describe('error line and column', () => {
  table([
    [
      'let a = 1;\nlet b = 2;\nlet c = foo;',
      err('rhai-runtime', /^Variable not found: foo \(line 3, position 9\) in test\.rhai$/, [3, 9]),
    ],
    ['let x = 1;\n  x +;', err('rhai-syntax', /Unexpected ';'/, [2, 6])],
    ['let x = "unterminated;', err('rhai-syntax', /Unterminated string/, [1, 9])],
    ['let x = 1\nlet y = 2;', err('rhai-syntax', /Expecting ';'/, [2, 1])],
    ['fn f() {\n  missing_fn(1)\n}\nf()', err('rhai-runtime', /Function not found: missing_fn \(i64\)/, [2, 3])],
    [
      'let a = [1, 2];\nlet b = a[10];',
      err('rhai-runtime', /Array index 10 out of bounds: only 2 elements in array/, [2, 11]),
    ],
    ['let x = 10;\nlet y = x / 0;', err('rhai-runtime', /Division by zero/, [2, 11])],
    ['/* open comment', err('rhai-syntax', /Unterminated block comment/, [1, 1])],
    ['let m = #{a: 1, a: 2};', err('rhai-syntax', /Duplicated property 'a'/, [1, 17])],
    ['if x == 1 { }', err('rhai-runtime', /Variable not found: x/, [1, 4])],
    ['let let = 1;', err('rhai-syntax', /Reserved keyword 'let'/, [1, 5])],
    ['import "x" as y;', err('rhai-syntax', /modules are not available/, [1, 1])],
    ['let m = a::b;', err('rhai-syntax', /'::' is not supported: modules are not available/)],
    ['!5', err('rhai-runtime', /Operator '!' expects a boolean, but got i64/)],
    ['-"a"', err('rhai-runtime', /Function not found: - \(string\)/)],
    ['let s = "\\q";', err('rhai-syntax', /Invalid escape sequence/)],
    ["let c = 'ab';", err('rhai-syntax', /Invalid character literal/, [1, 9])],
    ['let x = (1 + 2;', err('rhai-syntax', /Expecting '\)'/, [1, 15])],
    ['"a" * 2', err('rhai-runtime', /Function not found: \* \(string, i64\)/, [1, 5])],
    ['let x = null;', err('rhai-runtime', /Variable not found: null \(Rhai writes null as \(\)\)/, [1, 9])],
    [
      'let m = #{};\nm.a.b',
      err('rhai-runtime', /Unknown property 'b' - a getter is not registered for type '\(\)'/, [2, 5]),
    ],
  ]);

  it('reports the script path given to compile', () => {
    const c = compile('let x = 1;\nx + y', 'context_hooks/brain.rhai');
    expect(c.ok).toBe(true);
    if (!c.ok) return;
    const r = c.script.run();
    expect(r).toEqual({
      ok: false,
      logs: [],
      error: {
        code: 'rhai-runtime',
        message: 'Variable not found: y (line 2, position 5) in context_hooks/brain.rhai',
        path: 'context_hooks/brain.rhai',
        line: 2,
        column: 5,
      },
    });
  });

  it('syntax errors come back from compile, not as exceptions', () => {
    const c = compile('fn (', 'bad.rhai');
    expect(c.ok).toBe(false);
    if (c.ok) return;
    expect(c.error.code).toBe('rhai-syntax');
    expect(c.error.path).toBe('bad.rhai');
    expect(c.error.message).toMatch(/\(line 1, position 4\) in bad\.rhai$/);
  });
});

describe('limits', () => {
  it('has the documented defaults', () => {
    expect(DEFAULT_LIMITS).toEqual({
      maxOperations: 100_000,
      maxCallDepth: 64,
      maxStringSize: 1_000_000,
      maxArraySize: 100_000,
      maxMapSize: 100_000,
    });
  });

  it('an infinite loop ends with the operations limit, counted, not timed', () => {
    const r = evaluate('let i = 0;\nloop { i += 1; }');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toMatchObject({ code: 'rhai-limit', limit: 'operations', line: 2 });
    expect(r.error.message).toMatch(/maximum of 100000 operations/);
  });

  it('while true {} also stops', () => {
    const r = evaluate('while true {}');
    expect(r.ok || r.error.limit).toBe('operations');
  });

  it('deep recursion ends with the call-depth limit', () => {
    const r = evaluate('fn f(n) { f(n+1) }\nf(0)');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toMatchObject({ code: 'rhai-limit', limit: 'call-depth', line: 1, column: 11 });
  });

  it('recursion through closures is limited too', () => {
    const r = evaluate('fn g(f) { f.call(f) }\ng(|s| g(s))');
    expect(!r.ok && r.error.limit).toBe('call-depth');
  });

  it('string doubling ends with the string-size limit', () => {
    const r = evaluate('let s = "x";\nloop { s += s; }');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toMatchObject({ code: 'rhai-limit', limit: 'string-size', line: 2 });
  });

  it('string growth through interpolation and methods is limited', () => {
    const r1 = evaluate('let s = "ab"; loop { s = `${s}${s}`; }');
    expect(!r1.ok && r1.error.limit).toBe('string-size');
    const r2 = evaluate('let s = "ab"; loop { s = [s, s].join(""); }');
    expect(!r2.ok && r2.error.limit).toBe('string-size');
    const r3 = evaluate('let s = "ab"; s.pad(2000000, "x");');
    expect(!r3.ok && r3.error.limit).toBe('string-size');
  });

  it('array growth is limited', () => {
    const r = evaluate('let a = [1];\nloop { a += a; }');
    expect(!r.ok && r.error).toMatchObject({ code: 'rhai-limit', limit: 'array-size', line: 2 });
    const r2 = evaluate('let a = []; for i in 0..20 { a.push(i); }', undefined, { maxArraySize: 10 });
    expect(!r2.ok && r2.error.limit).toBe('array-size');
  });

  it('map growth is limited', () => {
    const r = evaluate('let m = #{}; for i in 0..100 { m["k" + i] = i; }', undefined, { maxMapSize: 50 });
    expect(!r.ok && r.error).toMatchObject({ code: 'rhai-limit', limit: 'map-size' });
  });

  it('each limit is configurable per call', () => {
    expect(evaluate('let s = 0; for i in 0..100 { s += i } s', undefined, { maxOperations: 50 })).toMatchObject({
      ok: false,
      error: { limit: 'operations' },
    });
    expect(
      evaluate('fn f(n) { if n == 0 { 0 } else { f(n - 1) } } f(10)', undefined, { maxCallDepth: 5 }),
    ).toMatchObject({
      ok: false,
      error: { limit: 'call-depth' },
    });
    expect(
      evaluate('fn f(n) { if n == 0 { 0 } else { f(n - 1) } } f(10)', undefined, { maxCallDepth: 11 }),
    ).toMatchObject({
      ok: true,
      value: 0,
    });
    expect(evaluate('"abc" + "def"', undefined, { maxStringSize: 5 })).toMatchObject({
      ok: false,
      error: { limit: 'string-size' },
    });
    expect(evaluate('[1, 2, 3]', undefined, { maxArraySize: 2 })).toMatchObject({
      ok: false,
      error: { limit: 'array-size' },
    });
    expect(evaluate('#{a: 1, b: 2}', undefined, { maxMapSize: 1 })).toMatchObject({
      ok: false,
      error: { limit: 'map-size' },
    });
  });

  it('limit errors cannot be caught by try/catch', () => {
    const r = evaluate('try { loop {} } catch { 1 }');
    expect(!r.ok && r.error.limit).toBe('operations');
  });

  it('a 64-deep call chain within the default limit works', () => {
    expect(evaluate('fn f(n) { if n == 0 { 0 } else { 1 + f(n - 1) } } f(63)')).toMatchObject({ ok: true, value: 63 });
  });

  it('JS stack exhaustion becomes a rhai-runtime error, never an exception', () => {
    const deep = `${'['.repeat(100)}1${']'.repeat(100)}`;
    expect(evaluate(deep).ok).toBe(true);
    const tooDeep = `${'('.repeat(5000)}1${')'.repeat(5000)}`;
    const c = compile(tooDeep, 'deep.rhai');
    expect(c.ok).toBe(false);
    const long = `let x = 0; x = ${Array(200000).fill('1').join(' + ')};`;
    const r = evaluate(long, undefined, { maxOperations: 10_000_000 });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(['rhai-runtime', 'rhai-syntax']).toContain(r.error.code);
  });
});
