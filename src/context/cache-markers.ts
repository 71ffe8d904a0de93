/**
 * Anthropic prompt-cache breakpoints. The engine only marks where a
 * breakpoint belongs; the Anthropic adapter turns the marks into
 * `cache_control` and other adapters ignore them.
 */
import type { PromptMessage, PromptSystemBlock } from '../shapes/content.js';

/** Sort keys of each system block, as computed by the renderer. */
export interface MarkedBlock {
  block: PromptSystemBlock;
  /** Volatility rank: 0 stable, 1 grows, 2 rewritten. */
  rank: number;
}

/**
 * Marks the last system block of each volatility class and the last
 * message of the conversation (the tail, added after, is never marked: it
 * is rebuilt every request): at most four breakpoints. A change to a
 * rewritten block then still reads the stable and growing classes from the
 * cache, an append to a growing region reads everything up to its previous
 * end (the previous request's class breakpoint falls on a block boundary of
 * this one), and a turn that only appends messages reads the whole previous
 * request up to its tail.
 */
export function placeCacheMarkers(blocks: readonly MarkedBlock[], messages: readonly PromptMessage[]): void {
  blocks.forEach((b, i) => {
    if (blocks[i + 1]?.rank !== b.rank) b.block.cache = true;
  });
  const last = messages[messages.length - 1];
  if (last) last.cache = true;
}
