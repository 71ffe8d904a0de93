/**
 * Collects diagnostics while a blueprint is checked. A finding names its
 * key path as segments; the collector renders the dotted path users read
 * (`context.regions.codebase.budget`) and attaches the line and column of
 * the nearest key that was actually written.
 */
import type { Diagnostic } from '../errors.js';
import { type Code, severityOf } from './codes.js';
import { PositionIndex } from './positions.js';

export type KeyPath = readonly (string | number)[];

const BARE = /^[A-Za-z0-9_-]+$/;

/** `["stages", "a b", "model"]` -> `stages."a b".model`, the way TOML spells it. */
export function formatKeyPath(segments: KeyPath): string {
  return segments
    .map((s) => (typeof s === 'number' ? `[${s}]` : BARE.test(s) ? s : JSON.stringify(s)))
    .join('.')
    .replace(/\.\[/g, '[');
}

export class Findings {
  readonly list: Diagnostic[] = [];

  constructor(
    private readonly file: string,
    private readonly positions: PositionIndex = new PositionIndex(),
  ) {}

  add(code: Code, message: string, path: KeyPath = []): void {
    const diagnostic: Diagnostic = {
      code,
      severity: severityOf(code),
      message,
      path: formatKeyPath(path),
      file: this.file,
    };
    const pos = this.locate(path);
    if (pos) {
      diagnostic.line = pos.line;
      diagnostic.column = pos.column;
    }
    this.list.push(diagnostic);
  }

  /** Appends diagnostics produced elsewhere (read paths), keeping their own fields. */
  addAll(diagnostics: readonly Diagnostic[]): void {
    for (const d of diagnostics) {
      const located: Diagnostic = { ...d, file: d.file ?? this.file };
      // Findings about the blueprint's own [read_paths] point into this file; grants live in the user's config.
      if (d.line === undefined && d.path?.startsWith('read_paths')) {
        const pos = this.locate(d.path.replace(/\[(\d+)\]/g, '.$1').split('.'));
        if (pos) {
          located.line = pos.line;
          located.column = pos.column;
        }
      }
      this.list.push(located);
    }
  }

  hasErrors(): boolean {
    return this.list.some((d) => d.severity === 'error');
  }

  private locate(path: KeyPath): { line: number; column: number } | undefined {
    return this.positions.nearest(path);
  }
}

/** Findings by line, those without a position last; the sort is stable. */
export function inFileOrder(list: readonly Diagnostic[]): Diagnostic[] {
  return [...list].sort(
    (a, b) =>
      (a.line ?? Number.MAX_SAFE_INTEGER) - (b.line ?? Number.MAX_SAFE_INTEGER) || (a.column ?? 0) - (b.column ?? 0),
  );
}

/** Levenshtein distance, for "did you mean" hints on enum typos. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    let prev = row[0] ?? 0;
    row[0] = i;
    for (let j = 1; j <= b.length; j += 1) {
      const tmp = row[j] ?? 0;
      row[j] = Math.min((row[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length] ?? 0;
}

/** ` (did you mean "pinned"?)` when one choice is close, else the empty string. */
export function didYouMean(written: string, choices: readonly string[]): string {
  if (written.length > 64) return '';
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const choice of choices) {
    const d = distance(written.toLowerCase(), choice.toLowerCase());
    if (d < bestDistance) {
      best = choice;
      bestDistance = d;
    }
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(best.length / 3))
    ? ` (did you mean "${best}"?)`
    : '';
}

/** `"a", "b" or "c"` for messages. */
export function listChoices(choices: readonly string[]): string {
  const quoted = choices.map((c) => `"${c}"`);
  if (quoted.length <= 1) return quoted.join('');
  return `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
}

/** How a TOML value reads in a message. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Date) return 'a date';
  if (value !== null && typeof value === 'object') return 'a table';
  return String(value);
}
