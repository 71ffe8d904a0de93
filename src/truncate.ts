/**
 * Cutting text to a length in UTF-16 units without splitting a surrogate
 * pair: a cut between the halves of an emoji would send a lone surrogate
 * (invalid Unicode) to the model. Every preview and pointer uses this.
 */

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** The longest prefix of `text` of at most `max` UTF-16 units that ends on a whole character. */
export function cutUnits(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = Math.max(0, Math.floor(max));
  return text.slice(0, end > 0 && isHighSurrogate(text.charCodeAt(end - 1)) ? end - 1 : end);
}

/** `text` itself when it fits in `max` units, else its cut prefix followed by `…`. */
export function clipUnits(text: string, max: number): string {
  return text.length > max ? `${cutUnits(text, max)}…` : text;
}

/** Bytes of `text` in UTF-8 (a surrogate pair is one 4-byte character, a lone surrogate 3). */
export function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (isHighSurrogate(c) && i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** The longest prefix of `text` of at most `max` bytes of UTF-8 that ends on a whole character. */
export function cutBytes(text: string, max: number): string {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const pair = isHighSurrogate(c) && i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1));
    const size = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
    if (bytes + size > max) return text.slice(0, i);
    bytes += size;
    if (pair) i++;
  }
  return text;
}
