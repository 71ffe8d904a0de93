import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileGlob, globToRegExp, staticPrefix } from '../../src/tools/glob-pattern.js';

describe('glob patterns', () => {
  it.each([
    ['*.ts', 'a.ts', true],
    ['*.ts', 'dir/a.ts', false],
    ['*.ts', '.hidden.ts', false],
    ['**/*.ts', 'a.ts', true],
    ['**/*.ts', 'x/y/a.ts', true],
    ['**/*.ts', '.git/a.ts', false],
    ['src/**', 'src/a/b', true],
    ['src/*.{ts,js}', 'src/a.js', true],
    ['src/*.{ts,js}', 'src/a.md', false],
    ['file?.txt', 'file1.txt', true],
    ['[ab].txt', 'b.txt', true],
    ['[!ab].txt', 'b.txt', false],
    ['a+b(1).txt', 'a+b(1).txt', true],
  ])('%s matches %s: %s', (pattern, candidate, expected) => {
    expect(globToRegExp(pattern).test(candidate)).toBe(expected);
  });

  it('a wildcard never matches across a separator or a `..` component', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b', '..', '.x'), { minLength: 1, maxLength: 5 }), (parts) => {
        const candidate = parts.join('/');
        if (globToRegExp('*').test(candidate)) return !candidate.includes('/') && !candidate.startsWith('.');
        if (globToRegExp('**').test(candidate)) return !parts.some((p) => p.startsWith('.'));
        return true;
      }),
    );
  });

  it('the static prefix is the directory before the first wildcard', () => {
    expect(staticPrefix('/etc/*')).toBe('/etc');
    expect(staticPrefix('src/**/a.ts')).toBe('src');
    expect(staticPrefix('*.ts')).toBe('.');
    expect(staticPrefix('/*')).toBe('/');
  });
});

describe('the linear-time glob matcher', () => {
  const names = fc.constantFrom('a', 'b', 'ab', '.x', 'a.ts', 'b.js', 'src');
  const components = fc.constantFrom('*', '**', '?', 'a', '*.ts', '.x', '{a,b}', '[ab]', 'src', 'a*');

  it('means what the regular expression means', () => {
    fc.assert(
      fc.property(
        fc.array(components, { minLength: 1, maxLength: 6 }),
        fc.array(names, { minLength: 1, maxLength: 6 }),
        (pattern, path) => {
          const glob = pattern.join('/');
          const candidate = path.join('/');
          expect(compileGlob(glob).test(candidate)).toBe(
            globToRegExp(glob.replace(/(^|\/)\*\*(\/\*\*)+/g, '$1**')).test(candidate),
          );
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('matches a path against many `**` without backtracking', () => {
    const pattern = `${'**/'.repeat(12)}*.nope`;
    const deep = Array.from({ length: 30 }, (_, i) => `d${i}`).join('/');
    // The regular expression takes exponential time here; the matcher answers at once.
    expect(compileGlob(pattern).test(`${deep}/file.txt`)).toBe(false);
    expect(compileGlob(`**/d3/**/d20/**/*.txt`).test(`${deep}/file.txt`)).toBe(true);
  });
});
