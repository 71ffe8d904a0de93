// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are Rhai sources, whose back-tick strings use ${}.
/** Variables, blocks, control flow, functions and closures. */
import { describe } from 'vitest';
import { err, table } from './table.js';

describe('variables and blocks', () => {
  table([
    ['let x = 1; x = x + 1; x', 2],
    ['let x; x', undefined],
    ['const K = 5; K * 2', 10],
    ['const K = 5; K = 6;', err('rhai-runtime', /constant K/)],
    ['const M = #{a: 1}; M.a = 2;', err('rhai-runtime', /constant M/)],
    ['let x = 1; { let x = 2; } x', 1],
    ['let x = 1; { x = 2; } x', 2],
    ['let y = { let a = 40; a + 2 }; y', 42],
    ['let y = { 40 + 2; }; y', 42],
    ['let a = 1; let a = "shadow"; a', 'shadow'],
    ['{ let inner = 1; } inner', err('rhai-runtime', /Variable not found: inner/)],
    ['let x = 10; x += 5; x -= 3; x *= 2; x /= 4; x %= 4; x', 2],
    ['let x = 2; x **= 3; x', 8],
    ['let x = 6; x &= 3; x |= 8; x ^= 1; x <<= 1; x >>= 1; x', 11],
    ['let s = "a"; s += "b"; s += 1; s', 'ab1'],
    ['let a = [1]; a += 2; a += [3, 4]; a', [1, 2, 3, 4]],
    ['let m = #{a: 1}; m += #{b: 2}; m', { a: 1, b: 2 }],
    ['let a = [1, 2]; let b = a; b.push(3); [a.len(), b.len()]', [2, 3]],
    ['let m = #{x: [1]}; let n = m; n.x.push(2); m.x.len()', 1],
    ['let a = [[1], [2]]; a[1][0] = 9; a', [[1], [9]]],
    ['let m = #{a: #{b: [#{c: 0}]}}; m.a.b[0].c = 1; m.a.b[0].c', 1],
    ['let m = #{}; m["new key"] = 1; m.other = 2; m', { 'new key': 1, other: 2 }],
    ['let a = [1, 2, 3]; a[-1]', 3],
    ['let a = [1, 2, 3]; a[-1] = 0; a', [1, 2, 0]],
    ['let a = [1]; a[5]', err('rhai-runtime', /out of bounds/)],
    ['let s = "hello"; s[1]', 'e'],
    ["let s = \"hello\"; s[0] = 'j'; s", 'jello'],
    ['let m = #{a: 1}; m.b', undefined],
    ['let m = #{a: 1}; m["b"]', undefined],
    ['let x = 5; x.y = 1;', err('rhai-runtime', /Cannot set property/)],
    ['1 = 2;', err('rhai-syntax', /cannot be assigned/)],
  ]);
});

describe('control flow', () => {
  table([
    ['if true { 1 } else { 2 }', 1],
    ['if false { 1 } else if true { 2 } else { 3 }', 2],
    ['if false { 1 }', undefined],
    ['let v = if 3 > 2 { "big" } else { "small" }; v', 'big'],
    ['if 1 { 2 }', err('rhai-runtime', /boolean/)],
    ['let i = 0; while i < 5 { i += 1; } i', 5],
    ['let i = 0; loop { i += 1; if i == 7 { break; } } i', 7],
    ['let x = loop { break 42; }; x', 42],
    ['let i = 0; do { i += 1; } while i < 3; i', 3],
    ['let i = 0; do { i += 1; } until i >= 4; i', 4],
    ['let n = 0; for x in [1, 2, 3] { n += x } n', 6],
    ['let out = []; for (x, i) in ["a", "b"] { out.push(`${i}:${x}`) } out', ['0:a', '1:b']],
    ['let out = ""; for c in "héllo" { out = c + out } out', 'olléh'],
    ['let s = 0; for i in 0..10 { if i % 2 == 1 { continue; } if i > 6 { break; } s += i; } s', 12],
    ['let a = [1, 2]; for x in a { a.push(x); } a', [1, 2, 1, 2]],
    ['for x in 5 {}', err('rhai-runtime', /for loop needs/)],
    ['break;', err('rhai-syntax', /inside a loop/)],
    ['switch 2 { 1 => "one", 2 => "two", _ => "many" }', 'two'],
    ['switch 9 { 1 => "one", 2 => "two", _ => "many" }', 'many'],
    ['switch 9 { 1 => "one" }', undefined],
    ['switch 3 { 1 | 2 => "low", 3 | 4 => "mid", _ => "high" }', 'mid'],
    ['switch "b" { "a" => 1, "b" => { let x = 2; x * 10 } _ => 0 }', 20],
    ['let n = 5; switch n { x if n > 3 => "gt3", _ => "le3" }', err('rhai-runtime', /Variable not found: x/)],
    ['let n = 5; switch n { 5 if n > 9 => "big five", 5 => "five", _ => "other" }', 'five'],
    ['switch 15 { 0..10 => "small", 10..=20 => "medium", _ => "large" }', 'medium'],
    ['let r = switch 1 { 1 => 10, _ => 0 } + 1; r', 11],
    ['try { throw "boom"; } catch (e) { `caught ${e}` }', 'caught boom'],
    ['try { let x = 1 / 0; 0 } catch (e) { e }', 'Division by zero: 1 / 0'],
    ['throw "stop";', err('rhai-runtime', /stop/)],
  ]);
});

describe('functions', () => {
  table([
    ['fn add(a, b) { a + b } add(2, 3)', 5],
    ['add(2, 3); fn add(a, b) { a + b }', 5],
    ['fn f() { return 7; 8 } f()', 7],
    ['fn f() { } f()', undefined],
    ['fn fact(n) { if n <= 1 { 1 } else { n * fact(n - 1) } } fact(20)', err('rhai-runtime', /overflow/)], // 20! > 2^53-1: see docs/rhai.md
    ['fn fact(n) { if n <= 1 { 1 } else { n * fact(n - 1) } } fact(15)', 1307674368000],
    ['fn fib(n) { if n < 2 { n } else { fib(n - 1) + fib(n - 2) } } fib(15)', 610],
    ['let x = 1; fn f() { x } f()', err('rhai-runtime', /Variable not found: x/)],
    ['fn f(a) { a.push(9); a.len() } let v = [1]; [f(v), v.len()]', [2, 1]],
    ['fn f(a) { a } fn f(a, b) { a + b } [f(1), f(1, 2)]', [1, 3]],
    ['fn f(a) { a } f(1, 2)', err('rhai-runtime', /Function not found: f \(i64, i64\)/)],
    ['fn f(a) { a } fn f(b) { b }', err('rhai-syntax', /more than once/)],
    ['fn double() { this * 2 } 21.double()', 42],
    ['fn inc() { this += 1; } let n = 1; n.inc(); n.inc(); n', 3],
    ['fn add_item(x) { this.items.push(x); } let m = #{items: []}; m.add_item(1); m.items', [1]],
    ['fn plus(a, b) { a + b } 1.plus(2)', 3],
    ['{ fn inner() {} }', err('rhai-syntax', /global level/)],
    ['nope(1)', err('rhai-runtime', /Function not found: nope \(i64\)/)],
    ['fn first(a) { a[0] } first(["x", "y"])', 'x'],
  ]);
});

describe('closures and function pointers', () => {
  table([
    ['let f = |x| x + 1; f.call(1)', 2],
    ['let f = |x| x + 1; f(41)', 42],
    ['let f = |a, b| { let s = a + b; s * 2 }; f.call(1, 2)', 6],
    ['let f = || 5; f.call()', 5],
    ['let k = 10; let f = |x| x + k; f.call(1)', 11],
    ['let k = 10; let f = |x| x + k; k = 20; f.call(1)', 21],
    ['let total = 0; [1, 2, 3].map(|x| { total += x; x }); total', 6],
    ['let log = []; let f = |x| log.push(x); f.call(1); f.call(2); log', [1, 2]],
    ['fn counter() { let n = 0; || { n += 1; n } } let c = counter(); c.call(); c.call(); c.call()', 3],
    ['const K = 1; let f = || { K = 2; }; f.call();', err('rhai-runtime', /constant K/)],
    ['fn sq(x) { x * x } let f = Fn("sq"); f.call(7)', 49],
    ['fn sq(x) { x * x } [1, 2, 3].map(Fn("sq"))', [1, 4, 9]],
    ['let f = |x| x * 2; call(f, 4)', 8],
    ['let f = |x| x; f.call(1, 2)', err('rhai-runtime', /closure expects 1/)],
    ['fn apply(f, x) { f.call(x) } apply(|v| v * 3, 5)', 15],
    ['let make = |n| |x| x + n; let add5 = make.call(5); add5.call(1)', 6],
    ['let obj = #{n: 2, times: |x| x * this.n}; obj.times(5)', 10],
    ['fn helper(x) { x + 100 } let f = |x| helper(x); f.call(1)', 101],
    ['let f = |x| { if x > 0 { return "pos"; } "non-pos" }; [f.call(1), f.call(-1)]', ['pos', 'non-pos']],
  ]);
});
