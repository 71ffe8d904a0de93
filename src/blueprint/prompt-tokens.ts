/**
 * Exact token counts of stage prompts for `stage-prompt-too-large`.
 * Building an encoder costs most of a second, so a prompt is only
 * tokenized when its UTF-8 size (an upper bound on its token count) could
 * exceed the limit it is compared with.
 */
import type { Encoding } from '../shapes/model-info.js';
import { countTokens } from '../tokens/count.js';

/** The token count of `text` when it is above `limit`, else undefined. */
export function tokensAbove(text: string, limit: number, encoding: Encoding): number | undefined {
  if (Buffer.byteLength(text, 'utf8') <= limit) return undefined;
  const tokens = countTokens(text, encoding);
  return tokens > limit ? tokens : undefined;
}
