/**
 * Glob patterns as anchored regular expressions over `/`-separated paths.
 * `*` and `?` stay within one component, `**` as a whole component spans
 * any number of them, `[..]` and `{a,b}` work as in a shell. Wildcards do
 * not match a leading dot, so hidden files and `.git` only match when the
 * pattern names the dot itself.
 */

const SPECIAL = /[.+^$()|\\]/;

function translateComponent(component: string): string {
  let out = '';
  let braceDepth = 0;
  for (let i = 0; i < component.length; i++) {
    const ch = component[i] as string;
    const atStart = i === 0;
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
    } else if (SPECIAL.test(ch) || ch === '{' || ch === '}' || ch === ']') {
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
