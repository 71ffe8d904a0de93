/**
 * A failed fetch hides the useful part (ECONNRESET, ECONNREFUSED, "other side
 * closed") a few `cause` links down; this digs it out for the error message.
 */
export function causeText(err: unknown): string {
  const parts: string[] = [];
  let cur: unknown = err;
  for (let depth = 0; depth < 5 && cur instanceof Error; depth++) {
    const code = (cur as { code?: unknown }).code;
    const text = typeof code === 'string' && !cur.message.includes(code) ? `${cur.message} (${code})` : cur.message;
    if (text && !parts.includes(text)) parts.push(text);
    cur = cur.cause;
  }
  return parts.slice(-2).join(': ') || 'connection failed';
}
