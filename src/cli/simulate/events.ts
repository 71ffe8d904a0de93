/**
 * The events file of `lev context simulate` (docs/reference/simulator.md#events): one JSON object
 * per line. Only the shape is checked here (a parseable object, a known
 * `op`, a valid `tokens`); a bad field inside a known event is an event
 * failure reported in `results`, not an invalid file.
 */
import { CONTEXT_TOOLS } from '../../tools/builtin-names.js';

/** What an event does: the engine's own writes and the context tools, by the tools' names. */
export const EVENT_OPS = [
  'user',
  'assistant',
  'tool_result',
  ...CONTEXT_TOOLS,
  'enter_stage',
  'seed',
  'gate',
  'usage',
] as const;
export type EventOp = (typeof EVENT_OPS)[number];

export interface SimEvent {
  op: EventOp;
  /** 1-based line in the events file. */
  line: number;
  /** Synthetic size (docs/reference/simulator.md#events), when given. */
  tokens?: number;
  fields: Record<string, unknown>;
}

export interface EventsError {
  line: number;
  message: string;
}

export type ParsedEvents = { ok: true; events: SimEvent[] } | { ok: false; error: EventsError };

const OPS = new Set<string>(EVENT_OPS);

export function parseEvents(text: string): ParsedEvents {
  const events: SimEvent[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = i + 1;
    const raw = lines[i]?.trim() ?? '';
    if (raw === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (err) {
      return {
        ok: false,
        error: { line, message: `not valid JSON (${(err as Error).message}); write one JSON object per line` },
      };
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return {
        ok: false,
        error: { line, message: 'each line must be a JSON object such as {"op":"user","content":"hi"}' },
      };
    }
    const fields = value as Record<string, unknown>;
    const op = fields.op;
    if (op === undefined)
      return { ok: false, error: { line, message: `missing "op"; use one of ${EVENT_OPS.join(', ')}` } };
    if (typeof op !== 'string' || !OPS.has(op)) {
      return {
        ok: false,
        error: { line, message: `unknown op ${JSON.stringify(op)}; use one of ${EVENT_OPS.join(', ')}` },
      };
    }
    const event: SimEvent = { op: op as EventOp, line, fields };
    if (fields.tokens !== undefined) {
      const tokens = fields.tokens;
      if (typeof tokens !== 'number' || !Number.isInteger(tokens) || tokens < 0) {
        return {
          ok: false,
          error: { line, message: `"tokens" must be a non-negative integer, got ${JSON.stringify(tokens)}` },
        };
      }
      event.tokens = tokens;
    }
    events.push(event);
  }
  return { ok: true, events };
}
