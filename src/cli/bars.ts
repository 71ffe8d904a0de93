/** Per-region usage bars printed after every turn of `lev run`. */
import type { RegionBar } from '../runtime/types.js';
import { widest } from './columns.js';

const FULL = '█';
const EMPTY = '░';

export function bar(tokens: number, budget: number, width: number): string {
  const ratio = budget > 0 ? Math.min(1, tokens / budget) : 0;
  const filled = Math.round(ratio * width);
  return FULL.repeat(filled) + EMPTY.repeat(width - filled);
}

export function formatBars(regions: RegionBar[], width = 24): string {
  const nameWidth = widest(
    regions.map((r) => r.name),
    6,
  );
  const kindWidth = widest(
    regions.map((r) => r.kind),
    4,
  );
  return regions
    .map(
      (r) =>
        `  ${r.name.padEnd(nameWidth)}  ${r.kind.padEnd(kindWidth)}  ${bar(r.tokens, r.budget, width)}  ${String(r.tokens).padStart(6)} / ${r.budget}`,
    )
    .join('\n');
}
