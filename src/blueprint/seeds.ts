/**
 * Seed forms (docs/reference/seeds.md#forms and docs/reference/seeds.md#refresh). A seed that matches no form is
 * ignored with a warning; two form keys and a bad `refresh` are hard errors.
 */

import type { SeedRefresh, SeedSpec, SeedToolCall } from '../shapes/frozen-blueprint.js';
import { isTable, type Table } from './fields.js';
import { describeValue, didYouMean, type Findings, type KeyPath } from './findings.js';

const FORM_KEYS = ['caller', 'files', 'glob', 'literal', 'rhai', 'command', 'tool', 'tools'] as const;
type FormKey = (typeof FORM_KEYS)[number];
/** Forms whose output can change between stages, so `each_stage` makes sense. */
const REFRESHABLE: readonly FormKey[] = ['files', 'glob', 'rhai', 'command', 'tool', 'tools'];

function notUnderstood(findings: Findings, path: KeyPath, why: string): undefined {
  findings.add(
    'region-seed-not-understood',
    `This seed ${why}, so it is ignored and the region starts empty; write "task_input", "input", or a table with one of ${FORM_KEYS.join(', ')}.`,
    path,
  );
  return undefined;
}

function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

/** Plain JSON copy of tool arguments (TOML dates become ISO strings). */
function plainArgs(value: Table): Record<string, unknown> {
  return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
}

function toolCalls(value: unknown): SeedToolCall[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const calls: SeedToolCall[] = [];
  for (const item of value) {
    if (nonEmptyString(item)) calls.push({ name: item, args: {} });
    else if (
      isTable(item) &&
      nonEmptyString(item.name) &&
      Object.keys(item).every((k) => k === 'name' || k === 'args')
    ) {
      if (item.args !== undefined && !isTable(item.args)) return undefined;
      calls.push({ name: item.name, args: item.args === undefined ? {} : plainArgs(item.args) });
    } else return undefined;
  }
  return calls;
}

/** Edit distance of at most one (insert, delete or substitute a character). */
function oneEditApart(a: string, b: string): boolean {
  if (a === b || Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i += 1;
  const tail = (x: string, skip: number) => x.slice(i + skip);
  if (a.length === b.length) return tail(a, 1) === tail(b, 1);
  return a.length > b.length ? tail(a, 1) === tail(b, 0) : tail(a, 0) === tail(b, 1);
}

/**
 * Any other bare string names a caller input, as in the original Leviath:
 * `seed = "scope"` reads `--input scope=...`, and `seed = "task"` the task.
 */
function callerSeed(key: string, path: KeyPath, findings: Findings): SeedSpec {
  const near = ['task_input', 'input'].find((form) => oneEditApart(key.toLowerCase(), form));
  if (near) {
    findings.add(
      'seed-caller-input-typo',
      `seed = ${describeValue(key)} reads the caller input of that name, but it is one letter from the seed form "${near}"; write seed = "${near}" if that is what you meant.`,
      path,
    );
  } else {
    const how = key === 'task' ? 'the task (--task)' : `the caller input "${key}" (--input ${key}=...)`;
    findings.add('seed-caller-input', `This region is seeded from ${how}.`, path);
  }
  return { form: 'caller', key, refresh: 'once' };
}

export function parseSeed(value: unknown, path: KeyPath, findings: Findings): SeedSpec | undefined {
  if (typeof value === 'string') {
    if (value === 'task_input' || value === 'input') return { form: value, refresh: 'once' };
    if (value.trim() === '') return notUnderstood(findings, path, 'is the empty string');
    return callerSeed(value, path, findings);
  }
  if (!isTable(value)) return notUnderstood(findings, path, `is ${describeValue(value)}`);

  const keys = Object.keys(value);
  const forms = keys.filter((k): k is FormKey => (FORM_KEYS as readonly string[]).includes(k));
  const unknown = keys.filter((k) => k !== 'refresh' && !(FORM_KEYS as readonly string[]).includes(k));
  if (forms.length > 1) {
    findings.add(
      'seed-ambiguous',
      `A seed table takes exactly one form, but this one has ${forms.join(' and ')}; keep one and move the others to their own regions.`,
      path,
    );
    return undefined;
  }
  if (unknown.length > 0) {
    const first = unknown[0] ?? '';
    return notUnderstood(findings, [...path, first], `has the key "${first}"${didYouMean(first, FORM_KEYS)}`);
  }
  const form = forms[0];
  if (form === undefined) return notUnderstood(findings, path, 'has no form key');

  let refresh: SeedRefresh = 'once';
  if (Object.hasOwn(value, 'refresh')) {
    const r = value.refresh;
    if (r !== 'once' && r !== 'each_stage') {
      const hint = typeof r === 'string' ? didYouMean(r, ['once', 'each_stage']) : '';
      findings.add('bad-refresh', `\`refresh\` is ${describeValue(r)}${hint}; write "once" or "each_stage".`, [
        ...path,
        'refresh',
      ]);
      return undefined;
    }
    if (r === 'each_stage' && !REFRESHABLE.includes(form)) {
      findings.add(
        'bad-refresh',
        `refresh = "each_stage" has no effect on a \`${form}\` seed, whose text never changes; remove it or use a files, glob, rhai, command or tool seed.`,
        [...path, 'refresh'],
      );
      return undefined;
    }
    refresh = r;
  }

  const v = value[form];
  const at = [...path, form];
  switch (form) {
    case 'caller':
      return nonEmptyString(v) ? { form, key: v, refresh } : notUnderstood(findings, at, 'names no caller value');
    case 'files':
      return Array.isArray(v) && v.length > 0 && v.every(nonEmptyString)
        ? { form, paths: [...v], refresh }
        : notUnderstood(findings, at, 'needs a non-empty array of paths, such as files = ["README.md"]');
    case 'glob':
      return nonEmptyString(v) ? { form, pattern: v, refresh } : notUnderstood(findings, at, 'needs a pattern string');
    case 'literal':
      return typeof v === 'string' ? { form, text: v, refresh } : notUnderstood(findings, at, 'needs a string');
    case 'rhai':
      return nonEmptyString(v) ? { form, path: v, refresh } : notUnderstood(findings, at, 'needs a script path');
    case 'command':
      return nonEmptyString(v) ? { form, command: v, refresh } : notUnderstood(findings, at, 'needs a command string');
    case 'tool':
      return nonEmptyString(v)
        ? { form: 'tools', calls: [{ name: v, args: {} }], refresh }
        : notUnderstood(findings, at, 'needs a tool name');
    case 'tools': {
      const calls = toolCalls(v);
      return calls
        ? { form, calls, refresh }
        : notUnderstood(findings, at, 'needs a non-empty array of tool names or {name, args} tables');
    }
  }
}

/** True when the seed reads a caller value (such regions are filled by whoever spawns the run). */
export function isCallerSeed(seed: SeedSpec | undefined): boolean {
  return seed?.form === 'task_input' || seed?.form === 'input' || seed?.form === 'caller';
}
