/**
 * Exact token counting with the tiktoken encodings (docs/reference/regions.md#token-counting), through
 * gpt-tokenizer, a BPE that is several times faster than js-tiktoken and
 * builds its tables in a fraction of the memory. Runs in activities and the
 * CLI only: the region engine never imports this module, so the tokenizer
 * never reaches the workflow bundle.
 */
import { createRequire } from 'node:module';
import type { Encoding } from '../shapes/model-info.js';
import { encodeLongPiece, LONG_PIECE, piecePattern } from './long-pieces.js';

const require = createRequire(import.meta.url);

export interface Encoder {
  encode(text: string): number[];
  decode(tokens: number[]): string;
}

interface GptEncoding {
  encode(text: string, opts: { disallowedSpecial: Set<string> }): number[];
  decode(tokens: number[]): string;
}

const encoders = new Map<Encoding, Encoder>();
/** Special-token spellings in tool output are ordinary text, never control tokens. */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * One encoder per encoding, built on first use, so a process that only ever
 * sees o200k models never loads the other tables.
 */
export function encoderFor(encoding: Encoding): Encoder {
  let encoder = encoders.get(encoding);
  if (!encoder) {
    const table = require(`gpt-tokenizer/encoding/${encoding}`) as GptEncoding;
    encoder = { encode: (text) => table.encode(text, PLAIN_TEXT), decode: (tokens) => table.decode(tokens) };
    encoders.set(encoding, encoder);
  }
  return encoder;
}

const patterns = new Map<Encoding, RegExp>();

function append(into: number[], tokens: number[]): void {
  for (const token of tokens) into.push(token);
}

/**
 * Text is split into pieces as the tokenizer splits it; runs of short pieces
 * go to the encoder, and each long piece (a run of one letter, a long word of
 * base64) to a merge that is not quadratic. Pieces never merge across their
 * boundaries, so the tokens are the same as encoding the text whole.
 */
function encode(text: string, encoding: Encoding): number[] {
  const encoder = encoderFor(encoding);
  if (text.length <= LONG_PIECE) return encoder.encode(text);
  let pattern = patterns.get(encoding);
  if (!pattern) {
    pattern = piecePattern(encoding);
    patterns.set(encoding, pattern);
  }
  const tokens: number[] = [];
  let from = 0;
  for (const match of text.matchAll(pattern)) {
    if (match[0].length <= LONG_PIECE) continue;
    if (match.index > from) append(tokens, encoder.encode(text.slice(from, match.index)));
    append(tokens, encodeLongPiece(match[0], encoding));
    from = match.index + match[0].length;
  }
  if (from === 0) return encoder.encode(text);
  if (from < text.length) append(tokens, encoder.encode(text.slice(from)));
  return tokens;
}

export function countTokens(text: string, encoding: Encoding): number {
  if (text.length === 0) return 0;
  return encode(text, encoding).length;
}

/** Placeholder in a cut marker that is replaced by the number of tokens dropped. */
export const DROPPED_PLACEHOLDER = '{dropped}';

export const DEFAULT_CUT_MARKER = `\n[cut: ${DROPPED_PLACEHOLDER} more tokens were dropped to fit]`;

export interface CutText {
  text: string;
  tokens: number;
}

/**
 * Keeps the longest prefix of `text` that, followed by `marker`, counts at
 * most `target` tokens (docs/reference/regions.md#cutting-text). `{dropped}` in the marker becomes the
 * number of source tokens left out. Text that already fits is returned
 * whole; when not even the marker fits, a bare prefix is returned.
 */
export function cutToTokens(
  text: string,
  target: number,
  encoding: Encoding,
  marker: string = DEFAULT_CUT_MARKER,
): CutText {
  const limit = Math.max(0, Math.floor(target));
  const tokens = encode(text, encoding);
  if (tokens.length <= limit) return { text, tokens: tokens.length };
  const encoder = encoderFor(encoding);
  const markerFor = (kept: number) => marker.split(DROPPED_PLACEHOLDER).join(String(tokens.length - kept));
  // Token boundaries can merge where prefix and marker meet, and a prefix can
  // end inside a multi-byte character, so every candidate is recounted.
  let kept = Math.max(0, limit - countTokens(markerFor(0), encoding));
  while (kept > 0) {
    const candidate = encoder.decode(tokens.slice(0, kept)) + markerFor(kept);
    const count = countTokens(candidate, encoding);
    if (count <= limit) return { text: candidate, tokens: count };
    kept -= Math.max(1, count - limit);
  }
  const markerOnly = markerFor(0);
  const markerTokens = countTokens(markerOnly, encoding);
  if (markerTokens <= limit) return { text: markerOnly, tokens: markerTokens };
  return barePrefix(tokens, limit, encoding);
}

function barePrefix(tokens: number[], limit: number, encoding: Encoding): CutText {
  const encoder = encoderFor(encoding);
  let kept = limit;
  while (kept > 0) {
    const candidate = encoder.decode(tokens.slice(0, kept));
    const count = countTokens(candidate, encoding);
    if (count <= limit) return { text: candidate, tokens: count };
    kept -= 1;
  }
  return { text: '', tokens: 0 };
}

/**
 * Counting and cutting in one encoding, as rendering measures a custom region's output
 * (`RenderMeter` in src/context/render.ts).
 */
export function tokenMeter(encoding: Encoding): {
  count(text: string): number;
  cut(text: string, tokens: number, marker: string): string;
} {
  return {
    count: (text) => countTokens(text, encoding),
    cut: (text, tokens, marker) => cutToTokens(text, tokens, encoding, marker).text,
  };
}
