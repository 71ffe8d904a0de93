/**
 * Blobs in PostgreSQL, shared by every worker of a deployment:
 * `leviath_blobs(hash, bytes, body, created_at)`, content-addressed and
 * insert-if-absent, the hash checked again on every read. Each write also
 * records which run stored the blob in `leviath_blob_refs(run_id, hash)`,
 * which is what `lev blobs gc` keeps blobs alive by (see `gc.ts`), and
 * `leviath_blob_names(name, hash)` holds the names of blobs (`BlobStore.name`).
 */
import { createRequire } from 'node:module';
import type pg from 'pg';
import type { Keyring } from '../codec/keys.js';

import { LevError } from '../errors.js';
import type { BlobRef } from '../shapes/content.js';
import { type BlobStore, blobRef, hashText, NAME_KEY } from './blob-store.js';
import { applySchema, DEFAULT_RETRY, type RetryPolicy, withPgRetry } from './pg-retry.js';
import { currentBlobRun } from './run-scope.js';
import { openBody, sealBody } from './sealing.js';

const require = createRequire(import.meta.url);
/** The driver loads with the first Postgres store, so a worker on the local folder never holds it. */
function pgDriver(): typeof pg {
  return require('pg') as typeof pg;
}

const HASH = /^[0-9a-f]{64}$/;

/**
 * Idempotent, and serialised by an advisory lock so two workers starting at
 * once do not race on creating the same table.
 */
const SCHEMA = `
SELECT pg_advisory_xact_lock(hashtext('leviath_blobs_schema'));
CREATE TABLE IF NOT EXISTS leviath_blobs (
  hash text PRIMARY KEY,
  bytes int NOT NULL,
  body bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS leviath_blob_refs (
  run_id text NOT NULL,
  hash text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (run_id, hash)
);
CREATE INDEX IF NOT EXISTS leviath_blob_refs_hash ON leviath_blob_refs (hash);
CREATE TABLE IF NOT EXISTS leviath_blob_names (
  name text PRIMARY KEY,
  hash text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
`;

export interface PostgresBlobOptions {
  /** Connections in the pool: one per activity slot of the worker. */
  poolSize?: number;
  retry?: RetryPolicy;
  /** With keys, bodies are written sealed (`sealing.ts`). */
  keys?: Keyring;
}

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://…';
  }
}

export class PostgresBlobStore implements BlobStore {
  readonly pool: pg.Pool;
  private schemaReady: Promise<void> | undefined;
  private readonly retry: RetryPolicy;
  private readonly keys: Keyring | undefined;

  constructor(
    readonly url: string,
    opts: PostgresBlobOptions = {},
  ) {
    this.pool = new (pgDriver().Pool)({
      connectionString: url,
      max: opts.poolSize ?? 10,
      connectionTimeoutMillis: 10_000,
      allowExitOnIdle: true,
    });
    // An idle client losing its server must not crash the worker; the next query reconnects.
    this.pool.on('error', () => {});
    this.retry = opts.retry ?? DEFAULT_RETRY;
    this.keys = opts.keys;
  }

  /** Creates the tables on first use; a failed attempt is tried again on the next call. */
  ready(): Promise<void> {
    if (!this.schemaReady) {
      this.schemaReady = withPgRetry('creating its tables', () => applySchema(this.pool, SCHEMA), this.retry).catch(
        (err) => {
          this.schemaReady = undefined;
          throw err;
        },
      );
    }
    return this.schemaReady;
  }

  async query<R extends pg.QueryResultRow>(what: string, text: string, values: unknown[] = []) {
    await this.ready();
    return withPgRetry(what, () => this.pool.query<R>(text, values), this.retry);
  }

  private checked(hash: string): string {
    if (!HASH.test(hash))
      throw new LevError(
        'blob-bad-hash',
        `\`${hash}\` is not a blob hash (64 lowercase hex digits); pass the hash from a blob reference.`,
      );
    return hash;
  }

  async put(text: string): Promise<BlobRef> {
    const ref = blobRef(text);
    const body = sealBody(this.keys, ref.hash, text);
    const run = currentBlobRun();
    // One statement, so the reference and the blob commit together.
    await this.query(
      'storing a blob',
      run
        ? `WITH ref AS (INSERT INTO leviath_blob_refs (run_id, hash) VALUES ($4, $1) ON CONFLICT DO NOTHING)
           INSERT INTO leviath_blobs (hash, bytes, body) VALUES ($1, $2, $3) ON CONFLICT (hash) DO NOTHING`
        : 'INSERT INTO leviath_blobs (hash, bytes, body) VALUES ($1, $2, $3) ON CONFLICT (hash) DO NOTHING',
      run ? [ref.hash, ref.bytes, body, run] : [ref.hash, ref.bytes, body],
    );
    return ref;
  }

  async get(hash: string): Promise<string> {
    const { rows } = await this.query<{ body: Buffer }>(
      'reading a blob',
      'SELECT body FROM leviath_blobs WHERE hash = $1',
      [this.checked(hash)],
    );
    const row = rows[0];
    if (!row)
      throw new LevError(
        'blob-missing',
        `Blob ${hash} is not in the Postgres blob store at ${redactUrl(this.url)}; it was deleted by \`lev blobs gc\` or the run wrote to another store, so point every worker at the same LEVIATH_BLOBS.`,
      );
    const text = openBody(this.keys, hash, row.body);
    if (hashText(text) !== hash)
      throw new LevError(
        'blob-corrupt',
        `Blob ${hash} in the Postgres blob store does not match its hash; delete its row (DELETE FROM leviath_blobs WHERE hash = '${hash}') so it can be stored again.`,
      );
    return text;
  }

  async has(hash: string): Promise<boolean> {
    if (!HASH.test(hash)) return false;
    const { rows } = await this.query('looking up a blob', 'SELECT 1 FROM leviath_blobs WHERE hash = $1', [hash]);
    return rows.length > 0;
  }

  async name(key: string, hash: string): Promise<void> {
    if (!NAME_KEY.test(key))
      throw new LevError(
        'blob-bad-hash',
        `\`${key}\` is not a blob name (64 lowercase hex digits); name blobs by a hash.`,
      );
    await this.query(
      'naming a blob',
      `INSERT INTO leviath_blob_names (name, hash) VALUES ($1, $2)
       ON CONFLICT (name) DO UPDATE SET hash = EXCLUDED.hash, created_at = now()`,
      [key, this.checked(hash)],
    );
  }

  async named(key: string): Promise<string | undefined> {
    if (!NAME_KEY.test(key)) return undefined;
    const { rows } = await this.query<{ hash: string }>(
      'reading a blob name',
      'SELECT hash FROM leviath_blob_names WHERE name = $1',
      [key],
    );
    return rows[0]?.hash;
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
