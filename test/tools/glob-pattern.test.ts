import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { globToRegExp, staticPrefix } from '../../src/tools/glob-pattern.js';

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
