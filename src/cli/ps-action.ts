/**
 * What `lev ps` prints: a table of runs, or with `--json` the array of
 * `RunRow` objects (docs/reference/operators.md#lev-ps).
 */
import { dollars } from '../runtime/details.js';
import { age, filterStatus } from '../worker/run-list.js';
import { listRuns, type RunRow } from '../worker/runs.js';
import { columnWidths } from './columns.js';
import { withClient } from './connect.js';

/** The options of `lev ps` (declared in `commands/ps.ts`). */
export interface PsFlags {
  address: string;
  namespace: string;
  status?: string;
  blueprint?: string;
  limit: number;
  json?: boolean;
}

/** As the current details print it; an unknown cost prints as `-`. */
export function formatCost(usd: number | null): string {
  return usd === null ? '-' : dollars(usd);
}

const HEADER = ['RUN ID', 'TITLE', 'BLUEPRINT', 'STAGE', 'STATUS', 'TURNS', 'TOKENS', 'COST', 'AGE'];
/** Counts read right-aligned. */
const NUMERIC = new Set([5, 6, 7, 8]);
/** The TITLE column, shown only when a listed run has a title (as the original's `lev ps`). */
const TITLE = 1;

export function formatRuns(rows: RunRow[]): string {
  const titled = rows.some((r) => r.title !== null);
  const cells = rows.map((r) => [
    r.runId,
    r.title ?? '',
    r.blueprint ?? '-',
    r.stage ?? '-',
    // What a waiting run waits for, as the progress query says, naming the provider of an outage (docs/reference/operators.md#lev-ps).
    r.reason ? `${r.status} (${r.reason})` : r.status === 'waiting' && r.waiting ? `waiting (${r.waiting})` : r.status,
    r.turns === null ? '-' : String(r.turns),
    r.tokens === null ? '-' : String(r.tokens),
    formatCost(r.costUsd),
    age(r.ageSeconds),
  ]);
  const widths = columnWidths(HEADER, cells);
  const line = (row: string[]) =>
    row
      .map((cell, i) => (NUMERIC.has(i) ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0)))
      .filter((_, i) => titled || i !== TITLE)
      .join('  ')
      .trimEnd();
  return [line(HEADER), ...cells.map(line)].join('\n');
}

export async function printRuns(flags: PsFlags): Promise<void> {
  // A bad --status is refused before anything is asked of the server.
  filterStatus(flags.status);
  await withClient(flags, async (client) => {
    const rows = await listRuns(
      client,
      {
        ...(flags.status !== undefined ? { status: flags.status } : {}),
        ...(flags.blueprint !== undefined ? { blueprint: flags.blueprint } : {}),
      },
      { limit: flags.limit },
    );
    if (flags.json) process.stdout.write(`${JSON.stringify(rows)}\n`);
    else if (rows.length === 0) process.stdout.write('no runs\n');
    else process.stdout.write(`${formatRuns(rows)}\n`);
  });
}
