// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are Rhai sources, whose back-tick strings use ${}.
/** The public API: compile/run/call, conversions, logs, statelessness, sandboxing, robustness. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compile, type RhaiScript } from '../../src/rhai/index.js';

function mustCompile(src: string, path = 'api.rhai'): RhaiScript {
  const c = compile(src, path);
  if (!c.ok) throw new Error(c.error.message);
  return c.script;
}

describe('compile / run / call', () => {
  it('run returns the last expression and sees the given scope (seed inputs)', () => {
    const s = mustCompile('let lines = task.split("\\n"); `${workdir}: ${lines.len()} lines`', 'seeds/plan.rhai');
    expect(s.path).toBe('seeds/plan.rhai');
    expect(s.run({ task: 'a\nb\nc', workdir: '/w' })).toEqual({ ok: true, value: '/w: 3 lines', logs: [] });
  });

  it('run honours a top-level return', () => {
    expect(mustCompile('if true { return 1; } 2').run()).toEqual({ ok: true, value: 1, logs: [] });
  });

  it('scope variables can be reassigned but functions cannot see them', () => {
    expect(mustCompile('x += 1; x').run({ x: 1 })).toMatchObject({ ok: true, value: 2 });
    const r = mustCompile('fn f() { x } f()').run({ x: 1 });
    expect(r.ok).toBe(false);
  });

  it('call runs only the named function, not the top-level statements', () => {
    const s = mustCompile('print("top level"); fn add(a, b) { a + b }');
    expect(s.call('add', [2, 3])).toEqual({ ok: true, value: 5, logs: [] });
  });

  it('hasFunction checks name and optional arity', () => {
    const s = mustCompile('fn render(ctx) { "" } fn helper() {} fn helper(a, b) {}');
    expect(s.hasFunction('render')).toBe(true);
    expect(s.hasFunction('render', 1)).toBe(true);
    expect(s.hasFunction('render', 2)).toBe(false);
    expect(s.hasFunction('helper', 2)).toBe(true);
    expect(s.hasFunction('on_write')).toBe(false);
  });

  it('call of a missing function is a rhai-runtime error value', () => {
    const s = mustCompile('fn f(a) { a }', 'x.rhai');
    const r = s.call('g', []);
    expect(r).toMatchObject({ ok: false, error: { code: 'rhai-runtime', path: 'x.rhai' } });
    expect(!r.ok && r.error.message).toMatch(/Function not found: g/);
    expect(!r.ok && s.call('f', []).ok).toBe(false);
  });

  it('converts JS values in', () => {
    const s = mustCompile('fn t(v) { type_of(v) }');
    expect(s.call('t', [1]).ok && s.call('t', [1])).toMatchObject({ value: 'i64' });
    expect(s.call('t', [1.5])).toMatchObject({ value: 'f64' });
    expect(s.call('t', [null])).toMatchObject({ value: '()' });
    expect(s.call('t', [undefined])).toMatchObject({ value: '()' });
    expect(s.call('t', [{ a: 1 }])).toMatchObject({ value: 'map' });
    expect(s.call('t', [[1]])).toMatchObject({ value: 'array' });
    expect(s.call('t', ['s'])).toMatchObject({ value: 'string' });
    expect(s.call('t', [true])).toMatchObject({ value: 'bool' });
    const d = mustCompile('fn d(x) { x / 2 }');
    expect(d.call('d', [5])).toMatchObject({ value: 2 });
    expect(d.call('d', [5.5])).toMatchObject({ value: 2.75 });
  });

  it('converts values out', () => {
    const s = mustCompile(`fn out() { #{ i: 1, f: 2.5, c: 'x', u: (), a: [1, #{ b: "s" }], t: true } }`);
    expect(s.call('out', [])).toEqual({
      ok: true,
      value: { i: 1, f: 2.5, c: 'x', u: undefined, a: [1, { b: 's' }], t: true },
      logs: [],
    });
    const u = mustCompile('fn u() { }');
    expect(u.call('u', [])).toEqual({ ok: true, value: undefined, logs: [] });
  });

  it('does not mutate the caller objects', () => {
    const s = mustCompile('fn m(ctx) { ctx.entries.push(1); ctx.x = 2; ctx }');
    const input = { entries: [] as number[] };
    const r = s.call('m', [input]);
    expect(r).toMatchObject({ ok: true, value: { entries: [1], x: 2 } });
    expect(input).toEqual({ entries: [] });
  });

  it('a cyclic input value is an error value, not an exception', () => {
    const cyc: Record<string, unknown> = {};
    cyc.self = cyc;
    const r = mustCompile('fn f(x) { 1 }').call('f', [cyc]);
    expect(r).toMatchObject({ ok: false, error: { code: 'rhai-runtime' } });
  });

  it('print and debug are captured into logs', () => {
    const r = mustCompile('print("hi"); print(1 + 1); debug("quoted"); debug(()); print([1, "a"]); 7').run();
    expect(r).toEqual({ ok: true, value: 7, logs: ['hi', '2', '"quoted"', '()', '[1, "a"]'] });
  });

  it('logs survive an error', () => {
    const r = mustCompile('print("before"); let x = nope;').run();
    expect(r).toMatchObject({ ok: false, logs: ['before'] });
  });

  it('a compiled script is reusable and keeps no state between calls', () => {
    const s = mustCompile('let counter = 0; fn bump(m) { m.n += 1; m.n } counter += 1; counter');
    expect(s.run()).toMatchObject({ value: 1 });
    expect(s.run()).toMatchObject({ value: 1 });
    const m = { n: 1 };
    expect(s.call('bump', [m])).toMatchObject({ value: 2 });
    expect(s.call('bump', [m])).toMatchObject({ value: 2 });
    const logs = mustCompile('fn p() { print("x"); }');
    expect(logs.call('p', []).logs).toEqual(['x']);
    expect(logs.call('p', []).logs).toEqual(['x']);
  });

  it('operation counts do not depend on earlier calls (replay determinism)', () => {
    const s = mustCompile('fn f(t) { let n = 0; for i in 0..20 { n += t.len(); } n }');
    const text = 'x'.repeat(50_000);
    const other = 'y'.repeat(50_000);
    const budget = (warm: boolean) => {
      let lo = 1;
      let hi = 200_000;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        s.call('f', [warm ? text : other]);
        if (s.call('f', [text], { maxOperations: mid }).ok) hi = mid;
        else lo = mid + 1;
      }
      return lo;
    };
    expect(budget(true)).toBe(budget(false));
  });

  it('the operation budget is per call', () => {
    const s = mustCompile('fn work() { let s = 0; for i in 0..1000 { s += i; } s }');
    for (let i = 0; i < 5; i++)
      expect(s.call('work', [], { maxOperations: 5000 })).toMatchObject({ ok: true, value: 499500 });
  });
});

describe('sandbox', () => {
  it('src/rhai imports nothing from Node', () => {
    const dir = join(import.meta.dirname, '../../src/rhai');
    const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(3);
    for (const f of files) {
      const text = readFileSync(join(dir, f), 'utf8');
      expect(text, f).not.toMatch(/from\s+['"]node:/);
      expect(text, f).not.toMatch(/\brequire\s*\(/);
      expect(text, f).not.toMatch(/\bimport\s*\(/);
      // runtime imports only from relative project files, never a package or a built-in
      // (type-only imports are erased when bundled)
      for (const m of text.matchAll(/^\s*(import|export)\s+(type\s+)?[^'"]*?from\s+['"]([^'"]+)['"]/gm)) {
        if (m[2]) continue;
        expect(m[3], f).toMatch(/^\.\.?\//);
      }
      expect(text, f).not.toMatch(/^\s*import\s+['"]/m);
      expect(text, f).not.toMatch(
        /\b(Date\.now|new Date|Math\.random|performance\.now|process\.|globalThis|setTimeout)\b/,
      );
    }
  });

  it('scripts cannot reach host objects', () => {
    for (const src of ['process', 'globalThis', 'require("fs")', 'eval("1")', 'Function("return 1")', 'constructor']) {
      const c = compile(src, 'x.rhai');
      const r = c.ok ? c.script.run() : null;
      expect(r?.ok ?? false, src).toBe(false);
    }
    const p = mustCompile('let m = #{}; m.__proto__ = 1; m["constructor"] = 2; m').run();
    expect(p.ok).toBe(true);
    if (p.ok) {
      expect(Object.getPrototypeOf(p.value)).toBe(Object.prototype);
      expect(Object.keys(p.value as object).sort()).toEqual(['__proto__', 'constructor']);
    }
  });
});

describe('robustness (property)', () => {
  const fragments = [
    'let ',
    'x',
    ' = ',
    '1',
    '2.5',
    '"s"',
    "'c'",
    '`t${x}`',
    '[',
    ']',
    '#{',
    '{',
    '}',
    '(',
    ')',
    ';',
    ',',
    '+',
    '-',
    '*',
    '/',
    '%',
    '**',
    '==',
    '<',
    '&&',
    '||',
    '!',
    '??',
    '?.',
    '.',
    'len()',
    'push(1)',
    'if ',
    'else ',
    'while ',
    'loop ',
    'for ',
    ' in ',
    '0..3',
    'fn f(a) ',
    'f(1)',
    'return ',
    'break',
    'switch ',
    '=>',
    '_',
    '|a| a',
    'this',
    'a',
    ':',
    '\n',
    '/*',
    '*/',
    '//',
  ];

  it('random strings never make compile or run throw', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (src) => {
        const c = compile(src, 'fuzz.rhai');
        if (c.ok) {
          const r = c.script.run({ x: 1 }, { maxOperations: 2000 });
          expect(typeof r.ok).toBe('boolean');
        } else {
          expect(c.error.code).toBe('rhai-syntax');
          expect(c.error.path).toBe('fuzz.rhai');
        }
      }),
      { numRuns: 500 },
    );
  });

  it('random token soups never make compile, run or call throw', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...fragments), { maxLength: 40 }), (parts) => {
        const src = parts.join('');
        const c = compile(src, 'fuzz.rhai');
        if (!c.ok) {
          expect(typeof c.error.message).toBe('string');
          return;
        }
        const r = c.script.run({ x: 1, a: [1, 2] }, { maxOperations: 2000 });
        expect(typeof r.ok).toBe('boolean');
        if (!r.ok) expect(['rhai-runtime', 'rhai-limit']).toContain(r.error.code);
        if (c.script.hasFunction('f', 1))
          expect(typeof c.script.call('f', [1], { maxOperations: 2000 }).ok).toBe('boolean');
      }),
      { numRuns: 1000 },
    );
  });
});
