/**
 * Glob patterns as anchored regular expressions over `/`-separated paths.
 * `*` and `?` stay within one component, `**` as a whole component spans
 * any number of them, `[..]` and `{a,b}` work as in a shell. Wildcards do
 * not match a leading dot, so hidden files and `.git` only match when the
 * pattern names the dot itself.
 */

import { RE2JS } from 're2js';

const REGEX_META = /[.+^$()|\\]/;

/**
 * One component as a regular expression. With `leadingDot`, a wildcard at
 * the start refuses a leading `.` by lookahead; the linear-time matcher
 * checks that rule itself and passes false, since RE2 has no lookahead.
 */
function translateComponent(component: string, leadingDot = true): string {
  let out = '';
  let braceDepth = 0;
  for (let i = 0; i < component.length; i++) {
    const ch = component[i] as string;
    const atStart = leadingDot && i === 0;
    if (ch === '*') {
      while (component[i + 1] === '*') i++;
      out += atStart ? '(?!\\.)[^/]*' : '[^/]*';
    } else if (ch === '?') {
      out += atStart ? '(?!\\.)[^/]' : '[^/]';
    } else if (ch === '[') {
      const close = component.indexOf(']', i + 2);
      if (close === -1) {
        out += '\\[';
        continue;
      }
      let body = component.slice(i + 1, close);
      if (body.startsWith('!')) body = `^${body.slice(1)}`;
      out += `[${body.replace(/\\/g, '\\\\')}]`;
      i = close;
    } else if (ch === '{') {
      braceDepth++;
      out += '(?:';
    } else if (ch === '}' && braceDepth > 0) {
      braceDepth--;
      out += ')';
    } else if (ch === ',' && braceDepth > 0) {
      out += '|';
    } else if (REGEX_META.test(ch) || ch === '{' || ch === '}' || ch === ']') {
      out += `\\${ch}`;
    } else {
      out += ch;
    }
  }
  while (braceDepth-- > 0) out += ')';
  return out;
}

/** The regular expression source for a whole pattern, without anchors. */
export function globSource(pattern: string): string {
  const absolute = pattern.startsWith('/');
  const components = pattern.split('/').filter((c, i) => c !== '' || i === 0);
  if (absolute) components.shift();
  let out = absolute ? '/' : '';
  components.forEach((component, index) => {
    const last = index === components.length - 1;
    if (component === '**') {
      out += last ? '(?:(?!\\.)[^/]*(?:/(?!\\.)[^/]*)*)?' : '(?:(?!\\.)[^/]*/)*';
    } else {
      out += translateComponent(component) + (last ? '' : '/');
    }
  });
  return out;
}

export function globToRegExp(pattern: string): RegExp {
  return new RegExp(`^${globSource(pattern)}$`);
}

export function hasGlobMagic(text: string): boolean {
  return /[*?[{]/.test(text);
}

/** The leading components without wildcards: the directory a walk starts from. */
export function staticPrefix(pattern: string): string {
  const parts = pattern.split('/');
  const fixed: string[] = [];
  for (const part of parts.slice(0, -1)) {
    if (hasGlobMagic(part)) break;
    fixed.push(part);
  }
  const prefix = fixed.join('/');
  if (prefix === '' && pattern.startsWith('/')) return '/';
  return prefix === '' ? '.' : prefix;
}

export interface GlobMatcher {
  test(candidate: string): boolean;
}

type Part = { any: true } | { any: false; re: RE2JS; dotOk: boolean };

/**
 * A matcher for relative, `/`-separated paths that runs in time linear in
 * the path for any pattern: each component is an RE2 expression (no
 * backtracking), and `**` is matched by a table over (pattern component,
 * path component) instead of a regular expression, so a pattern of many
 * `**` cannot blow up. Same meaning as {@link globToRegExp}.
 */
export function compileGlob(pattern: string): GlobMatcher {
  const parts: Part[] = [];
  for (const component of pattern.split('/').filter((c) => c !== '')) {
    if (component === '**') {
      // `**/**` means what `**` means.
      const last = parts.at(-1);
      if (!last?.any) parts.push({ any: true });
      continue;
    }
    const dotOk = component.startsWith('.') || !/^[*?[]/.test(component);
    parts.push({ any: false, re: RE2JS.compile(`^(?:${translateComponent(component, false)})$`), dotOk });
  }
  return {
    test(candidate: string): boolean {
      const names = candidate.split('/');
      const n = names.length;
      const p = parts.length;
      // after[j]: names j.. hold no hidden name, so a trailing `**` may take them all.
      const visibleFrom: boolean[] = new Array(n + 1).fill(true);
      for (let j = n - 1; j >= 0; j--) visibleFrom[j] = visibleFrom[j + 1] === true && !names[j]?.startsWith('.');
      let next: boolean[] = names.map(() => false).concat([true]);
      for (let i = p - 1; i >= 0; i--) {
        const part = parts[i] as Part;
        const row: boolean[] = new Array(n + 1).fill(false);
        for (let j = n; j >= 0; j--) {
          const name = names[j];
          if (part.any) {
            // A trailing `**` takes one or more names; elsewhere zero or more.
            row[j] =
              i === p - 1
                ? j < n && visibleFrom[j] === true
                : next[j] === true || (name !== undefined && !name.startsWith('.') && row[j + 1] === true);
          } else {
            row[j] =
              name !== undefined &&
              next[j + 1] === true &&
              (part.dotOk || !name.startsWith('.')) &&
              part.re.matches(name);
          }
        }
        next = row;
      }
      return next[0] === true;
    },
  };
}
