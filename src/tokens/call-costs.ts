/**
 * What an assistant turn's tool calls cost (docs/reference/regions.md#token-counting): each
 * call's name and arguments as JSON, except that every text argument the engine stores
 * (`content`, `item`, `note`) and every long one is counted once on its own, so the same text
 * is never tokenized twice (once bare, once inside the JSON).
 */
import type { ToolCall } from '../shapes/content.js';

/** The text arguments the engine stores; the inference activity hands their counts to it. */
export const COUNTED_ARGUMENTS = ['content', 'item', 'note'] as const;

/** A string argument longer than this (UTF-8 bytes) is counted on its own, and stored as a blob when it can be. */
export const LONG_ARGUMENT_BYTES = 2048;

export function isLongText(value: unknown): value is string {
  return typeof value === 'string' && Buffer.byteLength(value, 'utf8') > LONG_ARGUMENT_BYTES;
}

export interface CallCount {
  /** The call's share of the assistant entry's tokens. */
  tokens: number;
  /** Counts of `content`, `item` and `note` when they are strings. */
  argTokens: Record<string, number>;
}

export function countToolCall(call: Pick<ToolCall, 'name' | 'arguments'>, count: (text: string) => number): CallCount {
  const argTokens: Record<string, number> = {};
  const rest: Record<string, unknown> = { ...call.arguments };
  let own = 0;
  for (const [name, value] of Object.entries(call.arguments)) {
    const counted = (COUNTED_ARGUMENTS as readonly string[]).includes(name);
    if (typeof value !== 'string' || !(counted || isLongText(value))) continue;
    const n = count(value);
    if (counted) argTokens[name] = n;
    own += n;
    rest[name] = '';
  }
  return { tokens: count(`${call.name}${JSON.stringify(rest)}`) + own, argTokens };
}
