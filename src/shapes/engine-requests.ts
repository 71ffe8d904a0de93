/**
 * What the region engine asks of the world and what it gets back
 * (`src/context/requests.ts` yields them; the token handler, the activities
 * and the workflows answer them). Shapes only, so the token counter can
 * answer requests without importing the engine.
 */
import type { Content, CountedText, Entry } from './content.js';

export type SummaryAnswer = { ok: true; text: CountedText } | { ok: false; error: string };

export type EngineRequest =
  /** Count a small text the engine composed. Answer: number of tokens. */
  | { type: 'count'; text: string }
  /**
   * Cut `content` (currently `tokens`) to at most `target` tokens, keeping a
   * prefix plus a marker that says it was cut, how many tokens were dropped
   * and why (`marker`). Answer: CountedText.
   */
  | { type: 'cut'; content: Content; tokens: number; target: number; marker: string }
  /** Summarise `entries` of `region` into at most `limit` tokens. Answer: SummaryAnswer. */
  | { type: 'summarise'; region: string; entries: Entry[]; limit: number; prompt?: string }
  /**
   * Join `parts`, some of them stored text, into one text (a `context_read` of stored entries).
   * Answer: Content, the joined text inline or stored.
   */
  | { type: 'join'; parts: Content[] };
