/**
 * Garbage collection of the Postgres blob store (`lev blobs gc`).
 *
 * How references are known: every blob write made by an activity records
 * `(run_id, hash)` in `leviath_blob_refs`, where `run_id` is the workflow id
 * of the run (a stage visit records its parent run's id, which it carries).
 * A run keeps its blobs while Temporal still knows its workflow id: open, or
 * closed and still inside the namespace's retention period. Once Temporal
 * has forgotten a run, its references are dropped, and a blob older than
 * the cut-off with no reference left is deleted.
 *
 * Races with writers: references written after the collection began are
 * always kept, and the deleting transaction holds a lock that blob inserts
 * wait on, so a run re-storing an old blob either commits its reference
 * before the delete looks (and the blob stays) or inserts the blob again
 * after it (and the blob is back).
 */
import { LevError } from '../errors.js';
import type { PostgresBlobStore } from './postgres.js';

export interface GcOptions {
  olderThanMs: number;
  /** The subset of `runIds` that Temporal still knows (open or retained). */
  knownRuns: (runIds: string[]) => Promise<Set<string>>;
  dryRun?: boolean;
}

export interface GcReport {
  runsChecked: number;
  runsForgotten: number;
  refsDeleted: number;
  blobsDeleted: number;
  bytesDeleted: number;
  blobsKept: number;
  dryRun: boolean;
}

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `30d`, `12h`, `90m`, `45s`, `2w` as milliseconds. */
export function parseAge(text: string): number {
  const m = /^\s*(\d+)\s*([smhdw])\s*$/.exec(text);
  if (!m?.[1] || !m[2])
    throw new LevError(
      'bad-input',
      `--older-than takes a number and a unit (s, m, h, d or w), got "${text}"; for example --older-than 30d.`,
    );
  return Number(m[1]) * (UNITS[m[2]] ?? 0);
}

export async function collectBlobs(store: PostgresBlobStore, opts: GcOptions): Promise<GcReport> {
  const { rows: clock } = await store.query<{ started: Date }>(
    'reading its clock',
    'SELECT clock_timestamp() AS started',
  );
  const started = clock[0]?.started ?? new Date();
  const { rows: runs } = await store.query<{ run_id: string }>(
    'listing referencing runs',
    'SELECT DISTINCT run_id FROM leviath_blob_refs WHERE created_at < $1',
    [started],
  );
  const runIds = runs.map((r) => r.run_id);
  const live = [...(await opts.knownRuns(runIds))];
  const cutoff = new Date(started.getTime() - opts.olderThanMs);

  const client = await store.pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('LOCK TABLE leviath_blobs IN SHARE ROW EXCLUSIVE MODE');
    const refs = await client.query(
      'DELETE FROM leviath_blob_refs WHERE created_at < $1 AND NOT (run_id = ANY($2::text[]))',
      [started, live],
    );
    const blobs = await client.query<{ bytes: number }>(
      `DELETE FROM leviath_blobs b WHERE b.created_at < $1
         AND NOT EXISTS (SELECT 1 FROM leviath_blob_refs r WHERE r.hash = b.hash)
       RETURNING b.bytes`,
      [cutoff],
    );
    // A name outlives no blob: the names of deleted blobs go with them.
    await client.query(
      'DELETE FROM leviath_blob_names n WHERE NOT EXISTS (SELECT 1 FROM leviath_blobs b WHERE b.hash = n.hash)',
    );
    const { rows: left } = await client.query<{ n: string }>('SELECT count(*) AS n FROM leviath_blobs');
    await client.query(opts.dryRun ? 'ROLLBACK' : 'COMMIT');
    const blobsDeleted = blobs.rowCount ?? 0;
    return {
      runsChecked: runIds.length,
      runsForgotten: runIds.length - live.length,
      refsDeleted: refs.rowCount ?? 0,
      blobsDeleted,
      bytesDeleted: blobs.rows.reduce((sum, r) => sum + r.bytes, 0),
      blobsKept: Number(left[0]?.n ?? 0),
      dryRun: opts.dryRun ?? false,
    };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
