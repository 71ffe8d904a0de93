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
