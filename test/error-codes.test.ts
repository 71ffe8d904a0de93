/**
 * The runtime codes are a contract: the table "Every runtime code" in
 * docs/reference/errors.md lists exactly the registry, the page's sections by
 * surface name every code, every code is produced by the source and triggered
 * by some test, and every `[code]` text a module writes names a registered code.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RUNTIME_CODES } from '../src/error-codes.js';
import { formatCoded } from '../src/errors.js';

const ROOT = resolve(import.meta.dirname, '..');
const CODES = Object.keys(RUNTIME_CODES);

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'fixtures' || name === 'node_modules' ? [] : files(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

// bin/lev.mjs speaks before anything compiled loads (an installed package without its build).
const sources = [
  ...files(join(ROOT, 'src')),
  ...files(join(ROOT, 'workflows')),
  ...files(join(ROOT, 'activities')),
  join(ROOT, 'bin', 'lev.mjs'),
]
  .filter((f) => !f.endsWith('error-codes.ts') && !f.includes('/blueprint/'))
  .map((f) => readFileSync(f, 'utf8'))
  .join('\n');
const tests = files(join(ROOT, 'test'))
  .filter((f) => !f.endsWith('error-codes.test.ts'))
  .map((f) => readFileSync(f, 'utf8'))
  .join('\n');

/** A code as source or tests write it: quoted, or in `[code]` text. */
function mentions(text: string, code: string): boolean {
  return ["'", '"', '`', '[', '\\['].some((open) =>
    text.includes(`${open}${code}${open === '[' ? ']' : open === '\\[' ? '\\]' : open}`),
  );
}

const ERRORS_PAGE = readFileSync(join(ROOT, 'docs/reference/errors.md'), 'utf8');
const TABLE_START = ERRORS_PAGE.indexOf('\n## Every runtime code\n');
const TABLE_END = ERRORS_PAGE.indexOf('\n## ', TABLE_START + 1);

describe('the runtime error-code registry', () => {
  it('is the table the errors page shows, row for row', () => {
    expect(TABLE_START).toBeGreaterThan(-1);
    const section = ERRORS_PAGE.slice(TABLE_START, TABLE_END === -1 ? undefined : TABLE_END);
    const rows = [...section.matchAll(/^\| `([a-z0-9-]+)` \| ([a-z]+) \| (.+) \|$/gm)].map((m) => [m[1], m[2], m[3]]);
    expect(rows).toEqual(Object.entries(RUNTIME_CODES).map(([code, info]) => [code, info.surface, info.meaning]));
  });

  it('is explained code by code in the sections by surface that follow the table', () => {
    const sections = TABLE_END === -1 ? '' : ERRORS_PAGE.slice(TABLE_END);
    expect(CODES.filter((c) => !sections.includes(`\`${c}\``))).toEqual([]);
  });

  it('names kebab-case codes, each with a one-sentence meaning', () => {
    for (const [code, info] of Object.entries(RUNTIME_CODES)) {
      expect(code).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(info.meaning).toMatch(/^[A-Z`'].*\.$/);
    }
  });

  it('holds only codes the runtime produces (provider codes are built from the error kind)', () => {
    const unused = CODES.filter((c) => !mentions(sources, c) && !c.startsWith('provider-'));
    expect(unused).toEqual([]);
  });

  it('has a test that triggers each code', () => {
    const untested = CODES.filter((c) => !mentions(tests, c));
    expect(untested).toEqual([]);
  });

  it('formats every coded text one way', () => {
    expect(formatCoded('tool-failed', 'grep failed: boom')).toBe('[tool-failed] grep failed: boom');
  });
});
