/**
 * What `lev stages` does (docs/reference/cli.md#lev-stages): reads the run's event stream as
 * it is now and prints its per-stage ledger, a row per stage visit and a total, or with
 * `--json` the ledger itself. An unknown run is `run-not-found`.
 */
import { formatDuration } from '../blueprint/duration.js';
import { dollars } from '../runtime/details.js';
import type { RunEvent } from '../shapes/run-events.js';
import { type StageLedger, stageLedger } from '../stream/stage-ledger.js';
import { subscribeRun } from '../stream/subscribe.js';
import { describeRun } from '../worker/runs.js';
import { columnWidths } from './columns.js';
import { withClient } from './connect.js';

/** The options of `lev stages` (declared in `commands/stages.ts`). */
export interface StagesFlags {
  address: string;
  namespace: string;
  json?: boolean;
}

const HEADER = [
  'VISIT',
  'STAGE',
  'STARTED',
  'TOOK',
  'TURNS',
  'PROMPT',
  'OUTPUT',
  'CACHE RD',
  'CACHE WR',
  'COST',
  'END',
  'NEXT',
];
/** Counts read right-aligned. */
const NUMERIC = new Set([0, 3, 4, 5, 6, 7, 8, 9]);

/** `MM-DD HH:MM:SS`, UTC. */
function when(ms: number | null): string {
  return ms === null ? '-' : new Date(ms).toISOString().slice(5, 19).replace('T', ' ');
}

/** The ledger as a table: a row per visit, then the total, and a note when earlier visits are gone. */
export function formatLedger(ledger: StageLedger): string {
  // What a visit, or all of them, spent: the columns TURNS to COST.
  const spent = (s: Pick<StageLedger['total'], 'turns' | 'usage' | 'cost'>) => [
    String(s.turns),
    String(s.usage.promptTokens),
    String(s.usage.completionTokens),
    String(s.usage.cacheReadTokens),
    String(s.usage.cacheWriteTokens),
    s.cost === null ? '-' : dollars(s.cost),
  ];
  const last = ledger.visits.length - 1;
  const rows = ledger.visits.map((v, i) => [
    String(v.visit),
    v.stage,
    when(v.startedAt),
    v.startedAt !== null && v.endedAt !== null ? formatDuration((v.endedAt - v.startedAt) / 1000) : '-',
    ...spent(v),
    v.end ?? 'running',
    v.next ?? (i === last && ledger.runEnded ? `(run ${ledger.runEnded.status})` : '-'),
  ]);
  const total = ['', 'TOTAL', '', '', ...spent(ledger.total), '', ''];
  const widths = columnWidths(HEADER, [...rows, total]);
  const line = (row: string[]) =>
    row
      .map((cell, i) => (NUMERIC.has(i) ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  const lines = [line(HEADER), ...rows.map(line), line(total)];
  if (ledger.from > 0)
    lines.push(
      `(the run no longer keeps its events before offset ${ledger.from}: visits before them are missing, docs/reference/events.md#offsets)`,
    );
  return lines.join('\n');
}

/** Every event the run's stream holds now, oldest first. */
export async function runEvents(client: Parameters<typeof subscribeRun>[0], runId: string): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const item of subscribeRun(client, runId, { from: 0, follow: false }))
    if (item.kind !== 'text') events.push(item);
  return events;
}

export async function printStages(runId: string, flags: StagesFlags): Promise<void> {
  await withClient(flags, async (client) => {
    await describeRun(client, runId, flags.address);
    const ledger = stageLedger(await runEvents(client, runId));
    process.stdout.write(flags.json ? `${JSON.stringify({ runId, ...ledger })}\n` : `${formatLedger(ledger)}\n`);
  });
}
