/**
 * `[repetition_detection]`, the original Leviath's loop watch
 * (docs/reference/long-runs.md#repetition-detection): the same tool call
 * back to back `max_repeat_calls` times, or `max_readonly_streak` calls in a
 * row that change nothing, earns the visit a `[System]` note in its
 * conversation saying what it is doing and to try something else. It
 * nudges; the stage goes on (a `stuck` edge is what routes a loop
 * elsewhere). Pure: imported by workflow code.
 */
import type { Blueprint } from '../shapes/frozen-blueprint.js';
import type { RepetitionWatch } from './types.js';

export interface RepetitionConfig {
  enabled: boolean;
  /** The same call (tool and arguments) this many times back to back is a loop. */
  maxRepeatCalls: number;
  /** This many calls in a row that modify nothing is a loop. */
  maxReadonlyStreak: number;
}

/** The original's defaults: on, 3 identical calls, 10 read-only calls. */
export const DEFAULT_REPETITION: RepetitionConfig = { enabled: true, maxRepeatCalls: 3, maxReadonlyStreak: 10 };

/** The blueprint's `[repetition_detection]`, its absent keys at the defaults. */
export function repetitionConfig(bp: Pick<Blueprint, 'repetitionDetection'>): RepetitionConfig {
  return { ...DEFAULT_REPETITION, ...bp.repetitionDetection };
}

/** A call's identity: its tool and its arguments with their keys sorted. */
export function callKey(call: { name: string; arguments: Record<string, unknown> }): string {
  return `${call.name} ${stable(call.arguments)}`;
}

function stable(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stable).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stable((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/**
 * Takes one turn's calls, in order; returns the new watch and the note to
 * write when the turn completed a loop. A nudge starts its count again, so a
 * visit that keeps looping is told again after as many calls more.
 */
export function watchCalls(
  watch: RepetitionWatch | undefined,
  calls: readonly { name: string; arguments: Record<string, unknown> }[],
  modifying: ReadonlySet<string>,
  config: RepetitionConfig,
): { watch: RepetitionWatch; nudge?: string } {
  let { last, repeats, readonly } = watch ?? { repeats: 0, readonly: 0 };
  if (!config.enabled || calls.length === 0) return { watch: { ...(last ? { last } : {}), repeats, readonly } };
  for (const call of calls) {
    const key = callKey(call);
    repeats = key === last ? repeats + 1 : 1;
    last = key;
    readonly = modifying.has(call.name) ? 0 : readonly + 1;
  }
  const notes: string[] = [];
  const name = calls[calls.length - 1]?.name ?? '';
  if (repeats >= config.maxRepeatCalls) {
    notes.push(
      `you have made the same \`${name}\` call with the same arguments ${repeats} times in a row; its result will not change`,
    );
    repeats = 0;
  }
  if (readonly >= config.maxReadonlyStreak) {
    notes.push(`your last ${readonly} tool calls only looked and changed nothing`);
    readonly = 0;
  }
  const next = { ...(last ? { last } : {}), repeats, readonly };
  if (notes.length === 0) return { watch: next };
  return {
    watch: next,
    nudge: `[System] You seem to be going in circles: ${notes.join(', and ')}. Try something else.`,
  };
}
