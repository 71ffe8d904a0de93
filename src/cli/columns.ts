/**
 * Column widths for the CLI's tables. A loop, not `Math.max(...lengths)`:
 * spreading one argument per row overflows the stack on a blueprint with a
 * hundred thousand regions.
 */

/** The length of the longest text, and at least `least`. */
export function widest(texts: Iterable<string>, least = 0): number {
  let width = least;
  for (const text of texts) if (text.length > width) width = text.length;
  return width;
}

/** The width of each column: the widest of its header and its cells. */
export function columnWidths(header: string[], rows: string[][]): number[] {
  return header.map((h, i) => widest(rowsColumn(rows, i), h.length));
}

function* rowsColumn(rows: string[][], i: number): Iterable<string> {
  for (const row of rows) yield row[i] ?? '';
}
