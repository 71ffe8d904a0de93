/**
 * One line of text per durable event, as `lev events` prints them and
 * `lev attach` shows them (docs/reference/events.md#lev-events): its offset,
 * its kind, and what matters of it, without the event's whole JSON (which
 * `lev events --json` prints). Pure.
 */
import type { RunEvent } from '../shapes/run-events.js';

const quoted = (text: string) => JSON.stringify(text.replace(/\s+/g, ' ').trim());

const entries = (n: number) => `${n} entr${n === 1 ? 'y' : 'ies'}`;

/** What one event says, after its offset and kind. */
function detail(e: RunEvent): string {
  switch (e.kind) {
    case 'stage-entered':
      return `${e.stage} (visit ${e.visit})`;
    case 'stage-left':
      return `${e.stage} (visit ${e.visit}): ${e.end}`;
    case 'turn-started':
      return `${e.stage} turn ${e.turn}`;
    case 'turn-ended': {
      const cache = e.usage.cacheReadTokens > 0 ? `, ${e.usage.cacheReadTokens} cached` : '';
      const cost = e.cost !== undefined ? `, $${e.cost.toFixed(4)}` : '';
      const calls = e.calls > 0 ? `, ${e.calls} call${e.calls === 1 ? '' : 's'}` : '';
      return `${e.stage} turn ${e.turn}: window ${e.window.used}/${e.window.max}, ${e.usage.promptTokens} in, ${e.usage.completionTokens} out${cache}${cost}${calls} ${quoted(e.preview)}`;
    }
    case 'tool-call':
      return `${e.call} ${e.subject}`;
    case 'tool-result':
      return `${e.call} ${e.tool} ${e.ok ? 'ok' : 'failed'}${e.tokens !== undefined ? ` (${e.tokens} tokens)` : ''}${e.blob ? ` blob ${e.blob.slice(0, 12)}` : ''} ${quoted(e.summary)}`;
    case 'region-write':
      return `${e.region}: ${entries(e.entries)}, ${e.tokens} tokens${e.key !== undefined ? ` key ${quoted(e.key)}` : ''} ${quoted(e.preview)}`;
    case 'evicted':
      return `${e.region}: ${entries(e.entries)}, ${e.tokens} tokens (${e.cause})`;
    case 'folded':
      return e.ok
        ? `${e.region}: ${entries(e.entries)}, ${e.tokens} tokens into ${e.summaryTokens ?? 0}`
        : `${e.region}: ${entries(e.entries)} kept, the fold failed${e.error ? `: ${e.error}` : ''}`;
    case 'gate':
      return `${e.stage} ${e.gate}: ${e.passed ? 'passed' : 'blocked'}${e.detail ? ` (${e.detail})` : ''}`;
    case 'wait-started':
      return `${e.wait}${e.detail ? `: ${e.detail}` : ''}`;
    case 'wait-ended':
      return `${e.wait}: ${e.ended}`;
    case 'continued':
      return `the ${e.workflow} went on as new`;
    case 'run-ended':
      return `${e.status}${e.code ? ` [${e.code}]` : ''}`;
  }
}

/** `#<offset> <kind> <detail>`. */
export function eventLine(event: RunEvent): string {
  return `#${event.offset} ${event.kind} ${detail(event)}`;
}
