/**
 * Pushed blueprints in PostgreSQL (docs/reference/cluster-runs.md#the-store),
 * in the database of the blob store, so every worker of a cluster resolves
 * `demo@3` alike without a shared folder:
 *
 *     leviath_blueprints(hash, body)                                   the compiled blueprint
 *     leviath_blueprint_versions(name, version, hash, pushed_at, source)
 *
 * A push takes a per-name advisory lock in its transaction, so two pushes at
 * once take two versions. Bodies are sealed with the codec key when the
 * process has one, as blob bodies are. `lev blobs gc` never touches these
 * tables: a pushed blueprint stays until someone removes it.
 */
import { createRequire } from 'node:module';
import type pg from 'pg';
import { applySchema, DEFAULT_RETRY, type RetryPolicy, withPgRetry } from '../blobs/pg-retry.js';
import { redactUrl } from '../blobs/postgres.js';
import { openBody, sealBody } from '../blobs/sealing.js';
import type { Keyring } from '../codec/keys.js';
import type { Blueprint } from '../shapes/frozen-blueprint.js';
import { BlueprintStore, type BlueprintVersion, blueprintHash, checkName } from './pushed-blueprints.js';

const require = createRequire(import.meta.url);

/** Idempotent; the advisory lock keeps two processes from creating the tables at once. */
const SCHEMA = `
SELECT pg_advisory_xact_lock(hashtext('leviath_blueprints_schema'));
CREATE TABLE IF NOT EXISTS leviath_blueprints (
  hash text PRIMARY KEY,
  body bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS leviath_blueprint_versions (
  name text NOT NULL,
  version integer NOT NULL,
  hash text NOT NULL REFERENCES leviath_blueprints (hash),
  pushed_at timestamptz NOT NULL,
  source text NOT NULL,
  PRIMARY KEY (name, version)
);
`;

interface VersionRow {
  name: string;
  version: number;
  hash: string;
  pushed_at: Date;
  source: string;
}

function versionOf(row: VersionRow): BlueprintVersion {
  return {
    name: row.name,
    version: row.version,
    hash: row.hash,
    pushedAt: row.pushed_at.toISOString(),
    source: row.source,
  };
}

export class PostgresBlueprintStore extends BlueprintStore {
  private readonly pool: pg.Pool;
  private schemaReady: Promise<void> | undefined;

  constructor(
    readonly url: string,
    private readonly opts: { keys?: Keyring; poolSize?: number; retry?: RetryPolicy } = {},
  ) {
    super();
    this.pool = new (require('pg') as typeof pg).Pool({
      connectionString: url,
      max: opts.poolSize ?? 2,
      connectionTimeoutMillis: 10_000,
      allowExitOnIdle: true,
    });
    // An idle client losing its server must not crash the process; the next query reconnects.
    this.pool.on('error', () => {});
  }

  get where(): string {
    return `the PostgreSQL store at ${redactUrl(this.url)}`;
  }

  /** Creates the tables on first use, in a transaction of their own; a failed attempt is tried again on the next call. */
  private ready(): Promise<void> {
    if (!this.schemaReady)
      this.schemaReady = withPgRetry(
        'creating its tables',
        () => applySchema(this.pool, SCHEMA),
        this.opts.retry ?? DEFAULT_RETRY,
      ).catch((err) => {
        this.schemaReady = undefined;
        throw err;
      });
    return this.schemaReady;
  }

  /** Runs `work` in one transaction once the tables are there; transient failures are tried again. */
  private async transaction<T>(what: string, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    await this.ready();
    return withPgRetry(
      what,
      async () => {
        const client = await this.pool.connect();
        try {
          await client.query('BEGIN');
          const out = await work(client);
          await client.query('COMMIT');
          return out;
        } catch (err) {
          await client.query('ROLLBACK').catch(() => {});
          throw err;
        } finally {
          client.release();
        }
      },
      this.opts.retry ?? DEFAULT_RETRY,
    );
  }

  async push(
    name: string,
    bp: Blueprint,
    source: string,
    now = new Date(),
  ): Promise<BlueprintVersion & { created: boolean }> {
    checkName(name);
    const hash = blueprintHash(bp);
    return this.transaction('pushing a blueprint', async (client) => {
      await client.query("SELECT pg_advisory_xact_lock(hashtext('leviath_blueprint:' || $1))", [name]);
      await client.query('INSERT INTO leviath_blueprints (hash, body) VALUES ($1, $2) ON CONFLICT (hash) DO NOTHING', [
        hash,
        sealBody(this.opts.keys, hash, JSON.stringify(bp)),
      ]);
      const { rows } = await client.query<VersionRow>(
        'SELECT name, version, hash, pushed_at, source FROM leviath_blueprint_versions WHERE name = $1 ORDER BY version DESC LIMIT 1',
        [name],
      );
      const latest = rows[0] ? versionOf(rows[0]) : undefined;
      if (latest?.hash === hash) return { ...latest, created: false };
      const entry: BlueprintVersion = {
        name,
        version: (latest?.version ?? 0) + 1,
        hash,
        pushedAt: now.toISOString(),
        source,
      };
      await client.query(
        'INSERT INTO leviath_blueprint_versions (name, version, hash, pushed_at, source) VALUES ($1, $2, $3, $4, $5)',
        [entry.name, entry.version, entry.hash, entry.pushedAt, entry.source],
      );
      return { ...entry, created: true };
    });
  }

  async versions(name: string): Promise<BlueprintVersion[]> {
    checkName(name);
    return this.transaction('reading blueprint versions', async (client) =>
      (
        await client.query<VersionRow>(
          'SELECT name, version, hash, pushed_at, source FROM leviath_blueprint_versions WHERE name = $1 ORDER BY version',
          [name],
        )
      ).rows.map(versionOf),
    );
  }

  async names(): Promise<BlueprintVersion[]> {
    return this.transaction('listing blueprints', async (client) =>
      (
        await client.query<VersionRow>(
          `SELECT DISTINCT ON (name) name, version, hash, pushed_at, source
             FROM leviath_blueprint_versions ORDER BY name, version DESC`,
        )
      ).rows.map(versionOf),
    );
  }

  protected async object(hash: string): Promise<Blueprint | undefined> {
    const { rows } = await this.transaction('reading a blueprint', (client) =>
      client.query<{ body: Buffer }>('SELECT body FROM leviath_blueprints WHERE hash = $1', [hash]),
    );
    const row = rows[0];
    return row ? (JSON.parse(openBody(this.opts.keys, hash, row.body)) as Blueprint) : undefined;
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
