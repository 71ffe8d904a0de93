/**
 * The project's rules live in its own pages: code, tests and docs cite
 * `docs/reference/<page>.md#<anchor>` (and `docs/architecture.md#<anchor>`,
 * any other `docs/` page, `CONTRIBUTING.md` or `README.md` with an anchor),
 * never documents outside the repository, and every cited anchor must be a
 * heading that exists. Anchors are GitHub's heading slugs, so a renamed
 * heading fails here until its citations follow.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CODES } from '../../src/blueprint/codes.js';

const ROOT = join(dirname(new URL(import.meta.url).pathname), '..', '..');
const SCANNED = ['src', 'workflows', 'activities', 'test', 'bench', 'docs', 'README.md', 'CONTRIBUTING.md'];
const TEXT = new Set(['.ts', '.mts', '.js', '.mjs', '.md', '.toml', '.rhai', '.leviath', '.json']);
const THIS_FILE = 'test/docs/citations.test.ts';

function walk(path: string, out: string[]): string[] {
  const full = join(ROOT, path);
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(full);
  } catch {
    return out;
  }
  if (st.isDirectory()) {
    for (const name of readdirSync(full).sort()) {
      if (name === 'node_modules' || name.startsWith('.')) continue;
      walk(join(path, name), out);
    }
  } else if (TEXT.has(extname(path))) out.push(path.split('\\').join('/'));
  return out;
}

const files = SCANNED.flatMap((p) => walk(p, [])).filter((f) => f !== THIS_FILE);
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** GitHub's heading slug: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function headingSlugs(markdown: string): Set<string> {
  const slugs = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | null = null;
  for (const line of markdown.split('\n')) {
    const f = line.match(/^\s*(```+|~~~+)/);
    if (f?.[1]) {
      if (fence === null) fence = f[1][0] ?? null;
      else if (f[1][0] === fence) fence = null;
      continue;
    }
    if (fence !== null) continue;
    const h = line.match(/^#{1,6}\s+(.*?)\s*#*\s*$/);
    if (!h?.[1]) continue;
    const text = h[1].replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '');
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    slugs.add(n === 0 ? base : `${base}-${n}`);
  }
  return slugs;
}

const slugCache = new Map<string, Set<string> | null>();
function slugsOf(file: string): Set<string> | null {
  if (!slugCache.has(file)) {
    let text: string | null = null;
    try {
      text = read(file);
    } catch {
      text = null;
    }
    slugCache.set(file, text === null ? null : headingSlugs(text));
  }
  return slugCache.get(file) ?? null;
}

/** Problems with one cited `file#anchor`, or null when it resolves. */
function checkTarget(target: string, anchor: string | undefined): string | null {
  const slugs = slugsOf(target);
  if (slugs === null) return `${target} does not exist`;
  if (anchor !== undefined && !slugs.has(anchor)) return `${target} has no heading with the anchor #${anchor}`;
  return null;
}

/**
 * The two documents the project grew from, which live outside it. Spelled with a character class so
 * that this line, like every other, holds neither word whole for a plain-text search.
 */
const OUTSIDE_DOCUMENTS = /\bS[P]EC\b|\bD[E]SIGN\b/;

describe('citations', () => {
  it('cite no document outside the repository', () => {
    const offenders = files.flatMap((file) =>
      read(file)
        .split('\n')
        .flatMap((line, i) => (OUTSIDE_DOCUMENTS.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(offenders).toEqual([]);
  });

  it('resolve every cited reference page, and every cited anchor of docs/, CONTRIBUTING.md and README.md', () => {
    const broken: string[] = [];
    // A reference page is cited with or without an anchor; any other page is a citation only with one
    // (tests name made-up docs/*.md files as data).
    const cited =
      /docs\/(?:reference\/[\w.-]+\.md|architecture\.md)(?:#[\w-]+)?|(?<![\w/.-])(?:docs\/[\w./-]+\.md|CONTRIBUTING\.md|README\.md)#[\w-]+/g;
    for (const file of files) {
      for (const [citation] of read(file).matchAll(cited)) {
        const [page = '', anchor] = citation.split('#');
        const problem = checkTarget(page, anchor);
        if (problem) broken.push(`${file}: ${citation}: ${problem}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('resolve every relative Markdown link and its anchor', () => {
    const broken: string[] = [];
    for (const file of files.filter((f) => f.endsWith('.md'))) {
      for (const m of read(file).matchAll(/\]\(([^)\s]*)\)/g)) {
        const link = m[1] ?? '';
        if (/^[a-z]+:/i.test(link) || link === '') continue;
        const [path = '', anchor] = link.split('#');
        const target =
          path === ''
            ? file
            : normalize(join(dirname(file), path))
                .split('\\')
                .join('/');
        if (!target.endsWith('.md')) {
          if (path !== '' && !statSync(join(ROOT, target), { throwIfNoEntry: false }))
            broken.push(`${file}: ${link}: no such path`);
          continue;
        }
        const problem = checkTarget(relative('.', target), anchor);
        if (problem) broken.push(`${file}: ${link}: ${problem}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('give every reference page a table of contents that links its headings', () => {
    const missing: string[] = [];
    for (const file of files.filter((f) => f.startsWith('docs/reference/') && !f.endsWith('README.md'))) {
      const text = read(file);
      const linked = new Set([...text.matchAll(/\]\(#([\w-]+)\)/g)].map((m) => m[1]));
      for (const slug of headingSlugs(text)) {
        // The page title (level 1) is not listed in its own contents.
        if (text.split('\n')[0]?.startsWith('# ') && headingSlugs(text.split('\n')[0] ?? '').has(slug)) continue;
        if (!linked.has(slug)) missing.push(`${file}#${slug}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('list every validation code on the validation page', () => {
    const page = read('docs/reference/validation.md');
    expect(Object.keys(CODES).filter((code) => !page.includes(`| \`${code}\` |`))).toEqual([]);
  });
});
