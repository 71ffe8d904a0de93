/**
 * Exact token counts of stage prompts for `stage-prompt-too-large`.
 * Building an encoder costs most of a second, so a prompt is only
 * tokenized when its UTF-8 size (an upper bound on its token count) could
 * exceed the limit it is compared with.
 */
import { createRequire } from 'node:module';
import { Tiktoken, type TiktokenBPE } from 'js-tiktoken/lite';
import type { Encoding } from '../providers/models.js';

const require = createRequire(import.meta.url);
const encoders = new Map<Encoding, Tiktoken>();

function encoder(encoding: Encoding): Tiktoken {
  let enc = encoders.get(encoding);
  if (!enc) {
    enc = new Tiktoken(require(`js-tiktoken/ranks/${encoding}`) as TiktokenBPE);
    encoders.set(encoding, enc);
  }
  return enc;
}

/** The token count of `text` when it is above `limit`, else undefined. */
export function tokensAbove(text: string, limit: number, encoding: Encoding): number | undefined {
  if (Buffer.byteLength(text, 'utf8') <= limit) return undefined;
  const tokens = encoder(encoding).encode(text).length;
  return tokens > limit ? tokens : undefined;
}
