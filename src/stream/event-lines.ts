/**
 * One line of text per durable event, as `lev events` prints them and
 * `lev attach` shows them (docs/reference/events.md#lev-events): its offset,
 * its kind, and what matters of it, without the event's whole JSON (which
 * `lev events --json` prints). Pure.
 */
import type { RunEvent } from '../shapes/run-events.js';

const quoted = (text: string) => JSON.stringify(text.replace(/\s+/g, ' ').trim());

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
      return `${e.region}: ${e.entries} entr${e.entries === 1 ? 'y' : 'ies'}, ${e.tokens} tokens`;
    case 'evicted':
    case 'folded':
      return `${e.region}: ${e.entries} entr${e.entries === 1 ? 'y' : 'ies'}, ${e.tokens} tokens`;
    case 'gate':
      return `${e.stage} ${e.gate}: ${e.passed ? 'passed' : 'blocked'}${e.detail ? ` (${e.detail})` : ''}`;
    case 'wait-started':
      return `${e.wait}${e.detail ? `: ${e.detail}` : ''}`;
    case 'wait-ended':
      return e.wait;
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
