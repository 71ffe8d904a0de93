/**
 * Turn groups (docs/reference/regions.md#turn-groups): an assistant entry plus the tool results for its
 * calls that immediately follow it. Every removal by age takes whole groups,
 * so a tool call never outlives its result or the other way round.
 */
import type { Entry } from '../shapes/content.js';

/** Half-open index ranges `[start, end)` of the groups in `entries`, oldest first. */
export function groupRanges(entries: readonly Entry[]): [number, number][] {
  const ranges: [number, number][] = [];
  let i = 0;
  while (i < entries.length) {
    const head = entries[i]!;
    let j = i + 1;
    if (head.kind === 'assistant') {
      const ids = new Set((head.toolCalls ?? []).map((c) => c.id));
      while (j < entries.length && entries[j]!.kind === 'tool_result' && ids.has(entries[j]!.toolCallId ?? '')) j++;
    }
    ranges.push([i, j]);
    i = j;
  }
  return ranges;
}

export function groupCount(entries: readonly Entry[]): number {
  return groupRanges(entries).length;
}

/** The group holding `index`. */
export function groupAt(entries: readonly Entry[], index: number): [number, number] {
  for (const range of groupRanges(entries)) if (index >= range[0] && index < range[1]) return range;
  return [index, index + 1];
}

/**
 * Start index of the group a new entry would join when appended: the last
 * group, when it is an assistant turn and the entry is a result for one of
 * its calls. Null when the entry starts a group of its own.
 */
export function joinedGroupStart(entries: readonly Entry[], entry: Pick<Entry, 'kind' | 'toolCallId'>): number | null {
  if (entry.kind !== 'tool_result' || entries.length === 0) return null;
  const last = groupRanges(entries).at(-1)!;
  const head = entries[last[0]]!;
  if (head.kind !== 'assistant') return null;
  const ids = (head.toolCalls ?? []).map((c) => c.id);
  return ids.includes(entry.toolCallId ?? '') ? last[0] : null;
}

/** Tokens of the group a new entry joins (0 when it starts its own); docs/reference/routing.md#ladder room. */
export function joinedGroupTokens(entries: readonly Entry[], entry: Pick<Entry, 'kind' | 'toolCallId'>): number {
  const start = joinedGroupStart(entries, entry);
  if (start === null) return 0;
  let sum = 0;
  for (let i = start; i < entries.length; i++) sum += entries[i]!.tokens;
  return sum;
}

/** Removes the oldest group from `entries` in place and returns it. */
export function shiftGroup(entries: Entry[]): Entry[] {
  const first = groupRanges(entries)[0];
  if (!first) return [];
  return entries.splice(0, first[1]);
}

/** Removes the newest group from `entries` in place and returns it. */
export function popGroup(entries: Entry[]): Entry[] {
  const last = groupRanges(entries).at(-1);
  if (!last) return [];
  return entries.splice(last[0]);
}
