/**
 * Models sometimes emit tool arguments that are not valid JSON, or JSON that
 * is not an object. Such a call is kept as an InvalidToolCall instead of
 * failing the inference: the runtime answers it with an error result, and the
 * model gets to try again on its next turn.
 */

import type { ToolCall } from '../shapes/content.js';
import { clipUnits } from '../truncate.js';
import type { InvalidToolCall } from './provider.js';

export type ParsedToolCall = { ok: true; call: ToolCall } | { ok: false; invalid: InvalidToolCall };

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Parses arguments sent as a JSON string (OpenAI-compatible wire format). */
export function parseToolArguments(id: string, name: string, raw: string): ParsedToolCall {
  // Several local servers send "" for a tool without parameters.
  if (raw.trim() === '') return { ok: true, call: { id, name, arguments: {} } };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return {
      ok: false,
      invalid: { id, name, raw, error: `The arguments of ${name} are not valid JSON (${why}); send one JSON object.` },
    };
  }
  return checkToolInput(id, name, value, raw);
}

/** Checks arguments that arrived already decoded (Anthropic's `input`). */
export function checkToolInput(id: string, name: string, value: unknown, raw?: string): ParsedToolCall {
  if (isPlainObject(value)) return { ok: true, call: { id, name, arguments: value } };
  const kind = Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`;
  return {
    ok: false,
    invalid: {
      id,
      name,
      raw: raw ?? JSON.stringify(value) ?? String(value),
      error: `The arguments of ${name} are ${kind}, not a JSON object; send one JSON object.`,
    },
  };
}

/**
 * Arguments of all tool calls in one answer, in UTF-8 bytes. Calls travel
 * through workflow history, whose payloads are limited to a few megabytes,
 * so a larger call is refused and the model is told to split its work.
 */
export const MAX_TOOL_ARGUMENT_BYTES = 1024 * 1024;

/** Raw text of a refused call kept for the model to see; the rest is dropped. */
const RAW_KEPT_CHARS = 2000;

function tooLarge(call: ToolCall, bytes: number): InvalidToolCall {
  return {
    id: call.id,
    name: call.name,
    raw: '',
    error: `[tool-arguments-too-large] The arguments of ${call.name} are ${bytes} bytes, more than the ${MAX_TOOL_ARGUMENT_BYTES} bytes one answer may carry; split the work into smaller calls.`,
  };
}

export function splitToolCalls(parsed: ParsedToolCall[]): {
  toolCalls: ToolCall[];
  invalidToolCalls: InvalidToolCall[];
} {
  const toolCalls: ToolCall[] = [];
  const invalidToolCalls: InvalidToolCall[] = [];
  let total = 0;
  for (const p of parsed) {
    if (!p.ok) {
      invalidToolCalls.push({ ...p.invalid, raw: clipUnits(p.invalid.raw, RAW_KEPT_CHARS) });
      continue;
    }
    const bytes = Buffer.byteLength(JSON.stringify(p.call.arguments), 'utf8');
    if (total + bytes > MAX_TOOL_ARGUMENT_BYTES) {
      invalidToolCalls.push(tooLarge(p.call, bytes));
      continue;
    }
    total += bytes;
    toolCalls.push(p.call);
  }
  return { toolCalls, invalidToolCalls };
}
