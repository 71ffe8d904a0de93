/**
 * The simulator's summariser (docs/reference/simulator.md#deterministic-summariser): a fixed function of the folded
 * entries, so fold outcomes can be asserted exactly without a model.
 */

import type { CountedText, Entry } from '../shapes/content.js';
import { contentText } from './measure.js';

const PREVIEW_CHARS = 24;

/** The first 24 characters of an entry, on one line. */
function piece(entry: Entry): string {
  return contentText(entry.content).slice(0, PREVIEW_CHARS).replace(/\r?\n/g, ' ');
}

/**
 * One summary of `entries` attributed to `region`, charged a tenth of what
 * it replaces (at least 1, at most `limit`). A nested summary is one entry.
 */
export function deterministicSummary(region: string, entries: readonly Entry[], limit: number): CountedText {
  const total = entries.reduce((sum, e) => sum + e.tokens, 0);
  const tokens = Math.min(limit, Math.max(1, Math.ceil(total / 10)));
  const content = `summary of ${entries.length} entries (${total} tokens) from ${region}: ${entries.map(piece).join(' | ')}`;
  return { content, tokens };
}
