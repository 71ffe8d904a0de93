/**
 * Server-Sent Events as `lev serve` writes them (docs/reference/http-api.md#events):
 * a durable event as `event: event` with its offset as the id, a text delta
 * as `event: text` without one (not resumable), and where a reconnecting
 * client resumes from.
 */
import { LevError } from '../../errors.js';
import type { StreamItem } from '../../shapes/run-events.js';

/** One SSE frame; `data` is one line of JSON, so it needs no splitting. */
export function sseFrame(event: string, data: unknown, id?: number): string {
  return `${id !== undefined ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** A stream item as its frame: durable events resume by their offset, text deltas do not. */
export function itemFrame(item: StreamItem): string {
  return item.kind === 'text' ? sseFrame('text', item) : sseFrame('event', item, item.offset);
}

function offset(value: string, what: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < 0)
    throw new LevError(
      'serve-bad-request',
      `${what} "${value}" is not an event offset; give a whole number of at least 0.`,
    );
  return n;
}

/**
 * The first offset to send: after the `Last-Event-ID` a reconnecting browser
 * sends, else `?from=`, else from the oldest the run keeps (undefined).
 */
export function resumeFrom(lastEventId: string | undefined, from: string | undefined): number | undefined {
  if (lastEventId !== undefined && lastEventId !== '') return offset(lastEventId, 'Last-Event-ID') + 1;
  if (from !== undefined) return offset(from, '?from=');
  return undefined;
}
