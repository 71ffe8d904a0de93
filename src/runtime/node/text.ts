/**
 * Counting and cutting text for the workflow, which may not load the
 * tokenizer itself (docs/reference/regions.md#token-counting and docs/reference/regions.md#cutting-text).
 */
import { type BlobStore, fullText, toContent } from '../../blobs/index.js';
import type { Content, CountedText } from '../../context/index.js';
import type { Encoding } from '../../shapes/model-info.js';
import { countTokens, cutMarker, cutToTokens } from '../../tokens/index.js';
import { type HandoffText, handoffText } from '../agents/handoff.js';
import type { HandoffPart } from '../types.js';

export function countText(text: string, encoding: Encoding): number {
  return countTokens(text, encoding);
}

export async function cutText(
  store: BlobStore,
  req: { content: Content; target: number; marker: string; encoding: Encoding },
): Promise<CountedText> {
  const cut = cutToTokens(await fullText(store, req.content), req.target, req.encoding, cutMarker(req.marker));
  return { content: await toContent(store, cut.text), tokens: cut.tokens };
}

/** Joins parts, stored ones read from the store; the result is stored again when it is large. */
export async function joinText(store: BlobStore, parts: Content[]): Promise<Content> {
  const texts = await Promise.all(parts.map((p) => fullText(store, p)));
  return toContent(store, texts.join(''));
}

/**
 * The texts a child writes of what its parent handed it
 * (docs/reference/sub-agents.md#context-transforms): each part's entries read,
 * joined and transformed, counted for the child's model and stored again when
 * large; a part with nothing to write is left out.
 */
export async function handoffTexts(store: BlobStore, parts: HandoffPart[], encoding: Encoding): Promise<HandoffText[]> {
  const texts: HandoffText[] = [];
  for (const part of parts) {
    const text = handoffText(part, await Promise.all(part.parts.map((p) => fullText(store, p))));
    if (text === '') continue;
    texts.push({
      region: part.region,
      content: await toContent(store, text),
      tokens: countTokens(text, encoding),
      summarize: part.transform === 'summarize',
    });
  }
  return texts;
}
