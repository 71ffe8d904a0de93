/**
 * Durations as blueprints write them: `"30m"`, `"24h"`, `"90s"`, `"1h30m"`
 * (docs/reference/operators.md#ask_timeout), read and written back.
 * Pure: the workflows read the default.
 */

/** The default of `[run] ask_timeout`: a day. */
export const DEFAULT_ASK_TIMEOUT_SECS = 86_400;

const UNIT_SECS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3_600, d: 86_400 };

/** Seconds of a duration such as `"1h30m"`, or undefined when it is not one (or is zero). */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (!/^(\d+[smhd])+$/.test(trimmed)) return undefined;
  let secs = 0;
  for (const [, n, unit] of trimmed.matchAll(/(\d+)([smhd])/g)) secs += Number(n) * (UNIT_SECS[unit as string] ?? 0);
  return secs > 0 && Number.isSafeInteger(secs) ? secs : undefined;
}

/** A duration in seconds as the blueprint writes it back: `30m`, `24h`, `1h30m`. */
export function formatDuration(secs: number): string {
  const parts: string[] = [];
  let rest = Math.round(secs);
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  return parts.join('') || '0s';
}
