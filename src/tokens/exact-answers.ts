/**
 * Answers the region engine's requests (`src/context/requests.ts`) with
 * exact tiktoken counts, for the simulator, benches and activity code.
 */

import type { BlobRef, Content, Entry } from '../shapes/content.js';
import type { EngineRequest, SummaryAnswer } from '../shapes/engine-requests.js';
import type { Encoding } from '../shapes/model-info.js';
import { countTokens, cutToTokens, DROPPED_PLACEHOLDER } from './count.js';

export type Summariser = (region: string, entries: Entry[], limit: number, prompt?: string) => SummaryAnswer;

export interface HandlerOptions {
  /** Full text of a blob; without it a blob is cut from its preview. */
  resolveBlob?: (ref: BlobRef) => string;
}

/** The marker appended to cut text: what was dropped and why. */
export function cutMarker(reason: string): string {
  const why = reason.trim();
  return `\n[cut: ${DROPPED_PLACEHOLDER} more tokens dropped${why ? `; ${why}` : ''}]`;
}

export function makeSyncHandler(
  encoding: Encoding,
  summarise: Summariser,
  opts: HandlerOptions = {},
): (req: EngineRequest) => unknown {
  const text = (content: Content) =>
    typeof content === 'string' ? content : (opts.resolveBlob?.(content) ?? content.preview);
  return (req) => {
    switch (req.type) {
      case 'count':
        return countTokens(req.text, encoding);
      case 'cut': {
        const cut = cutToTokens(text(req.content), req.target, encoding, cutMarker(req.marker));
        return { content: cut.text, tokens: cut.tokens };
      }
      case 'join':
        return req.parts.map(text).join('');
      case 'summarise': {
        const answer = summarise(req.region, req.entries, req.limit, req.prompt);
        if (!answer.ok || answer.text.tokens <= req.limit) return answer;
        const cut = cutToTokens(
          text(answer.text.content),
          req.limit,
          encoding,
          cutMarker('the summary exceeded its limit'),
        );
        return { ok: true, text: { content: cut.text, tokens: cut.tokens } };
      }
    }
  };
}
