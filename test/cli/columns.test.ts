/**
 * The widths of the CLI's tables. `lev validate` prints no budget table for a blueprint with an
 * error, and one of a hundred thousand regions is always refused as too large, so its test of
 * 130,000 regions never reaches the table code: the widths are checked at that size here.
 */
import { describe, expect, it } from 'vitest';
import { columnWidths, widest } from '../../src/cli/columns.js';

describe('column widths', () => {
  it('are the widest cell of each column, at least its header, for any number of rows', () => {
    expect(
      columnWidths(
        ['region', 'kind'],
        [
          ['a', 'temporary'],
          ['notes', 'pinned'],
        ],
      ),
    ).toEqual([6, 9]);
    expect(widest([], 4)).toBe(4);
    // Spreading one argument per row (Math.max(...rows)) overflows the stack well before this.
    const rows = Array.from({ length: 300_000 }, (_, i) => [`r${i}`, 'temporary']);
    expect(columnWidths(['region', 'kind'], rows)).toEqual([7, 9]);
    expect(widest(rows.map((r) => r[0] ?? ''))).toBe(7);
  });
});
